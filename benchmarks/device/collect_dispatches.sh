#!/bin/bash
# usage: [SEED=S] bash benchmarks/device/collect_dispatches.sh SECONDS BUDGET DISPATCHES   (see README.md)
# Real models' dumped dispatches (a pick_dispatches.py folder) tuned with a shuffle at BUDGET for the sm_90 dataset:
# one collector per GPU, each taking every Nth dispatch, records appended to $OUT/ds as they are measured. After
# SECONDS, no collector starts another dispatch; the one still running is stopped (its records so far are kept).
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
[ -d /tmp/site/ray ] || tar xJf .pack/r/ray.tar.xz -C /tmp/site || exit 3
cp -r .pack/mltune-0.1.0.dist-info /tmp/site/ 2>/dev/null
limit=$1 budget=$2 dispatches=$3 seed=${SEED:-0}
gpus=$(nvidia-smi -L | wc -l)
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv; nproc; uptime; } \
  > $OUT/env.txt 2>&1
F="--iree-flag=--iree-cuda-use-ptxas --iree-flag=--iree-cuda-use-ptxas-from=/usr/local/cuda/bin/ptxas"
pids=()
for i in $(seq 0 $((gpus - 1))); do
  python3 benchmarks/collection/gpu_kinds.py --target sm_90 --devices cuda://$i --budget $budget \
    --jobs $(($(nproc) / gpus)) --dataset-dir $OUT/ds --seed $seed --work /tmp/cd${seed}_$i --dispatches $dispatches --lane $i/$gpus \
    --stop-after $((limit - 100)) $F > /tmp/cd${seed}_lane$i.txt 2>&1 &
  pids+=($!)
done
( sleep $limit; pkill -TERM -f 'mltune.cli tune' ) &
stopper=$!
wait "${pids[@]}"
pkill -P $stopper sleep; kill $stopper 2>/dev/null
{ date -u; uptime; } >> $OUT/env.txt
tar cJf $OUT/logs.tar.xz /tmp/cd${seed}_lane*.txt /tmp/cd${seed}_*/*.log 2>/dev/null
tar cJf $OUT/ds.tar.xz -C $OUT ds && rm -rf $OUT/ds
cat /tmp/cd${seed}_lane*.txt | grep -E '^==|exit'
