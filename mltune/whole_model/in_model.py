"""Each dispatch's time inside a run of the whole model, from IREE's own HAL profiling.

`iree-benchmark-module --device_profiling_mode=MODE --device_profiling_output=FILE` records every dispatch of the
calls it times, and `iree-profile dispatch --dispatch_events --format=jsonl` reads each one back with its export's
name and duration. The llvm-cpu HAL (`local-task`, `local-sync`) records a host execution event per dispatch, from
its first workgroup's start to its last one's end. Unlike a dumped dispatch benchmark, which reads never-written
memory and can run far from its time in the model (docs/dispatch-benchmarks-vs-model.md), this is the model's own
call: its data, the caches the dispatch before it left, its call counts with loops included.

Only the HAL drivers whose profiling was checked here are asked (`PROFILING_MODES`); for the others the caller
times dumped benchmarks as before. IREE 3.13's CUDA driver answers every profiling family with "CUDA HAL-native
profiling is not implemented" (benchmarks/results/sm_90/hal_profiling_cuda.txt); ROCm's could not be tried here.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from mltune.input.tuning_input import Invocation
from mltune.system.tools import run_tool, tool_path

# the profiling data family that times each dispatch, by HAL driver (the device's name up to its first `-` or `:`);
# local-task answers "unsupported local profiling data families" to `dispatch-events`
PROFILING_MODES = {"local": "host-execution"}
PROFILED_CALLS = 5
PROFILE_TIMEOUT_S = 600
_EVENT_TYPES = ("host_dispatch_event", "dispatch_event")


class NotProfiled(Exception):
    """The device or the run gave no per-dispatch profile; the message says why."""


@dataclass(frozen=True)
class FunctionTime:
    """One dispatch function's part of a model call: how often the call runs it, and the median of its
    durations."""

    function: str  # the executable's export, e.g. `main$async_dispatch_15_batch_matmul_1x128x768x3072_f32`
    calls: int  # per model call
    time_us: float  # per dispatch call

    @property
    def total_us(self) -> float:
        return self.time_us * self.calls


def profiling_mode(device: str) -> str | None:
    """The profiling family that times `device`'s dispatches, or None where it was not checked."""
    driver = device.split(":", 1)[0].split("-", 1)[0]
    return PROFILING_MODES.get(driver)


def profile_in_model(
    vmfb: Path, invocation: Invocation, device: str, work_dir: Path, calls: int = PROFILED_CALLS
) -> list[FunctionTime]:
    """Run the model `calls` times under profiling (after the benchmark's own warm-up call) and return each
    dispatch function's calls and median duration per model call, longest total first."""
    mode = profiling_mode(device)
    if mode is None:
        raise NotProfiled(f"per-dispatch profiling is not used on {device}")
    if invocation.dispatch_level:
        raise NotProfiled("a dispatch benchmark is one dispatch")
    work_dir.mkdir(parents=True, exist_ok=True)
    capture = work_dir / "model.ireeprof"
    call = [
        f"--function={invocation.function}",
        *(p.flag for p in invocation.parameters),
        *(f.flag for f in invocation.inputs),
    ]
    ran = run_tool(
        [
            tool_path("iree-benchmark-module"),
            f"--module={vmfb}",
            f"--device={device}",
            *call,
            f"--benchmark_min_time={calls}x",
            f"--device_profiling_mode={mode}",
            f"--device_profiling_output={capture}",
        ],
        timeout_s=PROFILE_TIMEOUT_S,
    )
    if not ran.ok:
        raise NotProfiled(f"iree-benchmark-module with profiling failed: {ran.describe_failure()}")
    return function_times(read_capture(capture), calls)


def read_capture(capture: Path) -> str:
    """A HAL profiling capture's dispatch events, as `iree-profile dispatch --dispatch_events --format=jsonl` prints
    them (one JSON object a line); NotProfiled when it cannot read them."""
    read = run_tool(
        [tool_path("iree-profile"), "dispatch", "--format=jsonl", "--dispatch_events", str(capture)],
        timeout_s=PROFILE_TIMEOUT_S,
    )
    if not read.ok:
        raise NotProfiled(f"iree-profile cannot read the capture: {read.describe_failure()}")
    return read.stdout


def function_times(jsonl: str, calls: int) -> list[FunctionTime]:
    """`iree-profile dispatch --dispatch_events --format=jsonl` output of `calls` model calls, per function."""
    durations: dict[str, list[float]] = defaultdict(list)
    for line in jsonl.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if row.get("type") in _EVENT_TYPES and row.get("valid", True) and "duration_ns" in row:
            durations[row["key"]].append(row["duration_ns"] / 1000.0)
    if not durations:
        raise NotProfiled("the profile holds no dispatch event")
    times = [
        FunctionTime(key, max(1, round(len(spans) / calls)), statistics.median(spans))
        for key, spans in durations.items()
    ]
    return sorted(times, key=lambda t: -t.total_us)
