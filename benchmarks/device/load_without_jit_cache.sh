#!/bin/bash
# usage: bash benchmarks/device/load_without_jit_cache.sh   (see README.md)
# The f16 transformer block tuned on one GPU with the CUDA driver's JIT cache off (as on a machine that never loaded
# these candidates), by another checkout (.pack/before) and by this tree; prints each run's median module load.
export PYTHONUNBUFFERED=1 CUDA_CACHE_DISABLE=1
[ -d /tmp/site/ray ] || tar xJf .pack/r/ray.tar.xz -C /tmp/site || exit 3
cp -r .pack/mltune-0.1.0.dist-info /tmp/site/ 2>/dev/null
F="--iree-flag=--iree-cuda-use-ptxas --iree-flag=--iree-cuda-use-ptxas-from=/usr/local/cuda/bin/ptxas"
mkdir -p $OUT/jit; uptime > $OUT/jit/load.txt
for tree in .pack/before $PWD; do
  name=$(basename $tree)
  PYTHONPATH=$tree:/tmp/site PATH=/tmp/site/bin:$PATH timeout 100 python3 -m mltune.cli tune \
    examples/models/transformer_block_f16.mlir --target sm_90 --devices cuda://0 --budget 12 --seed 0 \
    --run-dir /tmp/jit_$name --dataset-dir /tmp/jitds_$name -o /tmp/jit_$name/spec.mlir $F > $OUT/jit/$name.log 2>&1
  echo "$name rc=$?"; cp /tmp/jit_$name/results.jsonl $OUT/jit/$name.jsonl
  PYTHONPATH=/tmp/site python3 benchmarks/executors/load_seconds.py $OUT/jit/$name.jsonl
done
uptime >> $OUT/jit/load.txt
