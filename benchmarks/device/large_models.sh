#!/bin/bash
# usage: bash benchmarks/device/large_models.sh STEP, each step a call of its own:
#   setup p1 (carrying .pack/p1 and .pack/whl: iree-turbine, decorator, diffusers), then setup p2 (carrying .pack/p2):
#     IREE's xz stream of make_pack.sh in three parts (`cat a1/part a2/part`, split at 20 and 40 MB), since the tree
#     and 30 MB don't fit one call's 64 MiB
#   start BUDGET TIME_BUDGET ITEM...   (carrying .pack/p3, .pack/b, .pack/mltune-*.dist-info); ITEMs, in this order:
#     sd-1.5 | sdxl-base   the UNet's denoising step, f16, batch 2 (mltune export unet)
#     prefill              Llama-3.2-1B's configuration, f16, 2048 tokens (mltune export decoder)
#     decode               one decode step of it against a 2048-token cache
#     TUNE_FLAGS, set for start, adds flags to each `mltune tune` (e.g. "--top 4 --screen-finalists 1": a UNet's
#     finalists are timed in a whole-model build each on CUDA, about 80 s apiece on the lent H100)
#   collect [MARK]   (any later call: waits, at most LIMIT seconds (560), for the job to print MARK, default "all done")
# Each model: random weights in an .irpa, exported on the device, tuned whole for sm_90 on cuda://0 by `mltune tune`
# with the BUDGET and the whole-run TIME_BUDGET, its result re-measured with plain tools against the file as exported
# (timing/plain_tools_order.py, 6 rounds), the same module run by torch eager (and torch.compile, with TORCH_COMPILE=1
# set for start) on the same inputs (whole_models/torch_reference.py), and IREE's default and tuned builds' outputs compared with torch's
# (whole_models/compare_outputs.py). The job runs detached (setsid) from a copy of the tree, so that it outlives one
# call's 10 minutes; `collect` copies its logs to $OUT as they grow.
export PYTHONUNBUFFERED=1 PATH=/tmp/site/bin:$PATH HF_HUB_OFFLINE=1
step=$1; shift
work=/tmp/large
copy_out() { for f in $work/*.txt $work/run_*/compile_command.txt $work/run_*/summary.json $work/run_*/profile.json; do
  [ -f "$f" ] && cp "$f" "$OUT/$(basename $(dirname $f))_$(basename $f)"; done; true; }
wait_for() { while (( SECONDS < ${LIMIT:-560} )); do grep -q "== .* $1" $work/job.txt 2>/dev/null && break; sleep 10; done; }
case $step in
  setup)
    cp .pack/$1/part /tmp/site_$1
    [ -d .pack/whl ] && { python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/turbine \
      .pack/whl/*.whl || exit 3; }
    python3 -c 'import torch; print(torch.__version__, torch.cuda.get_device_name())'
    nvidia-smi --query-gpu=name,memory.used,utilization.gpu --format=csv ;;
  start)
    if [ ! -d /tmp/site/iree ]; then
      mkdir -p /tmp/site && cat /tmp/site_p1 /tmp/site_p2 .pack/p3/part | tar xJ -C /tmp/site || exit 3
      tar xJf .pack/b/site.tar.xz -C /tmp/site && cp -r .pack/mltune-*.dist-info /tmp/site/
    fi
    mkdir -p $work && rm -rf $work/src && cp -r . $work/src 2>/dev/null; rm -rf $work/src/.pack
    setsid nohup bash $work/src/benchmarks/device/large_models.sh job "$@" > $work/job.txt 2>&1 < /dev/null &
    wait_for "all done"; copy_out ;;
  job)
    budget=$1 time_budget=$2; shift 2
    export PYTHONPATH=$work/src:/tmp/site:/tmp/turbine
    cd $work
    stamp() { echo "== $(date -u +%H:%M:%S) $*; $(uptime)"; nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv,noheader; }
    measured() {  # LABEL STEM KIND CONFIG [MODE]: tune m/STEM.mlir, re-measure, compare with torch
      local label=$1 stem=$2 kind=$3 config=$4 mode=${5:-prefill} run=$work/run_$1
      stamp tune $label
      (cd m && python3 -m mltune.cli tune $stem.mlir --target sm_90 --devices cuda://0 --benchmark-flags-file \
        $stem.flags --budget $budget --time-budget $time_budget --run-dir $run --dataset-dir $work/datasets \
        -o $work/${label}_spec.mlir -q $TUNE_FLAGS) > tune_$label.txt 2>&1
      stamp retime $label
      [ -f $run/compile_command.txt ] && python3 src/benchmarks/timing/plain_tools_order.py --run-dir $run \
        --rounds 6 --device cuda://0 --default-source $run/$stem.sm_90.mlir > plain_$label.txt 2>&1
      stamp torch $label
      python3 src/benchmarks/whole_models/torch_reference.py $kind $config --mode $mode --flags m/$stem.flags \
        --dtype float16 --save torch_$label.npy ${TORCH_COMPILE:+--compile} > torch_$label.txt 2>&1
      for build in default tuned; do
        [ -f $run/order_$build.vmfb ] && iree-run-module --module=$run/order_$build.vmfb --device=cuda://0 \
          --flagfile=$run/inputs/flags.txt --output=@iree_${build}_$label.npy > /dev/null 2>> numerics_$label.txt
      done
      compgen -G "iree_*_$label.npy" > /dev/null && python3 src/benchmarks/whole_models/compare_outputs.py \
        torch_$label.npy iree_*_$label.npy >> numerics_$label.txt 2>&1
      stamp $label done
    }
    for item in "$@"; do
      stamp export $item
      case $item in
        sd-1.5|sdxl-base)
          python3 -m mltune.cli export unet $item --out m --dtype float16 --external-weights > export_$item.txt 2>&1 &&
            measured $item ${item}_unet unet $item ;;
        prefill)
          python3 -m mltune.cli export decoder llama-3.2-1b --out m --dtype float16 --seq-len 2048 \
            --external-weights > export_prefill.txt 2>&1 && measured prefill llama-3.2-1b_prefill decoder llama-3.2-1b ;;
        decode)
          python3 -m mltune.cli export decoder llama-3.2-1b --out m --dtype float16 --mode decode --cache-len 2048 \
            --external-weights > export_decode.txt 2>&1 &&
            measured decode llama-3.2-1b_decode decoder llama-3.2-1b decode ;;
      esac
    done
    stamp all done ;;
  collect)
    wait_for "${1:-all done}"; copy_out; ls -la $work $work/m > $OUT/ls.txt 2>&1 ;;
esac
