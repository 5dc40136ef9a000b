#!/bin/bash
# usage: bash benchmarks/whole_models/dynamic_buckets.sh WORK SEQ_A SEQ_B [BUDGET]
# A model exported with a dynamic sequence length, tuned for two buckets: SmolLM-135M's configuration (random weights,
# float32, weights in an .irpa) exported by `mltune export decoder --dynamic`, tuned by `mltune tune --shape
# 1xSEQ_Axi64 --shape 1xSEQ_Bxi64` (a run per shape, one linked spec), then each shape re-measured with plain tools
# (timing/plain_tools_order.py, 8 rounds): the tuned specialised build against IREE's default build of the same
# specialised file, and against IREE's default build of the dynamic file as exported (`--default-source`), on the same
# inputs. One measurement at a time; `uptime` before and after each step.
set -uo pipefail
work=$1 seq_a=$2 seq_b=$3 budget=${4:-16}
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work" && cd "$work"
stamp() { echo "== $(date -u +%H:%M:%S) $*; $(uptime)"; }
model=m/smollm-135m_prefill_dynamic
if [ ! -f $model.mlir ]; then
  stamp export
  mltune export decoder smollm-135m --out m --dynamic --seq-len 128 --external-weights > export.txt 2>&1 || exit 1
fi
stamp tune
(cd m && mltune tune smollm-135m_prefill_dynamic.mlir --shape 1x${seq_a}xi64 --shape 1x${seq_b}xi64 \
  --int-range 0:49152 --parameters model=smollm-135m_prefill_dynamic.irpa --budget "$budget" \
  --run-dir "$work/runs" --dataset-dir "$work/datasets" -o "$work/buckets_spec.mlir" -q) > tune.txt 2>&1
for seq in $seq_a $seq_b; do
  run="$work/runs/1x${seq}xi64"
  [ -f "$run/compile_command.txt" ] || continue
  stamp "retime $seq (specialised default)"
  (cd m && python3 "$here/benchmarks/timing/plain_tools_order.py" --run-dir "$run" --rounds 8) > plain_$seq.txt 2>&1
  stamp "retime $seq (dynamic default)"
  (cd m && python3 "$here/benchmarks/timing/plain_tools_order.py" --run-dir "$run" --rounds 8 \
    --default-source "$work/$model.mlir") > plain_dynamic_$seq.txt 2>&1
done
# Which configs each build picks up from the linked spec: the lowering configs of its executables with the spec
# against without it, for each shape's specialised copy and for the dynamic file (compile only, no timing).
for source in "$work"/runs/*/smollm-135m_prefill_dynamic.*.mlir "$work/$model.mlir"; do
  for spec in "" "--iree-codegen-tuning-spec-path=$work/buckets_spec.mlir"; do
    iree-compile "$source" --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu \
      --iree-llvmcpu-target-cpu=host $spec --compile-to=executable-configurations -o - 2>/dev/null \
      | grep -o "lowering_config<[^>]*>" | sort > "configs.tmp.${spec:+spec}"
  done
  echo "$(basename "$source"): $(comm -13 configs.tmp. configs.tmp.spec | wc -l) lowering configs differ with the linked spec"
done > linked_spec_configs.txt
rm -f configs.tmp.*
stamp done
