#!/bin/bash
# usage: bash benchmarks/device/collect_gpus.sh SECONDS NAME...   (see README.md)
# One collector per GPU, all at once: problem i on cuda://i for at most SECONDS, records into $OUT/collect/ds
# (each run's own results.jsonl, under /tmp/cwI, holds the same records).
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
[ -d /tmp/site/ray ] || tar xJf .pack/r/ray.tar.xz -C /tmp/site || exit 3
cp -r .pack/mltune-0.1.0.dist-info /tmp/site/ 2>/dev/null
limit=$1; shift
mkdir -p $OUT/collect
{ date -u; nvidia-smi -L; nproc; uptime; } > $OUT/collect/env.txt 2>&1
F="--iree-flag=--iree-cuda-use-ptxas --iree-flag=--iree-cuda-use-ptxas-from=/usr/local/cuda/bin/ptxas"
i=0
for name in "$@"; do
  timeout $limit python3 benchmarks/collection/collect_dataset.py --target sm_90 --devices cuda://$i --budget 200 \
    --cores-per-lane 16 --batch 32 --dataset-dir $OUT/collect/ds --work /tmp/cw$i --only $name $F \
    > $OUT/collect/log_$name.txt 2>&1 &
  i=$((i+1))
done
wait
{ date -u; uptime; } >> $OUT/collect/env.txt
for d in /tmp/cw*/*/; do cp $d/tune.log $OUT/collect/$(basename $d).tune.log 2>/dev/null; done
ls -la $OUT/collect/ds/*/ ; wc -l $OUT/collect/ds/*/*
