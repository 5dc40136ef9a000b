"""Child process that times compiled candidates against the baseline with IREE's runtime.

Run as `python -m mltune.search.timing_worker REQUEST.json`. Each candidate is timed call
by call, alternating with the baseline (B C C B B C ...), in rounds; a round's time is the
25th percentile of its calls: interference from other processes only ever adds time, so on
a shared machine a low quantile is steadier than the median. Separate
`iree-benchmark-module` processes see different machine states; calls interleaved in one
process see the same one (`benchmarks/timing_noise.py` measures both).

It prints one JSON line `{"start": i}` before candidate i and one result line after it, so
the parent knows which candidate was running if this process crashes or hangs.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import iree.runtime as rt
import numpy as np

from mltune.input_files import InputFile

ROUND_PERCENTILE = 25


def _load(config: rt.Config, vmfb: str, function: str):
    context = rt.SystemContext(config=config)
    context.add_vm_module(rt.VmModule.mmap(config.vm_instance, vmfb))
    return context, context.modules.module[function]


def _call_seconds(function, args) -> float:
    """One call. IREE's default (synchronous) function ABI returns once the device work is done,
    on GPUs too, so results are not read back: on an H100 four times the work took 3.1x the call
    time, while reading a 4096x4096 f32 result back added 17 ms to a 1.3 ms matmul."""
    start = time.perf_counter()
    function(*args)
    return time.perf_counter() - start


def _emit(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _workers_on_allowed_cpus() -> None:
    """Give IREE's task system one worker per CPU this process may use when it was pinned
    (`taskset`): by default IREE counts the machine's cores, which would oversubscribe a pinned
    run and disagree with the core count that the features assume (`CpuInfo.cores`)."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < (os.cpu_count() or len(allowed)):
        rt.flags.parse_flags(f"--task_topology_cpu_ids={','.join(map(str, allowed))}")


def main(request_path: str) -> None:
    request = json.loads(Path(request_path).read_text())
    if request["device"] == "local-task":
        _workers_on_allowed_cpus()
    config = rt.Config(request["device"])
    if request["dispatch_level"]:
        args = [1]
    else:
        files = [InputFile(Path(path), tuple(shape), element) for path, shape, element in request["inputs"]]
        args = [rt.asdevicearray(config.device, f.load()) for f in files]
    keep_alive = []
    base_context, baseline = _load(config, request["baseline"], request["function"])
    keep_alive.append(base_context)
    for _ in range(3):
        _call_seconds(baseline, args)
    base_call = float(np.median([_call_seconds(baseline, args) for _ in range(5)]))
    calls = int(np.clip(round(request["round_seconds"] / (2 * base_call)), request["min_calls"], request["max_calls"]))
    slow_limit = request["slow_factor"]
    for index, vmfb in request["candidates"]:
        _emit({"start": index})
        context, candidate = _load(config, vmfb, request["function"])
        keep_alive.append(context)
        _call_seconds(candidate, args)
        cand_rounds, base_rounds = [], []
        for _ in range(request["rounds"]):
            cand_calls, base_calls = [], []
            for call in range(calls):
                # alternate which one goes first, so that neither always runs right after the other
                if call % 2 == 0:
                    base_calls.append(_call_seconds(baseline, args))
                    cand_calls.append(_call_seconds(candidate, args))
                else:
                    cand_calls.append(_call_seconds(candidate, args))
                    base_calls.append(_call_seconds(baseline, args))
            cand_rounds.append(float(np.percentile(cand_calls, ROUND_PERCENTILE)) * 1e6)
            base_rounds.append(float(np.percentile(base_calls, ROUND_PERCENTILE)) * 1e6)
            if cand_rounds[-1] > slow_limit * base_rounds[-1]:
                break  # far slower than the baseline: more rounds would not change the verdict
        _emit({"index": index, "time_us": cand_rounds, "baseline_us": base_rounds, "calls_per_round": calls})


if __name__ == "__main__":
    main(sys.argv[1])
