#!/bin/bash
# The live study of `mltune tune --near-default` on znver4 (docs/evaluation/honest-split/znver4_near_default/README.md): from the repository's root,
#   bash benchmarks/results/honest-split/znver4_near_default/study.sh MODEL_DIR OUT
# MODEL_DIR: a family model trained without this CPU's records; OUT: where rows, printed output and kept runs go.
# Each problem group runs with picks near IREE's default (0.25) and without (0), one after the other.
M=$1
OUT=$2
mkdir -p "$OUT"
for G in cpu5 cpu4 cpu3; do
  for V in 0.25 0; do
    echo "$(date -u +%T) start $G near=$V load $(cut -d' ' -f1-3 /proc/loadavg)"
    python benchmarks/ranking/gpu_heuristic_unseen.py --target host --devices local-task --shapes $G \
      --rankers heuristic,random-forest --budget 30 --model-dir "$M" --near-default $V --lock /tmp/mltune-cpu.lock \
      --keep "$OUT/keep_${G}_$V" --out "$OUT/$G.near$V.rows.json" > "$OUT/$G.near$V.txt" 2>&1
    echo "$(date -u +%T) end $G near=$V rc=$? load $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
