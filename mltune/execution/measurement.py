"""A candidate's measurement: how hard it is measured (`TimingPlan`: rounds, their length and calls, when to stop
early, over how many timing processes) and what it holds (`Measurement`: the rounds' times beside the baseline's);
kept apart from the runner that takes them, so that settings and records can name them without loading the runtime."""

from __future__ import annotations

from dataclasses import dataclass, replace
from statistics import median

from mltune.execution.verdict import Looks, SpeedupEstimate


@dataclass(frozen=True)
class Measurement:
    """One candidate's timing: per-round times of the candidate and of the baseline interleaved with it
    (`timing_worker` says what a round's time is)."""

    index: int
    status: str  # ok | run_error | timeout
    time_us: tuple[float, ...] = ()
    baseline_us: tuple[float, ...] = ()
    detail: str = ""
    busy_cores: tuple[float, ...] = ()  # per round, cores that other processes kept busy meanwhile
    looks: int = 1  # how many times its plan could read the interval and stop (`verdict.Looks`)
    worker_s: float = 0.0  # the timing worker's time on it: module load, a first call, every round (retried too)
    load_s: float = 0.0  # of which the module's load and first call
    retried_rounds: int = 0  # rounds measured again because other processes' load disturbed them

    @property
    def load(self) -> float:
        """Median over rounds of the cores other processes kept busy while this was measured (nan: unknown)."""
        known = [b for b in self.busy_cores if b == b]
        return median(known) if known else float("nan")

    @property
    def round_ratios(self) -> list[float]:
        """Candidate time / baseline time of each round (< 1 is faster)."""
        return [c / b for c, b in zip(self.time_us, self.baseline_us)] if self.status == "ok" else []

    @property
    def ratio(self) -> float:
        """Median over rounds of candidate time / baseline time in the same round (< 1 is faster)."""
        ratios = self.round_ratios
        return median(ratios) if ratios else float("inf")

    @property
    def estimate(self) -> SpeedupEstimate:
        """The speedup over the baseline with its confidence interval over rounds, valid over its plan's looks."""
        return SpeedupEstimate.from_ratios(self.round_ratios, looks=self.looks)

    def wins(self, min_speedup: float) -> bool:
        """Faster than the baseline beyond the noise: by `min_speedup` at the median, and the whole
        confidence interval of the speedup above 1."""
        return self.status == "ok" and self.estimate.faster(min_speedup)


@dataclass(frozen=True)
class TimingPlan:
    """How hard to measure: rounds per candidate and the length of one round.

    With `max_rounds` above `rounds`, measuring is sequential: after `rounds` rounds, more are added
    until the confidence interval of the speedup lies on one side of 1, or `max_rounds` is reached; the interval
    is read only at the planned looks (`verdict.Looks`), each at the level that keeps the whole plan's.

    With `processes` above 1, each timing process measures `rounds / processes` rounds and the rounds of all are
    pooled: at least `processes` of them, one after the other, then (with `max_rounds`) one more at a time until the
    pooled interval lies on one side of 1. Rounds in one process share its memory layout, so a build whose speed
    depends on it (a data-tiled one's narrow intervals disagreed from process to process:
    `benchmarks/timing/timing_processes.py`, `docs/measurement-protocol.md`) gets an interval that says so.

    A round holds at least `min_calls` (baseline, candidate) pairs, except where that many pairs would last over
    `long_round_seconds` (a whole model's call of more than 0.1 s): then `long_call_pairs`, one A B B A turn. On
    whole models, rounds of that one turn gave the speedup and interval width of rounds of 5 pairs in a fraction of
    the time (`benchmarks/timing/pairs_per_round.py`, `docs/measurement-protocol.md`)."""

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
