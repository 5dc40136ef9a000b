"""Kernel-level timing: every measured build runs each dispatch R times per call, so that a call's fixed cost
does not hide the kernels' difference.

A synchronous call costs a GPU a fixed time beyond its kernels, which shrinks a faster kernel's speedup per call
towards none (`docs/measurement-protocol.md`). IREE's `--iree-hal-benchmark-dispatch-repeat-count=R` makes each
call run every dispatch R times. R is chosen per input by calibration: IREE's default build is timed with
R = 10 against R = 1 in one interleaved measurement; with call cost o and kernel time k, their ratio is
q = (o + 10 k) / (o + k), so o / k = (10 - q) / (q - 1), and R is the smallest count that leaves o below
`OVERHEAD_SHARE` of a call. Measured builds carry the flag; what mltune emits never does, and the emitted
result is also timed call by call against IREE's default, as a user will run it.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from mltune.emit.apply import Applied
from mltune.execution.build import Builder, BuildResult
from mltune.execution.devices import RunnerPool
from mltune.execution.measurement import Measurement, TimingPlan
from mltune.execution.runner import Runner

REPEAT_FLAG = "--iree-hal-benchmark-dispatch-repeat-count"
CALIBRATION_REPEAT = 10
OVERHEAD_SHARE = 0.03
MAX_REPEAT = 200
TIMINGS = ("auto", "call", "kernel")


@dataclass(frozen=True)
class KernelTiming:
    """The repeat count chosen, and what the calibration measured (call cost over kernel time)."""

    repeat: int
    overhead_per_kernel: float

    def describe(self) -> str:
        return (
            f"kernel-level: each dispatch runs {self.repeat} times per call (a call's fixed cost measured "
            f"{self.overhead_per_kernel:.2f}x the kernels' time)"
        )


def repeat_for(ratio: float) -> KernelTiming:
    """The repeat count for a measured R=10 / R=1 time ratio (see the module's docstring)."""
    if not ratio > 1.0:  # no kernel time visible at all: the most repeats
        return KernelTiming(MAX_REPEAT, float("inf"))
    overhead = max(0.0, (CALIBRATION_REPEAT - ratio) / (ratio - 1.0))
    needed = overhead * (1 - OVERHEAD_SHARE) / OVERHEAD_SHARE
    return KernelTiming(max(1, min(MAX_REPEAT, math.ceil(needed))), overhead)


def with_repeat(builder: Builder, repeat: int, work_dir: Path) -> Builder:
    """The same builder, every build running each dispatch `repeat` times per call, into `work_dir`."""
    flags = (*builder.tuning_input.compile_flags, f"{REPEAT_FLAG}={repeat}")
    return replace(builder, tuning_input=replace(builder.tuning_input, compile_flags=flags), work_dir=work_dir)


def calibrate(
    builder: Builder, runner: Runner | RunnerPool, default_build: BuildResult, work_dir: Path
) -> KernelTiming | None:
    """Time IREE's default build with R = 10 against R = 1; None when the R = 10 build fails or does not run."""
    repeated = with_repeat(builder, CALIBRATION_REPEAT, work_dir).compile(0, None, "calibration")
    if repeated.status != "ok" or default_build.vmfb is None:
        return None
    measured = runner.measure(default_build.vmfb, [(0, repeated.vmfb)], TimingPlan(rounds=3, slow_factor=1e9))[0]
    return repeat_for(measured.ratio) if measured.status == "ok" else None


@dataclass(frozen=True)
class MeasuredBuilds:
    """What the loop and the final checks measure with: the builder, IREE's default built by it, and the
    kernel-level timing chosen (None: call-level)."""

    builder: Builder
    baseline: BuildResult
    timing: KernelTiming | None

    @property
    def kernel_level(self) -> bool:
        """The builds repeat each dispatch (a calibration that chose R = 1, or failed, leaves them per call)."""
        return self.timing is not None and self.timing.repeat > 1


def measured_builds(
    choice: str, gpu: bool, builder: Builder, runner: Runner | RunnerPool, baseline: BuildResult, run_dir: Path
) -> MeasuredBuilds:
    """Kernel-level builds for `--timing kernel`, or `auto` on a GPU; the repeat count is calibrated once per run
    directory (a resumed run measures as the run it continues did)."""
    if choice == "call" or (choice == "auto" and not gpu):
        return MeasuredBuilds(builder, baseline, None)
    cache = run_dir / "kernel_timing.json"
    try:
        data = json.loads(cache.read_text())
        timing: KernelTiming | None = KernelTiming(int(data["repeat"]), float(data["overhead_per_kernel"]))
    except (OSError, ValueError, KeyError, TypeError):
        timing = calibrate(builder, runner, baseline, run_dir / "calibration")
        if timing is not None:
            cache.write_text(json.dumps(asdict(timing)))
    if timing is None or timing.repeat <= 1:
        return MeasuredBuilds(builder, baseline, timing)
    repeated = with_repeat(builder, timing.repeat, run_dir / "kernel")
    repeated_baseline = repeated.compile(-1, None, "baseline")
    if repeated_baseline.status != "ok":
        return MeasuredBuilds(builder, baseline, None)
    return MeasuredBuilds(repeated, repeated_baseline, timing)


def call_level(
    result: Applied, builder: Builder, runner: Runner | RunnerPool, default_build: BuildResult, plan: TimingPlan
) -> Measurement | None:
    """The emitted result built as the user will build it, timed call by call against IREE's default build."""
    build = builder.compile(0, result, "call_level")
    if build.status != "ok" or default_build.vmfb is None:
        return None
    return runner.measure(default_build.vmfb, [(0, build.vmfb)], plan)[0]
