#!/bin/bash
# live study of cpu6 on znver4, then a dense random sample for the replay; from the snapshot /tmp/snap6
cd /tmp/snap6
OUT=/tmp/live6
echo "$(date -u +%T) start live load $(cut -d' ' -f1-3 /proc/loadavg)"
python benchmarks/ranking/gpu_heuristic_unseen.py --target host --devices local-task --shapes cpu6 \
  --rankers heuristic,random-forest --budget 30 --model-dir /tmp/snap6/models --near-default 0.25 \
  --lock /tmp/mltune-cpu.lock --keep $OUT/keep_cpu6 --out $OUT/cpu6.rows.json > $OUT/cpu6.txt 2>&1
echo "$(date -u +%T) end live rc=$? load $(cut -d' ' -f1-3 /proc/loadavg)"
python benchmarks/collection/collect_dataset.py --problem-set cpu6 --arch znver4 --dataset-dir $OUT/D \
  --work $OUT/W --budget 80 --lock /tmp/mltune-cpu.lock > $OUT/collect.txt 2>&1
echo "$(date -u +%T) end shuffle rc=$? load $(cut -d' ' -f1-3 /proc/loadavg)"
python benchmarks/collection/collect_dataset.py --problem-set cpu6 --arch znver4 --dataset-dir $OUT/D \
  --work $OUT/W --budget 20 --ranker shuffle-lowerings --run-suffix .lowerings --lock /tmp/mltune-cpu.lock \
  > $OUT/collect_lowerings.txt 2>&1
echo "$(date -u +%T) end lowerings rc=$? load $(cut -d' ' -f1-3 /proc/loadavg)"
