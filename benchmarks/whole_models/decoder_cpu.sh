#!/bin/bash
# usage: bash benchmarks/whole_models/decoder_cpu.sh WORK [BUDGET] [TIME_BUDGET]
# The CPU side of the Llama-class scenario, for a 2-core machine: SmolLM-135M's configuration (a Llama-family
# decoder, random weights, float32, weights in an .irpa) exported by `mltune export decoder` at 128 tokens, with its
# sequence length dynamic as serving exports have it, tuned by `mltune tune --shape 1x128xi64` on this CPU, the
# result re-measured with plain tools against IREE's default build of the same specialised model
# (timing/plain_tools_order.py, 8 rounds), and the same model run by torch eager on the same cores. One measurement
# at a time: nothing else should run meanwhile; `uptime` before and after says how loaded the machine was.
set -uo pipefail
work=$1 budget=${2:-24} time_budget=${3:-900}
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work" && cd "$work"
stamp() { echo "== $(date -u +%H:%M:%S) $*; $(uptime)"; }
stamp export
mltune export decoder smollm-135m --out m --dynamic --seq-len 128 --external-weights > export.txt 2>&1 || exit 1
stamp tune
(cd m && mltune tune smollm-135m_prefill_dynamic.mlir --shape 1x128xi64 --int-range 0:49152 \
  --parameters model=smollm-135m_prefill_dynamic.irpa --budget "$budget" --time-budget "$time_budget" \
  --run-dir "$work/run" --dataset-dir "$work/datasets" -o "$work/smollm_spec.mlir" -q) > tune.txt 2>&1
stamp retime
[ -f run/compile_command.txt ] && (cd m && python3 "$here/benchmarks/timing/plain_tools_order.py" --run-dir "$work/run" \
  --rounds 8) > plain.txt 2>&1
stamp torch
python3 "$here/benchmarks/whole_models/torch_reference.py" decoder smollm-135m \
  --flags m/smollm-135m_prefill_dynamic.flags --dtype float32 --device cpu \
  --calls 10 > torch.txt 2>&1
stamp done
