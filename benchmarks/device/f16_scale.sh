#!/bin/bash
# usage: bash benchmarks/device/f16_scale.sh STEP ARGS, each step a call of its own:
#   export NAME... | tune BUDGET SCREENS NAME... | resume RUN... | retime NAME... | agree DEVICE NAME...
#   | cpu_check NAME... | diagnose NAME...
# Whole-model tuning at real size on one GPU (docs/evaluation/sm_90/f16_scale/README.md): NAME's full-size float16
# export, weights inlined (examples/export/export_models.py, iree-turbine carried as wheels in .pack/whl; the image has
# torch and transformers), tuned for sm_90 on cuda://0 alone by benchmarks/whole_models/screen_throughput.py once per
# screen (SCREENS, e.g. dispatch,none: the screen, and every candidate timed whole), one run after the other; then each
# run's result re-measured with plain tools against the file as exported (timing/plain_tools_order.py, 8 rounds).
# `resume RUN` (e.g. bert_f16_none) continues a run the last call's limit stopped (`mltune tune --resume`; the run's own
# records say what it measured and when). `agree`: benchmarks/whole_models/screen_agreement.py on the exports, for sm_90
# on DEVICE (2 dispatches each, the heuristic's first 16 candidates, 5 rounds). `cpu_check`:
# benchmarks/gpu/numerics_against_cpu.py on each run (IREE's default GPU outputs and every checked candidate's against
# the export run on llvm-cpu by plain tools: which side a refused winner's difference is on). `diagnose`: where IREE's
# default sm_90 build goes wrong: the export built by plain iree-compile for IREE's own sm_80 target, against llvm-cpu,
# then ResNet-50's strided projections alone (benchmarks/gpu/strided_projection_numerics.py). Steps are separate calls
# (a call is at most 10 minutes); everything lives under /tmp/f16 between them.
export PYTHONUNBUFFERED=1 PATH=/tmp/site/bin:$PATH PYTHONPATH=$PWD:/tmp/site:/tmp/turbine HF_HUB_OFFLINE=1
step=$1; shift
mkdir -p /tmp/f16
case $step in
  export)
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/turbine .pack/whl/*.whl || exit 3
    (cd examples/export && python3 export_models.py --preset full --dtype float16 --out /tmp/f16 --inline "$@" \
      --external --onnx) > $OUT/export.txt 2>&1
    ls -la /tmp/f16 >> $OUT/export.txt ;;
  tune)
    budget=$1 screens=$2; shift 2
    for name in "$@"; do
      { date -u; uptime; } >> $OUT/env_$name.txt
      python3 benchmarks/whole_models/screen_throughput.py /tmp/f16/${name}_f16 --budget $budget --screens $screens \
        --rounds 0 --work /tmp/f16/work --tune-arg=--target=sm_90 --tune-arg=--devices=cuda://0 \
        > $OUT/throughput_$name.md 2>&1
      { date -u; uptime; } >> $OUT/env_$name.txt
      for log in /tmp/f16/work/0/${name}_f16_*/log.txt; do
        cp $log $OUT/log_$(basename $(dirname $log)).txt
      done
    done ;;
  resume)
    for run in "$@"; do
      { date -u; uptime; } >> $OUT/env_$run.txt
      (cd /tmp/f16 && python3 -m mltune.cli tune --resume /tmp/f16/work/0/$run/run) > $OUT/resume_$run.txt 2>&1
      { date -u; uptime; } >> $OUT/env_$run.txt
    done ;;
  retime)
    for name in "$@"; do
      for run in /tmp/f16/work/0/${name}_f16_*/run; do
        label=$(basename $(dirname $run))
        python3 benchmarks/timing/plain_tools_order.py --run-dir $run --rounds 8 --device cuda://0 \
          --default-source $run/${name}_f16.sm_90.mlir > $OUT/plain_$label.txt 2>&1
      done
    done ;;
  cpu_check)
    for name in "$@"; do
      for run in /tmp/f16/work/0/${name}_f16_*/run; do
        python3 benchmarks/gpu/numerics_against_cpu.py $run /tmp/f16/${name}_f16.mlir /tmp/f16/${name}_f16.flags \
          > $OUT/cpu_check_$(basename $(dirname $run)).txt 2>&1
      done
    done ;;
  diagnose)
    for name in "$@"; do
      iree-compile /tmp/f16/${name}_f16.mlir --iree-hal-target-device=cuda --iree-cuda-target=sm_80 \
        -o /tmp/f16/${name}_sm_80.vmfb > $OUT/diagnose_$name.txt 2>&1
      python3 benchmarks/gpu/numerics_against_cpu.py - /tmp/f16/${name}_f16.mlir /tmp/f16/${name}_f16.flags \
        --module /tmp/f16/${name}_sm_80.vmfb --device cuda://0 >> $OUT/diagnose_$name.txt 2>&1
    done
    python3 benchmarks/gpu/strided_projection_numerics.py --device cuda://0 --targets sm_90,sm_80 \
      > $OUT/projections.txt 2>&1 ;;
  agree)
    device=$1; shift
    (cd /tmp/f16 && python3 $OLDPWD/benchmarks/whole_models/screen_agreement.py $(printf '%s_f16 ' "$@") \
      --target sm_90 --device $device --jobs 32 --dispatches 2 --candidates 16 --rounds 5) > $OUT/agreement.txt 2>&1 ;;
esac
