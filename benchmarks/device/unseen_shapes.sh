#!/bin/bash
# usage: [RANKERS=random-forest,heuristic,shuffle] bash benchmarks/device/unseen_shapes.sh SHAPE_GROUP
# (see README.md) The one-op models of `gpu_heuristic_unseen.py --shapes SHAPE_GROUP` (e.g. unseen-f32) tuned at
# budget 30 by each ranker, one after another on GPU 0 (runs kept in /tmp/keep); what comes back: the table and
# ratios (`unseen.txt`), the rows (`rows.json`), each run's records (`records.tar.xz`), GPU, cores and load before
# and after (`env.txt`).
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv; nproc; uptime; } \
  > $OUT/env.txt 2>&1
rm -rf /tmp/keep
python3 benchmarks/ranking/gpu_heuristic_unseen.py --shapes "$1" \
  --rankers ${RANKERS:-random-forest,heuristic,shuffle} --budget 30 --target sm_90 --devices cuda://0 \
  --keep /tmp/keep --out $OUT/rows.json > $OUT/unseen.txt 2>&1
{ date -u; uptime; } >> $OUT/env.txt
tar cJf $OUT/records.tar.xz /tmp/keep/*/*/results.jsonl
