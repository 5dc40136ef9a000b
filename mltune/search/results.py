"""What a dispatch's search found: each trial (a compiled candidate and its measurement, if any), the finalists
re-measured and the winner, and each trial as the record a dataset keeps."""

from __future__ import annotations

from dataclasses import dataclass, field

from mltune.execution.build import BuildResult
from mltune.execution.measurement import Measurement
from mltune.frontend.problem import Problem
from mltune.records.dataset import Record


@dataclass(frozen=True)
class Trial:
    """A candidate that was compiled, and measured if it compiled."""

    index: int
    position: int
    knobs: dict[str, int]
    build: BuildResult
    measurement: Measurement | None
    compilation_info: str

    @property
    def told_ratio(self) -> float:
        """What the ranker is told: the measured ratio, inf for a compile failure (adaptive rankers learn where
        candidates fail)."""
        return self.measurement.ratio if self.measurement is not None else float("inf")


@dataclass
class DispatchResult:
    """What tuning one dispatch found: every trial, the re-measured finalists and the winner (if any)."""

    name: str
    problem: Problem
    candidates: int
    trials: list[Trial] = field(default_factory=list)
    finals: list[tuple[Trial, Measurement]] = field(default_factory=list)
    winner: tuple[Trial, Measurement] | None = None
    stop_reason: str = ""
    min_speedup: float = 1.0  # what a finalist had to reach to be kept
    timed: str = "call by call"  # how the finals were timed against IREE's default, for the report
    screened: int = 0  # candidates its screen timed before these trials (on its dump or one-op model)

    @property
    def benchmarked(self) -> int:
        return sum(1 for t in self.trials if t.measurement is not None)


def trial_record(problem: Problem, pipeline: str, trial: Trial, ranker: str, fields: dict) -> Record:
    """The record of one trial: its measurement, or why it was not measured (its compile failed)."""
    measurement = trial.measurement
    if measurement is not None:
        status, detail = measurement.status, measurement.detail and f"run: {measurement.detail}"
    else:
        status, detail = trial.build.status, trial.build.detail and f"compile: {trial.build.detail}"
    return Record(
        problem=problem.to_record(),
        pipeline=pipeline,
        knobs=trial.knobs,
        status=status,
        time_us=list(measurement.time_us) if measurement else [],
        baseline_us=list(measurement.baseline_us) if measurement else [],
        ranker=ranker,
        position=trial.position,
        detail=detail,
        busy_cores=[round(b, 3) for b in measurement.busy_cores] if measurement else [],
        worker_s=round(measurement.worker_s, 4) if measurement else 0.0,
        load_s=round(measurement.load_s, 4) if measurement else 0.0,
        retried_rounds=measurement.retried_rounds if measurement else 0,
        **fields,
    )
