"""The search's settings: a dispatch's budget, batch and time, the rule a winner must meet, the timing plans of
screening and of the finalists, and the run's deadline."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from mltune.execution.measurement import TimingPlan
from mltune.search.defaults import BATCH_SIZE


def passed(deadline: float | None) -> bool:
    """Whether a deadline (`time.monotonic()`; None: none set) has passed."""
    return deadline is not None and time.monotonic() >= deadline


@dataclass(frozen=True)
class LoopSettings:
    budget: int = 50
    time_budget_s: float | None = None  # per dispatch searched
    deadline: float | None = None  # `time.monotonic()` after which no search starts a candidate (the run's time budget)
    batch_size: int = BATCH_SIZE
    max_tries_per_benchmark: int = 4  # stop when compile failures outnumber benchmarks this much
    finalists: int = 4
    min_speedup: float = 1.03  # a winner's median speedup must reach this, its whole interval must be above 1
    screening: TimingPlan = TimingPlan()
    final: TimingPlan = TimingPlan(rounds=9, round_seconds=0.25, max_rounds=30)


def final_plan(target_kind: str) -> TimingPlan:
    """The finalists' plan (and the final checks'): on a CPU its rounds come from at least 3 timing processes, since
    a data-tiled build's speed depends on the process's memory layout (`docs/measurement-protocol.md`); on a GPU
    from one, where each further process creates a device context and loads the modules again, which lengthened
    the final phases with the same verdicts (`docs/measurement-protocol.md`), and no measurement has shown a need."""
    plan = LoopSettings.final
    return replace(plan, processes=3) if target_kind == "cpu" else plan
