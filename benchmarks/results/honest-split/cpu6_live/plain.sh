#!/bin/bash
# after the collection: each emitted result of the live runs re-measured with plain tools, 8 rotating rounds
until grep -q "end lowerings" /tmp/live6/study.log; do sleep 20; done
cd /tmp/snap6
for run in /tmp/live6/keep_cpu6/*/*/compile_command.txt; do
  d=$(dirname $run)
  echo "== $d $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  python benchmarks/timing/plain_tools_order.py --run-dir $d --rounds 8 --lock /tmp/mltune-cpu.lock 2>&1
done
echo "$(date -u +%T) end plain load $(cut -d' ' -f1-3 /proc/loadavg)"
