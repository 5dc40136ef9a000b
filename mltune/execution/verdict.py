"""How sure a measured speedup is: a distribution-free confidence interval over measurement rounds.

Each round of a measurement gives one candidate / baseline time ratio, from calls interleaved in one
process, so both sides of a round saw the same machine. Under load the rounds' ratios are far from
normal (a burst gives a long tail on either side), so the interval is the sign-test interval of the
median: with n rounds, the k-th smallest and the k-th largest ratio bound the median with confidence
1 - 2 P(Bin(n, 1/2) < k), whatever the ratios' distribution. It needs no random resampling (the same
rounds always give the same verdict) and only assumes that rounds are independent draws.

Measuring can be sequential: rounds are added until the interval lies on one side of 1. Reading a 95 %
interval after every round would be optional stopping: an A/A pair (no difference) would be called faster far more
often than the 2.5 % the interval promises (`docs/measurement-protocol.md`). So a sequential
measurement looks only at a few planned round counts (`Looks`: the first, then each a third more, and the
cap) and spends the error over them by the Bonferroni inequality (each look's interval at level
1 - (1 - confidence) / looks): whichever look it stops at, its interval holds with the stated confidence.
This is the simplest alpha-spending plan of group-sequential testing (Jennison & Turnbull, "Group
Sequential Methods with Applications to Clinical Trials", 2000, section 2.5; Bonferroni bound of the
repeated-significance test); `tests/test_verdict.py` checks it on a synthetic A/A simulation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import median
from typing import Sequence

CONFIDENCE = 0.95
LOOK_GROWTH = 4 / 3  # a sequential measurement's next look is a third more rounds than its last


def _tail(n: int, k: int) -> float:
    """P(Bin(n, 1/2) < k)."""
    return sum(math.comb(n, i) for i in range(k)) / 2**n


def median_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """(low, high, achieved confidence) for the median of `values`: the widest order-statistic pair whose
    coverage reaches `confidence`; with too few values for that, the smallest and largest (and their coverage)."""
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return float("nan"), float("nan"), 0.0
    k = 1
    while k + 1 <= n // 2 and 1 - 2 * _tail(n, k + 1) >= confidence:
        k += 1
    return ordered[k - 1], ordered[n - k], 1 - 2 * _tail(n, k)


@dataclass(frozen=True)
class SpeedupEstimate:
    """A candidate's speedup over its baseline (baseline time / candidate time, > 1 is faster) with the
    interval of `median_interval`, from the ratios of `rounds` rounds."""

    speedup: float
    low: float
    high: float
    confidence: float  # over all the looks of the measurement
    rounds: int

    @staticmethod
    def from_ratios(ratios: Sequence[float], confidence: float = CONFIDENCE, looks: int = 1) -> "SpeedupEstimate":
        """From per-round candidate / baseline ratios (a ratio of 0 or inf gives no estimate), measured with up to
        `looks` looks at the interval (each look then spends 1 / looks of the error)."""
        usable = [r for r in ratios if 0.0 < r < float("inf")]
        if not usable:
            return SpeedupEstimate(float("nan"), float("nan"), float("nan"), 0.0, 0)
        low_ratio, high_ratio, achieved = median_interval(usable, 1 - (1 - confidence) / looks)
        overall = max(0.0, 1 - looks * (1 - achieved))
        return SpeedupEstimate(1.0 / median(usable), 1.0 / high_ratio, 1.0 / low_ratio, overall, len(usable))

    def faster(self, min_speedup: float = 1.0) -> bool:
        """Faster beyond the noise: the median speedup reaches `min_speedup` and the whole interval is above 1."""
        return self.rounds > 0 and self.speedup >= min_speedup and self.low >= 1.0

    def slower(self) -> bool:
        """Slower beyond the noise: the whole interval is below 1."""
        return self.rounds > 0 and self.high < 1.0

    def decided(self) -> bool:
        """The interval lies on one side of 1: more rounds would most likely not change the verdict."""
        return self.rounds > 0 and (self.low > 1.0 or self.high < 1.0)

    def describe(self) -> str:
        if self.rounds == 0:
            return "no estimate"
        return (
            f"{self.speedup:.2f}x ({100 * self.confidence:.0f} % interval {self.low:.2f}-{self.high:.2f}x, "
            f"{self.rounds} rounds)"
        )


@dataclass(frozen=True)
class Looks:
    """The round counts at which a sequential measurement reads its interval and may stop."""

    schedule: tuple[int, ...]

    @staticmethod
    def of(first: int, last: int) -> "Looks":
        """`first` rounds, then each look a third more rounds, up to `last` (one look when `last` <= `first`)."""
        looks = [first]
        while last > looks[-1] and (following := math.ceil(looks[-1] * LOOK_GROWTH)) < last:
            looks.append(following)
        return Looks((*looks, last) if last > first else (first,))

    def estimate(self, ratios: Sequence[float]) -> SpeedupEstimate:
        return SpeedupEstimate.from_ratios(ratios, looks=len(self.schedule))

    def settled(self, ratios: Sequence[float], before: int) -> bool:
        """Whether to stop with `ratios`, `before` of which were there at the previous check: at the last look,
        or at a look passed since then whose interval lies on one side of 1."""
        done = len(ratios)
        if done >= self.schedule[-1]:
            return True
        due = any(before < look <= done for look in self.schedule)
        return due and self.estimate(ratios).decided()
