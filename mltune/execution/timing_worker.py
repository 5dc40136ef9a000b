"""Child process that times compiled candidates against the baseline with IREE's runtime.

Run as `python -m mltune.execution.timing_worker REQUEST.json`. Each candidate is timed call by call,
alternating with the baseline in A B B A order, in rounds. Adjacent calls see nearly the same
machine, so a round's ratio is the median of the ratios of its adjacent (candidate, baseline) call
pairs; a round reports the baseline's 25th-percentile call time and the candidate's time as that
times the ratio, so that the two times say what the ratio says. `benchmarks/timing/timing_protocol.py`
measured why: under a background load, pair ratios stay closer to the quiet machine's than ratios of
separate per-side statistics (`docs/measurement-protocol.md`).

After `rounds` rounds, rounds are added until the confidence interval of the speedup, read at the planned
looks, lies on one side of 1 or `max_rounds` is reached (`mltune.execution.verdict.Looks`). Each round also
reports how many cores other processes kept busy while it ran (from `/proc/stat`), so a verdict says how
loaded the machine was; a round disturbed by a burst of load is measured again after a pause (a few times per
candidate). A lasting load cannot be waited out: on this project's 2-core machine it moved the ratio of every
estimator (`docs/measurement-protocol.md`).

It prints one JSON line `{"start": i}` before candidate i and one result line after it, so the
parent knows which candidate was running if this process crashes or hangs, and `{"call_s": ...}` lines with the
baseline's call time (and then its calls per round), so the parent's deadline follows the model's pace.

With `"serve": true` in the request, the worker is kept: after a batch it prints `{"batch_done": true}` and reads
the next batch (its workload, candidates and plan: one JSON line) from its standard input, until that closes. The
device context is set up once, and each workload (baseline, arguments, weights) once, not once per batch
(`KeptWorker` says why).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import iree.runtime as rt
import numpy as np

from mltune.execution.loaded_module import Parameters, load_module
from mltune.execution.verdict import Looks
from mltune.input.files import InputFile

BASELINE_PERCENTILE = 25
DISTURBED_CORES = 0.5  # other processes' load that makes a round on the CPU device worth measuring again
GPU_HOST_CORES = 2  # a GPU round's host side: the thread that launches and waits, and one to spare
RETRY_PAUSE_S = 0.2
KEPT_WORKLOADS = 8  # baselines (with their arguments and weights) a kept worker holds


def _call_seconds(function, args) -> float:
    """One call. IREE's default (synchronous) function ABI returns once the device work is done,
    on GPUs too (a call's time grows with its work), so results are not read back: reading one back
    would time the copy, many times a small kernel's own time (`docs/measurement-protocol.md`)."""
    start = time.perf_counter()
    function(*args)
    return time.perf_counter() - start


class BusyCores:
    """Cores kept busy by other processes between two readings: all CPU time the kernel counts as busy,
    less this process's own (Linux; elsewhere it reads nothing)."""

    def __init__(self):
        self.tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        self._last = self._read()

    def _read(self) -> tuple[float, float, float] | None:
        try:
            with open("/proc/stat") as handle:
                fields = [int(x) for x in handle.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        busy = sum(fields) - fields[3] - (fields[4] if len(fields) > 4 else 0)  # less idle and iowait
        own = os.times()
        return time.monotonic(), busy / self.tick, own.user + own.system

    def since_last(self) -> float:
        now = self._read()
        last, self._last = self._last, now
        if now is None or last is None or now[0] <= last[0]:
            return float("nan")
        return max(0.0, ((now[1] - last[1]) - (now[2] - last[2])) / (now[0] - last[0]))


def _thread_cpu_ns() -> dict[str, int]:
    """CPU time each thread of this process has run, from the scheduler's own accounting."""
    times = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as handle:
                times[tid] = int(handle.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return times


def _call_with_cpu(function, args) -> list[float]:
    """One call's wall time, and the most and the total CPU time any of this process's threads ran in it
    (microseconds). Only `benchmarks/timing/timing_protocol.py --cpu` asks for it: a thread's CPU time leaves out the
    time it waited for a core, but it also leaves out how well a config spreads over the cores."""
    before = _thread_cpu_ns()
    wall = _call_seconds(function, args)
    after = _thread_cpu_ns()
    deltas = [after[t] - before.get(t, 0) for t in after]
    return [round(wall * 1e6, 2), round(max(deltas) / 1e3, 2), round(sum(deltas) / 1e3, 2)]


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


def disturbed_cores(device: str) -> float:
    """Other processes' load that disturbs a round. IREE's CPU device runs on every core, so half a core of other
    work does; a GPU's host side needs a core or two, so only load that leaves it none does (a Ray node compiles
    on its other cores while its GPU is timed, and a retry for every round made the GPU wait)."""
    if device.startswith("local"):
        return DISTURBED_CORES
    return max(DISTURBED_CORES, len(os.sched_getaffinity(0)) - GPU_HOST_CORES)


def _round(baseline, candidate, args, calls: int) -> tuple[list[float], list[float]]:
    """`calls` (baseline, candidate) call pairs in A B B A order, so neither always runs first."""
    base, cand = [], []
    for call in range(calls):
        if call % 2 == 0:
            base.append(_call_seconds(baseline, args))
            cand.append(_call_seconds(candidate, args))
        else:
            cand.append(_call_seconds(candidate, args))
            base.append(_call_seconds(baseline, args))
    return cand, base


def _measure(baseline, candidate, args, calls: int, request: dict) -> dict:
    """Rounds of one candidate, until the verdict is decided, the cap, or a far slower first round. A round
    during which other processes kept `DISTURBED_CORES` busy is measured again after a pause, a few times
    per candidate: a passing burst of load is waited out, a lasting one is measured and reported."""
    cand_us, base_us, busy, raw = [], [], [], []
    looks = Looks(tuple(request.get("looks") or (request["rounds"],)))
    load, disturbed = BusyCores(), disturbed_cores(request["device"])
    retries = most_retries = request["rounds"] // 2 + 1
    while True:
        cand, base = _round(baseline, candidate, args, calls)
        busy_cores = load.since_last()
        if busy_cores >= disturbed and retries > 0:
            retries -= 1
            time.sleep(RETRY_PAUSE_S)
            load.since_last()
            continue
        busy.append(busy_cores)
        ratio = float(np.median(np.array(cand) / np.array(base)))
        base_us.append(float(np.percentile(base, BASELINE_PERCENTILE)) * 1e6)
        cand_us.append(base_us[-1] * ratio)
        if request.get("cpu"):
            pairs = [(_call_with_cpu(candidate, args), _call_with_cpu(baseline, args)) for _ in range(calls)]
            raw.append([[c for c, _ in pairs], [b for _, b in pairs]])
        elif request.get("raw"):
            raw.append([[round(c * 1e6, 2) for c in cand], [round(b * 1e6, 2) for b in base]])
        done = len(cand_us)
        if ratio > request["slow_factor"] or done >= request.get("max_rounds", request["rounds"]):
            break  # far slower than the baseline: more rounds would not change the verdict
        if looks.settled([c / b for c, b in zip(cand_us, base_us)], done - 1):
            break
    message = {
        "time_us": cand_us,
        "baseline_us": base_us,
        "calls_per_round": calls,
        "busy_cores": [round(b, 3) for b in busy],
        "retried_rounds": most_retries - retries,
    }
    return {**message, "raw": raw} if raw else message


def pairs_per_round(request: dict, call_s: float) -> int:
    """Enough (baseline, candidate) pairs to fill `round_seconds`, at least `min_calls`; where that many would last
    over `long_round_seconds`, at least `long_call_pairs` (`TimingPlan` says why; absent: `min_calls` always)."""
    floor = request["min_calls"]
    if request.get("long_call_pairs") and 2 * floor * call_s > request["long_round_seconds"]:
        floor = min(floor, request["long_call_pairs"])
    return int(np.clip(round(request["round_seconds"] / (2 * call_s)), floor, request["max_calls"]))


def _exit_when_orphaned(parent: int) -> None:
    """A kept worker outlives the thread that started it, so the kernel's parent-death signal cannot end it
    (`spawn`): it ends itself once its parent is gone, even while a kernel it launched still runs."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


@dataclass
class _Workload:
    """A baseline loaded with its arguments and weights, and its call time (what a batch is timed against)."""

    parameters: Parameters
    function: str
    args: list
    baseline: object  # the loaded module (kept alive) and its function
    base_call: float

    @staticmethod
    def load(config: rt.Config, request: dict) -> _Workload:
        if request["dispatch_level"]:
            args = [1]
        else:
            files = [InputFile(Path(path), tuple(shape), element) for path, shape, element in request["inputs"]]
            args = [rt.asdevicearray(config.device, f.load()) for f in files]
        parameters = Parameters(config, request.get("parameters", []))  # the weights' archives, mapped once
        baseline = load_module(parameters, request["baseline"], request["function"])
        _emit({"call_s": _call_seconds(baseline.function, args)})  # the parent's deadline follows the model's pace
        for _ in range(2):
            _call_seconds(baseline.function, args)
        base_call = float(np.median([_call_seconds(baseline.function, args) for _ in range(5)]))
        return _Workload(parameters, request["function"], args, baseline, base_call)


def _workload_key(request: dict) -> str:
    return json.dumps(
        [request[k] for k in ("baseline", "function", "inputs", "dispatch_level")] + [request.get("parameters", [])]
    )


def main(request_path: str) -> None:
    request = json.loads(Path(request_path).read_text())
    if request.get("serve"):
        _exit_when_orphaned(request["parent"])
    if request["device"] == "local-task":
        _workers_on_allowed_cpus()
    config = rt.Config(request["device"])
    workloads: dict[str, _Workload] = {}  # a kept worker's, the latest served last
    while True:
        key = _workload_key(request)
        workload = workloads.pop(key, None) or _Workload.load(config, request)
        workloads[key] = workload
        while len(workloads) > KEPT_WORKLOADS:
            del workloads[next(iter(workloads))]
        calls = pairs_per_round(request, workload.base_call)
        _emit({"call_s": workload.base_call, "calls": calls})
        keep_alive = []  # the batch's modules, released once it is over (a kept worker serves many batches)
        for index, vmfb in request["candidates"]:
            _emit({"start": index})
            started = time.perf_counter()
            keep_alive.append(load_module(workload.parameters, vmfb, workload.function))
            candidate = keep_alive[-1].function
            _call_seconds(candidate, workload.args)
            loaded = time.perf_counter()
            measured = _measure(workload.baseline.function, candidate, workload.args, calls, request)
            _emit(
                {
                    "index": index,
                    **measured,
                    "load_s": round(loaded - started, 4),
                    "worker_s": round(time.perf_counter() - started, 4),
                }
            )
        if not request.get("serve"):
            return
        _emit({"batch_done": True})
        line = sys.stdin.readline()  # the next batch: its workload, candidates and plan
        if not line.strip():
            return
        request = {**request, **json.loads(line)}


if __name__ == "__main__":
    main(sys.argv[1])
