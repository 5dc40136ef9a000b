#!/bin/bash
# usage: bash benchmarks/device/llm_scale.sh STEP, each step a call of its own:
#   setup p1 (carrying .pack/p1 and .pack/whl: iree-turbine, decorator), then setup p2 (carrying .pack/p2): IREE's
#     xz stream of make_pack.sh in three parts (`cat a1/part a2/part`, split at 20 and 40 MB), since the tree and
#     30 MB no longer fit one call's 64 MiB
#   start BUDGET TIME_BUDGET   (carrying .pack/p3, .pack/b, .pack/mltune-*.dist-info)
#   collect [MARK] (any later call: waits for the job to print MARK, default "done", at most LIMIT seconds, 560)
# Llama-3.2-1B's configuration, random weights, float16, exported by `mltune export decoder` on the device (weights in
# an .irpa), tuned whole for sm_90 on cuda://0 by `mltune tune` (prefill at 2048 tokens), its result re-measured with
# plain tools against the file as exported (timing/plain_tools_order.py, 6 rounds), the same model run by torch eager
# and torch.compile on the same GPU (whole_models/torch_reference.py); then one decode step against a 2048-token
# cache exported, built by IREE's default and timed beside torch, then torch.compile on the prefill and, last, the decode
# step tuned (half the time budget) and re-measured the same way. The job runs detached (setsid) from a copy of the
# tree, so that it outlives one call's 10 minutes; `collect` copies its logs to $OUT as they grow.
export PYTHONUNBUFFERED=1 PATH=/tmp/site/bin:$PATH HF_HUB_OFFLINE=1
step=$1; shift
work=/tmp/llm
copy_out() { for f in $work/*.txt $work/run_*/compile_command.txt $work/run_*/summary.json $work/run_*/report.txt; do
  [ -f "$f" ] && cp "$f" "$OUT/$(basename $(dirname $f))_$(basename $f)"; done; true; }
case $step in
  setup)
    cp .pack/$1/part /tmp/site_$1
    [ -d .pack/whl ] && { python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/turbine \
      .pack/whl/*.whl || exit 3; }
    python3 -c 'import torch; print(torch.__version__, torch.cuda.get_device_name())'
    nvidia-smi --query-gpu=name,memory.used,utilization.gpu --format=csv ;;
  start)
    budget=$1 time_budget=$2
    if [ ! -d /tmp/site/iree ]; then
      mkdir -p /tmp/site && cat /tmp/site_p1 /tmp/site_p2 .pack/p3/part | tar xJ -C /tmp/site || exit 3
      tar xJf .pack/b/site.tar.xz -C /tmp/site && cp -r .pack/mltune-*.dist-info /tmp/site/
    fi
    mkdir -p $work && rm -rf $work/src && cp -r . $work/src 2>/dev/null; rm -rf $work/src/.pack
    setsid nohup bash $work/src/benchmarks/device/llm_scale.sh job $budget $time_budget > $work/job.txt 2>&1 < /dev/null &
    while (( SECONDS < ${LIMIT:-540} )); do grep -q "== .* done" $work/job.txt 2>/dev/null && break; sleep 10; done
    copy_out ;;
  job)
    budget=$1 time_budget=$2
    export PYTHONPATH=$work/src:/tmp/site:/tmp/turbine
    cd $work
    stamp() { echo "== $(date -u +%H:%M:%S) $*; $(uptime)"; }
    stamp export prefill
    python3 -m mltune.cli export decoder llama-3.2-1b --out $work/m --dtype float16 --seq-len 2048 \
      --external-weights > export.txt 2>&1 || { stamp export failed; exit 1; }
    stamp tune
    (cd $work/m && python3 -m mltune.cli tune llama-3.2-1b_prefill.mlir --target sm_90 --devices cuda://0 \
      --benchmark-flags-file llama-3.2-1b_prefill.flags --budget $budget --time-budget $time_budget \
      --run-dir $work/run_prefill --dataset-dir $work/datasets -o $work/prefill_tuned.mlir -q) > tune_prefill.txt 2>&1
    stamp retime
    [ -f run_prefill/compile_command.txt ] && python3 $work/src/benchmarks/timing/plain_tools_order.py \
      --run-dir run_prefill --rounds 6 --device cuda://0 \
      --default-source run_prefill/llama-3.2-1b_prefill.sm_90.mlir > plain_prefill.txt 2>&1
    stamp torch prefill
    python3 $work/src/benchmarks/whole_models/torch_reference.py llama-3.2-1b --mode prefill --seq-len 2048 \
      > torch_prefill.txt 2>&1
    stamp export decode
    python3 -m mltune.cli export decoder llama-3.2-1b --out $work/m --dtype float16 --mode decode --cache-len 2048 \
      --external-weights > export_decode.txt 2>&1
    stamp default decode
    (cd $work/m && iree-compile llama-3.2-1b_decode.mlir --iree-hal-target-device=cuda --iree-cuda-target=sm_90 \
      -o decode.vmfb && iree-benchmark-module --module=decode.vmfb --device=cuda://0 --function=main \
      --flagfile=llama-3.2-1b_decode.flags --benchmark_repetitions=5 --benchmark_min_time=0.1) > iree_decode.txt 2>&1
    python3 $work/src/benchmarks/whole_models/torch_reference.py llama-3.2-1b --mode decode --cache-len 2048 \
      > torch_decode.txt 2>&1
    stamp done
    python3 $work/src/benchmarks/whole_models/torch_reference.py llama-3.2-1b --mode prefill --seq-len 2048 \
      --compile > torch_compile_prefill.txt 2>&1
    stamp torch.compile done
    (cd $work/m && python3 -m mltune.cli tune llama-3.2-1b_decode.mlir --target sm_90 --devices cuda://0 \
      --benchmark-flags-file llama-3.2-1b_decode.flags --budget $budget --time-budget $((time_budget / 2)) \
      --run-dir $work/run_decode --dataset-dir $work/datasets -o $work/decode_tuned.mlir -q) > tune_decode.txt 2>&1
    [ -f run_decode/compile_command.txt ] && python3 $work/src/benchmarks/timing/plain_tools_order.py \
      --run-dir run_decode --rounds 6 --device cuda://0 \
      --default-source run_decode/llama-3.2-1b_decode.sm_90.mlir > plain_decode.txt 2>&1
    stamp decode tuned ;;
  collect)
    while (( SECONDS < ${LIMIT:-560} )); do grep -q "== .* ${1:-done}" $work/job.txt 2>/dev/null && break; sleep 10; done
    copy_out; ls -la $work $work/m > $OUT/ls.txt 2>&1 ;;
esac
