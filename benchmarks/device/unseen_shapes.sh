#!/bin/bash
# usage: [RANKERS=random-forest,heuristic,shuffle] [BUDGET=30] [ONLY=NAME,...] [LIMIT=SECONDS]
#          bash benchmarks/device/unseen_shapes.sh SHAPE_GROUP
# (see README.md) The one-op models of `gpu_heuristic_unseen.py --shapes SHAPE_GROUP` (e.g. unseen-f32) tuned at
# budget 30 (BUDGET) by each ranker, one after another on GPU 0 (runs kept in /tmp/keep); what comes back: the table and
# ratios (`unseen.txt`), the rows (`rows.json`), each run's records (`records.tar.xz`), GPU, cores and load before
# and after (`env.txt`). Past LIMIT seconds (default 590) the runs stop; the records measured by then come back.
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv; nproc; uptime; } \
  > $OUT/env.txt 2>&1
rm -rf /tmp/keep
timeout ${LIMIT:-590} python3 benchmarks/ranking/gpu_heuristic_unseen.py --shapes "$1" --only "${ONLY:-}" \
  --rankers ${RANKERS:-random-forest,heuristic,shuffle} --budget ${BUDGET:-30} --target sm_90 --devices cuda://0 \
  --keep /tmp/keep --out $OUT/rows.json > $OUT/unseen.txt 2>&1
pkill -f 'mltune.cli tune'  # a run the limit cut short
{ date -u; uptime; } >> $OUT/env.txt
tar cJf $OUT/records.tar.xz /tmp/keep/*/*/results.jsonl
