#!/bin/bash
# usage: bash benchmarks/device/unseen_retime.sh SHAPE_GROUP BUDGET
# (see README.md) The learned ranker's runs of `unseen_shapes.sh SHAPE_GROUP` again, to BUDGET candidates (the
# same seed: the same order), and each run's result re-measured with plain tools on GPU 0
# (`plain_tools_order.py`: IREE's default build, a copy of it and the tuned build in rotating rounds, 8 rounds).
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
{ date -u; nvidia-smi -L; nproc; uptime; } > $OUT/env.txt 2>&1
rm -rf /tmp/keep
python3 benchmarks/ranking/gpu_heuristic_unseen.py --shapes "$1" --rankers random-forest --budget "$2" \
  --target sm_90 --devices cuda://0 --keep /tmp/keep --out $OUT/rows.json > $OUT/unseen.txt 2>&1
for run in /tmp/keep/*/random-forest; do
  shape=$(basename $(dirname $run))
  echo "== $shape" >> $OUT/plain.txt
  python3 benchmarks/timing/plain_tools_order.py --run-dir $run --rounds 8 --device cuda \
    --default-source $(ls $run/*.sm_90.mlir | head -1) >> $OUT/plain.txt 2>&1
done
{ date -u; uptime; } >> $OUT/env.txt
