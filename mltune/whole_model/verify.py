"""End-to-end check of the merged spec: every config must pay for itself in the whole model.

A config won against IREE's default on its own, but configs interact in one model (the caches
one dispatch leaves the next), so each is checked once all are in: a `CheckConfigs` gives each
config a gain (above 1: the model is faster with it) and drops those below 1. Ties are kept,
since the config already beat the default beyond the noise when it was tuned.

Leave-one-out, here, measures the gain on the whole model: the model built with all configs is
timed, interleaved, against the model built without each one. One pass, not a search: n configs
cost n extra compiles, run side by side with the builder's jobs, and one timing run. Where the
device times each dispatch inside the model, `mltune.whole_model.in_model_check` measures it in one build.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol, Sequence

from mltune.emit.apply import Applied
from mltune.execution.build import Builder, BuildResult
from mltune.execution.devices import RunnerPool
from mltune.execution.measurement import Measurement, TimingPlan
from mltune.execution.runner import Runner
from mltune.execution.verdict import SpeedupEstimate
from mltune.frontend.problem import Problem
from mltune.system.progress import display

VERIFY_ROUNDS = 15  # leave-one-out and the end-to-end timing decide what ships: measure them longest ...
VERIFY_MAX_ROUNDS = 45  # ... and on until the interval of the speedup lies on one side of 1


@dataclass(frozen=True)
class Config:
    """One problem's winning `compilation_info`, as it goes into the merged result."""

    problem: Problem
    compilation_info: str


LEAVE_ONE_OUT = "leave-one-out"
WITHOUT_OVER_ALL = "the model's time without it / with all"

Merge = Callable[[Sequence[Config]], Applied | None]  # configs -> the result that holds them (None: nothing to build)


@dataclass
class ConfigCheck:
    """The configs kept, and for each config its measured gain (above 1: the model is faster with it), what that
    gain is a ratio of, and which check measured it."""

    kept: list[Config]
    ratios: dict[str, float] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    full_build: BuildResult | None = None  # the build with every config
    method: str = LEAVE_ONE_OUT
    ratio_of: str = WITHOUT_OVER_ALL
    note: str = ""  # why this check was used where another was asked for

    def decide(self, configs: Sequence[Config]) -> ConfigCheck:
        """Drop the configs whose gain is below 1; keep the rest, the unmeasured included."""
        self.dropped = [c.problem.key for c in configs if self.ratios.get(c.problem.key, 1.0) < 1.0]
        self.kept = [c for c in configs if c.problem.key not in self.dropped]
        return self


class CheckConfigs(Protocol):
    """Measures each config's gain in the model built with them all, and decides which are kept."""

    def __call__(self, configs: Sequence[Config], merge: Merge) -> ConfigCheck: ...


@dataclass(frozen=True)
class LeaveOneOut:
    """Leave-one-out on the whole model, with `builder`'s flags, timed by `runner`."""

    builder: Builder
    runner: Runner | RunnerPool
    plan: TimingPlan

    def __call__(self, configs: Sequence[Config], merge: Merge) -> ConfigCheck:
        with display().phase(f"leave-one-out over {len(configs)} config(s): compile and time the model without each"):
            return leave_one_out(configs, merge, self.builder, self.runner, self.plan)


def leave_one_out(
    configs: Sequence[Config], merge: Merge, builder: Builder, runner: Runner | RunnerPool, plan: TimingPlan
) -> ConfigCheck:
    """Time the model with every config against the model without each one; drop those it runs faster without."""
    if not configs:
        return ConfigCheck([])
    without = [
        (i + 1, merge([c for c in configs if c is not left_out]), f"verify_without_{i + 1}")
        for i, left_out in enumerate(configs)
    ]
    full, *builds = builder.compile_named([(0, merge(configs), "verify_all"), *without])
    result = ConfigCheck(list(configs), full_build=full)
    if full.status != "ok":
        return result
    items = [(b.index, b.vmfb) for b in builds if b.status == "ok"]
    measured: dict[int, Measurement] = {m.index: m for m in runner.measure(full.vmfb, items, plan)}
    for i, config in enumerate(configs):
        measurement = measured.get(i + 1)
        if measurement is not None and measurement.status == "ok":
            result.ratios[config.problem.key] = measurement.ratio
    return result.decide(configs)


@dataclass(frozen=True)
class EndToEnd:
    """The final builds timed against IREE's default build (no spec, no extra flags), interleaved."""

    labels: tuple[str, ...]
    measurements: tuple[Measurement, ...]

    def speedup(self, label: str) -> float | None:
        if label not in self.labels:
            return None
        ratio = self.measurements[self.labels.index(label)].ratio
        return 1.0 / ratio if ratio not in (0.0, float("inf")) else None

    def measurement(self, label: str) -> Measurement | None:
        return self.measurements[self.labels.index(label)] if label in self.labels else None

    def relabelled(self, names: dict[str, str]) -> EndToEnd:
        """The same measurements, the labels in `names` renamed."""
        return EndToEnd(tuple(names.get(label, label) for label in self.labels), self.measurements)

    def estimate(self, label: str) -> SpeedupEstimate:
        """The speedup of `label` over IREE's default with its confidence interval (none when not measured)."""
        measurement = self.measurement(label)
        return measurement.estimate if measurement is not None else SpeedupEstimate.from_ratios([])


def end_to_end(
    default_vmfb: Path, builds: Sequence[tuple[str, Path]], runner: Runner | RunnerPool, plan: TimingPlan
) -> EndToEnd:
    """Time each labelled build against the default build in one run."""
    measured = runner.measure(default_vmfb, [(i, vmfb) for i, (_, vmfb) in enumerate(builds)], plan)
    return EndToEnd(tuple(label for label, _ in builds), tuple(measured))
