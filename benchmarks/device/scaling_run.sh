#!/bin/bash
# usage: bash benchmarks/device/scaling_run.sh NAME SCALING_ARGS...   (see README.md)
# benchmarks/executors/scaling.py with the ptxas flags, its output, table and Ray logs kept under $OUT/NAME.
export PYTHONUNBUFFERED=1
SITE=/tmp/site
[ -d $SITE/iree ] || { echo "no IREE in $SITE"; exit 4; }
if [ ! -d $SITE/ray ]; then tar xJf .pack/r/ray.tar.xz -C $SITE || exit 3; fi
cp -r .pack/mltune-0.1.0.dist-info $SITE/ 2>/dev/null
export PYTHONPATH=$SITE PATH=$SITE/bin:$PATH
name=$1; shift
mkdir -p $OUT/$name
{ date -u; nvidia-smi -L; nproc; uptime
  python3 -c "import iree.runtime, iree.compiler, ray, z3, optuna, mltune; print('ray', ray.__version__, mltune.__file__)"
} 2>&1 | tee $OUT/$name/env.txt
F="--iree-flag=--iree-cuda-use-ptxas --iree-flag=--iree-cuda-use-ptxas-from=/usr/local/cuda/bin/ptxas"
set -o pipefail
echo "$ python3 benchmarks/executors/scaling.py $* --out $name.json --logs logs $F" | tee $OUT/$name/out.txt
python3 benchmarks/executors/scaling.py "$@" --out $OUT/$name/$name.json --logs /tmp/logs_$name $F 2>&1 \
  | tee -a $OUT/$name/out.txt
rc=$?
uptime | tee -a $OUT/$name/out.txt
(cd /tmp && tar czf $OUT/$name/logs.tgz logs_$name 2>/dev/null)
exit $rc
