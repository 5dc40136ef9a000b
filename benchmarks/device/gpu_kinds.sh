#!/bin/bash
# usage: [OTHER_SRC=TREE] [RANKERS=heuristic,shuffle] bash benchmarks/device/gpu_kinds.sh DISPATCHES [DUMP]
# (see README.md)
# The dumped dispatches in the folder DISPATCHES (e.g. benchmarks/results/sm_90/gpu_kinds/dispatches: ResNet-50's f32
# convolutions, three reductions) tuned at budget 30 by the heuristic and shuffle, one dispatch per GPU at a time
# (runs kept in /tmp/keep), then each one's best candidate re-measured with plain tools; with DUMP (a
# `model_tunable_share.py --work` folder), that model timed dispatch by dispatch on GPU 0 and reclassified. With
# OTHER_SRC (another checkout, e.g. .pack/before), its heuristic runs too.
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
[ -d /tmp/site/ray ] || tar xJf .pack/r/ray.tar.xz -C /tmp/site || exit 3
cp -r .pack/mltune-0.1.0.dist-info /tmp/site/ 2>/dev/null
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv; nproc; uptime; } \
  > $OUT/env.txt 2>&1
devices=$(seq -s, -f 'cuda://%g' 0 $(($(nvidia-smi -L | wc -l) - 1)))
rm -rf /tmp/keep
python3 benchmarks/ranking/gpu_heuristic_unseen.py --dispatches "$(ls $1/*.mlir | paste -sd,)" \
  --rankers ${RANKERS:-heuristic,shuffle} ${OTHER_SRC:+--other-src $OTHER_SRC} --budget 30 --target sm_90 \
  --devices "$devices" \
  --keep /tmp/keep \
  --out $OUT/kinds.json > $OUT/kinds.txt 2>&1
{ date -u; uptime; } >> $OUT/env.txt
tar cJf $OUT/records.tar.xz /tmp/keep/*/*/results.jsonl
python3 benchmarks/timing/plain_dispatch_retime.py --keep /tmp/keep --rows $OUT/kinds.json --rounds 8 \
  > $OUT/retime.txt 2>&1
{ date -u; uptime; } >> $OUT/env.txt
if [ -n "$2" ]; then
  python3 benchmarks/whole_models/model_tunable_share.py --dumped "$2" --reclassify --as-dispatches --device cuda \
    --jobs 16 > $OUT/share.txt 2>&1
  cp "$2/profile.json" $OUT/
fi
