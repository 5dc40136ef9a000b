"""Offline evaluation maths (`docs/learned-ranking.md`): how soon an order reaches a near-optimal candidate.

Pure functions over one problem's measured times (any unit, e.g. time / baseline ratios) and
an order of those candidates. A candidate is near-optimal when its time is within (1 + tol)
of the best; a ranker's score is the 1-based position of the first near-optimal candidate.
A uniform shuffle of n candidates of which k are near-optimal needs (n + 1) / (k + 1) on
average (negative hypergeometric; Ahlgren, arXiv 1404.1161).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import mean, median
from typing import Sequence

import numpy as np

TOLERANCES = (0.02, 0.05, 0.10)
TOP_K = (5, 10, 20)


def near_optimal(times: np.ndarray, tol: float) -> np.ndarray:
    return times <= (1.0 + tol) * times.min()


def first_near_optimal(times: np.ndarray, order: Sequence[int], tol: float) -> int:
    """1-based position in `order` of the first candidate within `tol` of the best time."""
    hits = np.flatnonzero(near_optimal(times, tol)[np.asarray(order, dtype=np.int64)])
    if hits.size == 0:
        raise ValueError("the order does not contain a near-optimal candidate")
    return int(hits[0]) + 1


def shuffle_expectation(n: int, k: int) -> float:
    """Expected position of the first of k good candidates among n in a uniform random order."""
    return (n + 1) / (k + 1)


def shuffle_solved_probability(n: int, k: int, t: int) -> float:
    """P(a uniform shuffle reaches one of k good candidates among n within t picks) = 1 - C(n-k, t) / C(n, t)."""
    if t >= n - k + 1:
        return 1.0
    return 1.0 - math.comb(n - k, t) / math.comb(n, t)


def top_k_score(times: np.ndarray, order: Sequence[int], k: int) -> float:
    """Best time among the first k of the order / best time overall (1.0 = found the best)."""
    return float(times[np.asarray(order[:k], dtype=np.int64)].min() / times.min())


@dataclass(frozen=True)
class ProblemScore:
    """One ranker on one problem: positions of the first near-optimal candidate and top-k scores."""

    problem: str
    candidates: int
    positions: dict[float, int]  # per tolerance
    shuffle_expected: dict[float, float]  # per tolerance
    near_optimal: dict[float, int]  # per tolerance: how many candidates are within it
    top_k: dict[int, float]


def score_order(problem: str, times: np.ndarray, order: Sequence[int]) -> ProblemScore:
    n = len(times)
    good = {tol: int(near_optimal(times, tol).sum()) for tol in TOLERANCES}
    return ProblemScore(
        problem=problem,
        candidates=n,
        positions={tol: first_near_optimal(times, order, tol) for tol in TOLERANCES},
        shuffle_expected={tol: shuffle_expectation(n, good[tol]) for tol in TOLERANCES},
        near_optimal=good,
        top_k={k: top_k_score(times, order, k) for k in TOP_K},
    )


@dataclass(frozen=True)
class Summary:
    """One ranker over many problems, per tolerance: median and mean positions, the shuffle
    expectation's mean, their ratio, and the geometric mean of per-problem (shuffle expectation / position)."""

    median_position: dict[float, float]
    mean_position: dict[float, float]
    mean_shuffle_expected: dict[float, float]
    shuffle_ratio: dict[float, float]  # mean shuffle expectation / mean position: > 1 beats shuffle
    geomean_gain: dict[float, float]
    mean_top_k: dict[int, float]


def summarise(scores: Sequence[ProblemScore]) -> Summary:
    def per_tol(fn):
        return {tol: fn(tol) for tol in TOLERANCES}

    return Summary(
        median_position=per_tol(lambda tol: float(median(s.positions[tol] for s in scores))),
        mean_position=per_tol(lambda tol: mean(s.positions[tol] for s in scores)),
        mean_shuffle_expected=per_tol(lambda tol: mean(s.shuffle_expected[tol] for s in scores)),
        shuffle_ratio=per_tol(
            lambda tol: mean(s.shuffle_expected[tol] for s in scores) / mean(s.positions[tol] for s in scores)
        ),
        geomean_gain=per_tol(
            lambda tol: math.exp(mean(math.log(s.shuffle_expected[tol] / s.positions[tol]) for s in scores))
        ),
        mean_top_k={k: mean(s.top_k[k] for s in scores) for k in TOP_K},
    )


def solved_fraction(positions: Sequence[int], budgets: Sequence[int]) -> np.ndarray:
    """Fraction of problems whose first near-optimal candidate came within each budget."""
    found = np.asarray(positions)
    return np.array([(found <= b).mean() for b in budgets])


def shuffle_solved_fraction(scores: Sequence[ProblemScore], tol: float, budgets: Sequence[int]) -> np.ndarray:
    """The same curve, expected for a uniform shuffle (exact, averaged over the problems)."""
    return np.array(
        [mean(shuffle_solved_probability(s.candidates, s.near_optimal[tol], b) for s in scores) for b in budgets]
    )
