#!/bin/bash
# usage: bash benchmarks/whole_models/time_budget_run.sh WORK MODEL FLAGS_FILE BUDGET TIME_BUDGET
# Does a whole run stay within --time-budget? `mltune tune MODEL --budget BUDGET --time-budget TIME_BUDGET` on the
# model as exported (e.g. ResNet-50 at full size, weights inlined: examples/export/export_models.py --preset full
# --inline resnet50), its wall time measured from outside with the machine's load before and after; the run's own
# report gives each stage's seconds (WORK/tune.txt, WORK/run/summary.json).
set -u
work=$1 model=$2 flags=$3 budget=$4 time_budget=$5
mkdir -p "$work"
work=$(cd "$work" && pwd) model=$(realpath "$model")
cd "$(dirname "$flags")" && flags=$(basename "$flags")  # its inputs are named relative to its folder
echo "before: $(uptime)" > "$work/steps.txt"
started=$(date +%s.%N)
python3 -m mltune.cli tune "$model" --benchmark-flags-file "$flags" --budget "$budget" --time-budget "$time_budget" \
  --run-dir "$work/run" --dataset-dir "$work/datasets" -o "$work/spec.mlir" -q > "$work/tune.txt" 2>&1
status=$?
ended=$(date +%s.%N)
echo "after: $(uptime)" >> "$work/steps.txt"
python3 -c "print(f'exit {$status}; wall {$ended - $started:.0f} s of --time-budget $time_budget')" | tee -a "$work/steps.txt"
