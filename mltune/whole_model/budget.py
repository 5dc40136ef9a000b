"""Which problems to tune in a model, and how many candidates each gets.

Identical problems (the same key, wherever they appear) share one tuning: one spec matches
them all, so their shares add up. The problems are ranked by share of the model's time;
`top` keeps the first k, and by default the fewest that cover `DEFAULT_COVERAGE` of the
tunable time, so that a dispatch worth 1 % does not take a budget that a 40 % one needs.

The budget (candidates benchmarked, for the whole model) is split in proportion to share,
with a floor: what tuning can save on a problem is its share times its speedup, so the big
shares deserve most of the candidates; but the best config often sits among the first few
a good ranker proposes, so every selected problem gets at least one compile batch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from mltune.whole_model.profile import DispatchProfile

DEFAULT_COVERAGE = 0.8


@dataclass(frozen=True)
class ProblemShare:
    """A tunable problem, the dispatches that contain it and their summed share of the model's time."""

    key: str
    dispatches: tuple[str, ...]
    share: float


@dataclass(frozen=True)
class Allocation:
    problem: ProblemShare
    budget: int


def problem_shares(profiles: Sequence[DispatchProfile]) -> list[ProblemShare]:
    """Tunable problems ranked by share, each counted once however many dispatches hold it."""
    grouped: dict[str, list[DispatchProfile]] = {}
    for profile in profiles:
        if profile.problem_key is not None:
            grouped.setdefault(profile.problem_key, []).append(profile)
    shares = [
        ProblemShare(key, tuple(p.name for p in group), sum(p.share for p in group)) for key, group in grouped.items()
    ]
    return sorted(shares, key=lambda s: -s.share)


def select(shares: Sequence[ProblemShare], top: int | None, coverage: float = DEFAULT_COVERAGE) -> list[ProblemShare]:
    """The first `top` problems, or the fewest that cover `coverage` of the tunable time."""
    if top is not None:
        return list(shares[:top])
    total = sum(s.share for s in shares)
    chosen, covered = [], 0.0
    for share in shares:
        if chosen and covered >= coverage * total:
            break
        chosen.append(share)
        covered += share.share
    return chosen


def split_budget(chosen: Sequence[ProblemShare], budget: int, floor: int = 8) -> list[Allocation]:
    """Give each problem `min(floor, budget // k)` candidates, then the rest in proportion to share
    (largest remainders). When the budget is smaller than the number of problems, the smallest
    shares get nothing and are dropped."""
    chosen = list(chosen[:budget])
    if not chosen:
        return []
    base = max(1, min(floor, budget // len(chosen)))
    rest = budget - base * len(chosen)
    # exact rationals: a float would round a budget past 2**53 (99999999999999999999 became ...008)
    total = sum(Fraction(c.share) for c in chosen) or Fraction(1)
    exact = [rest * Fraction(c.share) / total for c in chosen]
    extra = [math.floor(e) for e in exact]
    by_remainder = sorted(range(len(chosen)), key=lambda i: -(exact[i] - extra[i]))
    for i in by_remainder[: rest - sum(extra)]:
        extra[i] += 1
    return [Allocation(c, base + e) for c, e in zip(chosen, extra)]
