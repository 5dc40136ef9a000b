#!/bin/bash
# usage: [MODELS=DIR] [TUNE_FLAGS=...] [OTHER_SRC=TREE] bash benchmarks/device/cuda_exports.sh BUDGET NAME...
# Each exported model (MODELS/NAME.mlir, by default the examples in examples/models/exported: a torch or JAX export)
# tuned whole for sm_90 on its own GPU (`mltune tune`, NAME i on cuda://i, all at once; a single NAME on every GPU),
# then its result re-measured with plain tools against the user's file as exported (its sm_90 copy), 8 rounds of
# rotating order, each on its own GPU. With OTHER_SRC (another checkout's tree, e.g. .pack/before), each model is
# tuned by that tree's mltune too, on the GPU after the models' (NAME i on cuda://N+i), and re-measured the same way.
export PYTHONUNBUFFERED=1 PATH=/tmp/site/bin:$PATH
[ -d /tmp/site/ray ] || tar xJf .pack/r/ray.tar.xz -C /tmp/site || exit 3
cp -r .pack/mltune-0.1.0.dist-info /tmp/site/ 2>/dev/null
budget=$1; shift
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv; nproc; uptime; } \
  > $OUT/env.txt 2>&1
models=${MODELS:-examples/models/exported}
all=$(seq -s, -f 'cuda://%g' 0 $(($(nvidia-smi -L | wc -l) - 1)))
runs=()  # NAME:TREE:LABEL
for name in "$@"; do runs+=("$name:$PWD:$name"); done
[ -n "$OTHER_SRC" ] && for name in "$@"; do runs+=("$name:$(realpath $OTHER_SRC):${name}_other"); done
i=0
for run in "${runs[@]}"; do
  IFS=: read name tree label <<< "$run"
  rm -rf /tmp/run_$label
  devices=cuda://$i; [ ${#runs[@]} -eq 1 ] && devices=$all
  PYTHONPATH=$tree:/tmp/site python3 -m mltune.cli tune $models/$name.mlir --target sm_90 --devices $devices \
    --budget $budget $TUNE_FLAGS --run-dir /tmp/run_$label -o /tmp/run_$label/out.mlir > $OUT/tune_$label.txt 2>&1 &
  i=$((i+1))
done
wait
{ date -u; uptime; } >> $OUT/env.txt
i=0
for run in "${runs[@]}"; do
  IFS=: read name tree label <<< "$run"
  PYTHONPATH=$PWD:/tmp/site python3 benchmarks/timing/plain_tools_order.py --run-dir /tmp/run_$label --rounds 8 \
    --device cuda://$i --default-source /tmp/run_$label/$name.sm_90.mlir > $OUT/plain_$label.txt 2>&1 &
  i=$((i+1))
done
wait
{ date -u; uptime; } >> $OUT/env.txt
for run in "${runs[@]}"; do
  IFS=: read name tree label <<< "$run"
  cp /tmp/run_$label/results.jsonl $OUT/results_$label.jsonl 2>/dev/null
done
