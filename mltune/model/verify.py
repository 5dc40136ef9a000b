"""End-to-end check of the merged spec: every config must pay for itself in the whole model.

A config won against IREE's default on its own, but configs interact in one model (cache
sharing, fusion around them), so each is checked by leave-one-out: the model built with all
configs is timed, interleaved, against the model built without that one config; a config is
dropped when the model runs faster without it (median ratio < 1). Ties are kept, since the
config already beat the default beyond the noise when it was tuned. One pass, not a search:
n configs cost n extra compiles, run side by side with the builder's jobs, and one timing run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from mltune.emit.apply import Applied
from mltune.execution.build import Builder, BuildResult
from mltune.execution.devices import RunnerPool
from mltune.execution.run import Measurement, Runner, TimingPlan
from mltune.execution.verdict import SpeedupEstimate
from mltune.frontend.problem import Problem

VERIFY_ROUNDS = 15  # leave-one-out and the end-to-end timing decide what ships: measure them longest ...
VERIFY_MAX_ROUNDS = 45  # ... and on until the interval of the speedup lies on one side of 1


@dataclass(frozen=True)
class Config:
    """One problem's winning `compilation_info`, as it goes into the merged result."""

    problem: Problem
    compilation_info: str


@dataclass
class LeaveOneOut:
    """The configs kept, and for each config the measured ratio (model without it / model with all)."""

    kept: list[Config]
    ratios: dict[str, float] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    full_build: BuildResult | None = None


def leave_one_out(configs: Sequence[Config], merge: Callable[[Sequence[Config]], Applied | None], builder: Builder,
                  runner: Runner | RunnerPool, plan: TimingPlan) -> LeaveOneOut:
    """Time the model with every config against the model without each one; drop those it runs faster without."""
    if not configs:
        return LeaveOneOut([])
    without = [(i + 1, merge([c for c in configs if c is not left_out]), f"verify_without_{i + 1}")
               for i, left_out in enumerate(configs)]
    full, *builds = builder.compile_named([(0, merge(configs), "verify_all"), *without])
    result = LeaveOneOut(list(configs), full_build=full)
    if full.status != "ok":
        return result
    items = [(b.index, b.vmfb) for b in builds if b.status == "ok"]
    measured: dict[int, Measurement] = {m.index: m for m in runner.measure(full.vmfb, items, plan)}
    for i, config in enumerate(configs):
        measurement = measured.get(i + 1)
        if measurement is None or measurement.status != "ok":
            continue
        result.ratios[config.problem.key] = measurement.ratio
        if measurement.ratio < 1.0:
            result.dropped.append(config.problem.key)
    result.kept = [c for c in configs if c.problem.key not in result.dropped]
    return result


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


def end_to_end(default_vmfb: Path, builds: Sequence[tuple[str, Path]], runner: Runner | RunnerPool,
               plan: TimingPlan) -> EndToEnd:
    """Time each labelled build against the default build in one run."""
    measured = runner.measure(default_vmfb, [(i, vmfb) for i, (_, vmfb) in enumerate(builds)], plan)
    return EndToEnd(tuple(label for label, _ in builds), tuple(measured))
