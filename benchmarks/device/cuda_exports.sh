#!/bin/bash
# usage: [MODELS=DIR] [TUNE_FLAGS=...] bash benchmarks/device/cuda_exports.sh BUDGET NAME...   (see README.md)
# Each exported model (MODELS/NAME.mlir, by default the examples in examples/models/exported: a torch or JAX export)
# tuned whole for sm_90 on its own GPU (`mltune tune`, NAME i on cuda://i, all at once; a single NAME on every GPU),
# then its result re-measured with plain tools against the user's file as exported (its sm_90 copy), 8 rounds of
# rotating order, each on its own GPU.
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
[ -d /tmp/site/ray ] || tar xJf .pack/b/site.tar.xz -C /tmp/site || exit 3
cp -r .pack/mltune-0.1.0.dist-info /tmp/site/ 2>/dev/null
budget=$1; shift
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv; nproc; uptime; } \
  > $OUT/env.txt 2>&1
models=${MODELS:-examples/models/exported}
all=$(seq -s, -f 'cuda://%g' 0 $(($(nvidia-smi -L | wc -l) - 1)))
i=0
for name in "$@"; do
  rm -rf /tmp/run_$name
  devices=cuda://$i; [ $# -eq 1 ] && devices=$all
  python3 -m mltune.cli tune $models/$name.mlir --target sm_90 --devices $devices --budget $budget $TUNE_FLAGS \
    --run-dir /tmp/run_$name -o /tmp/run_$name/out.mlir > $OUT/tune_$name.txt 2>&1 &
  i=$((i+1))
done
wait
{ date -u; uptime; } >> $OUT/env.txt
i=0
for name in "$@"; do
  python3 benchmarks/timing/plain_tools_order.py --run-dir /tmp/run_$name --rounds 8 --device cuda://$i \
    --default-source /tmp/run_$name/$name.sm_90.mlir > $OUT/plain_$name.txt 2>&1 &
  i=$((i+1))
done
wait
{ date -u; uptime; } >> $OUT/env.txt
for name in "$@"; do cp /tmp/run_$name/results.jsonl $OUT/results_$name.jsonl 2>/dev/null; done
