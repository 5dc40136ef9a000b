#!/bin/bash
# usage: bash benchmarks/device/gpu_kinds.sh tune|retime [DUMP]   (see README.md)
# tune: the dumped dispatches of docs/evaluation/sm_90/gpu_kinds/dispatches/ (ResNet-50's f32 convolutions, three
# reductions) tuned at budget 30 by the heuristic and shuffle, one dispatch per GPU at a time (runs kept in
# /tmp/keep). retime: their best candidates re-measured with plain tools, then the model dumped in DUMP (a
# `model_tunable_share.py --work` folder) timed dispatch by dispatch on GPU 0 and reclassified with this tree.
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
[ -d /tmp/site/ray ] || tar xJf .pack/b/site.tar.xz -C /tmp/site || exit 3
cp -r .pack/mltune-0.1.0.dist-info /tmp/site/ 2>/dev/null
D=docs/evaluation/sm_90/gpu_kinds/dispatches
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv; nproc; uptime; } \
  > $OUT/env_$1.txt 2>&1
if [ "$1" = tune ]; then
  devices=$(nvidia-smi -L | awk '{printf "%scuda://%d", NR > 1 ? "," : "", NR - 1}')
  python3 benchmarks/ranking/gpu_heuristic_unseen.py --dispatches "$(ls $D/*.mlir | paste -sd,)" \
    --rankers heuristic,shuffle --budget 30 --target sm_90 --devices "$devices" --keep /tmp/keep \
    --out $OUT/kinds.json > $OUT/kinds.txt 2>&1
  cp $OUT/kinds.json /tmp/keep/
  for f in /tmp/keep/*/*/results.jsonl; do r=${f%/results.jsonl}; cp $f $OUT/$(basename $(dirname $r))_$(basename $r).jsonl; done
else
  python3 benchmarks/timing/plain_dispatch_retime.py --keep /tmp/keep --rows /tmp/keep/kinds.json --rounds 8 > $OUT/retime.txt 2>&1
  python3 benchmarks/whole_models/model_tunable_share.py --dumped "$2" --reclassify --as-dispatches --device cuda \
    --jobs 16 > $OUT/share.txt 2>&1
  cp "$2/profile.json" $OUT/
fi
{ date -u; uptime; } >> $OUT/env_$1.txt
