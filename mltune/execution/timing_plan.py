"""How hard a candidate is measured (`TimingPlan`): rounds, their length and calls, when to stop early, and over how
many timing processes; kept apart from the runner that follows it, so that settings can name a plan without loading
the runtime."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from mltune.execution.verdict import Looks

if TYPE_CHECKING:
    from mltune.execution.runner import Measurement


@dataclass(frozen=True)
class TimingPlan:
    """How hard to measure: rounds per candidate and the length of one round.

    With `max_rounds` above `rounds`, measuring is sequential: after `rounds` rounds, more are added
    until the confidence interval of the speedup lies on one side of 1, or `max_rounds` is reached; the interval
    is read only at the planned looks (`verdict.Looks`), each at the level that keeps the whole plan's.

    With `processes` above 1, each timing process measures `rounds / processes` rounds and the rounds of all are
    pooled: at least `processes` of them, one after the other, then (with `max_rounds`) one more at a time until the
    pooled interval lies on one side of 1. Rounds in one process share its memory layout, so a build whose speed
    depends on it (a data-tiled one read 0.85x to 1.03x of IREE's default in eight processes, each interval a few
    percent wide: `benchmarks/timing/timing_processes.py`) gets an interval that says so.

    A round holds at least `min_calls` (baseline, candidate) pairs, except where that many pairs would last over
    `long_round_seconds` (a whole model's call of more than 0.1 s): then `long_call_pairs`, one A B B A turn. On GPT-2,
    whose call takes 0.78 s on 2 cores, 30 rounds of 2 pairs gave the speedup and interval width of 30 rounds of 5
    pairs (1.827x and 0.022 against 1.822x and 0.023) in 40 % of the time (`benchmarks/timing/pairs_per_round.py`)."""

    rounds: int = 3
    round_seconds: float = 0.12
    min_calls: int = 5
    max_calls: int = 400
    long_call_pairs: int = 2
    long_round_seconds: float = 1.0
    slow_factor: float = 2.0  # stop after the first round when a candidate is this much slower
    timeout_factor: float = 10.0
    max_rounds: int = 0
    processes: int = 1

    def share(self) -> TimingPlan:
        """One process's rounds when they are shared out over `processes` (a fixed number: the pooled rounds
        decide whether more are needed)."""
        return replace(self, rounds=-(-self.rounds // self.processes), max_rounds=0, processes=1)

    @property
    def looks(self) -> Looks:
        return Looks.of(self.rounds, self.max_rounds)

    def settled(self, measurement: Measurement, processes: int) -> bool:
        """Enough rounds, pooled from `processes` processes: failed, far slower, at the cap, or decided at a
        look passed by the last process's rounds."""
        if measurement.status != "ok" or measurement.ratio > self.slow_factor:
            return True
        if processes < self.processes:
            return False
        rounds = len(measurement.time_us)
        return self.looks.settled(measurement.round_ratios, rounds - self.share().rounds)

    @property
    def most_rounds(self) -> int:
        return max(self.rounds, self.max_rounds)
