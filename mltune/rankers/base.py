"""The `Ranker` protocol: rankers order candidates; they never compile or benchmark.

The loop calls `start` once per problem, then alternates `ask` (the next indices to
measure) and `tell` (what one measured). Static rankers fix their whole order in `start`
and ignore `tell`; adaptive rankers use it to reorder what is left.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from mltune.problem import Problem
from mltune.spaces.candidate import CandidateSet
from mltune.targets import TargetFacts


@dataclass(frozen=True)
class RankingInput:
    """Everything a ranker may look at: the problem, the target's facts and the candidates (which may span
    several pipelines: a knob then names each candidate's)."""

    problem: Problem
    target: TargetFacts
    candidates: CandidateSet


class Ranker(Protocol):
    name: str

    def start(self, ranking_input: RankingInput) -> None: ...

    def ask(self, n: int) -> list[int]: ...

    def tell(self, index: int, ratio: float) -> None: ...


class StaticRanker:
    """A ranker whose whole order is known at `start`: subclasses implement `order`."""

    name = "static"

    def __init__(self, seed: int = 0):
        self.seed = seed
        self._order: np.ndarray = np.empty(0, dtype=np.int64)
        self._next = 0

    def order(self, ranking_input: RankingInput) -> np.ndarray:
        raise NotImplementedError

    def start(self, ranking_input: RankingInput) -> None:
        self._order = np.asarray(self.order(ranking_input), dtype=np.int64)
        self._next = 0

    def ask(self, n: int) -> list[int]:
        picked = self._order[self._next:self._next + n]
        self._next += len(picked)
        return [int(i) for i in picked]

    def tell(self, index: int, ratio: float) -> None:
        """Static rankers learn nothing during a run."""


def for_one_problem(ranker: Ranker) -> Ranker:
    """A ranker of its own for one problem, when several problems are searched at once: `start` replaces all of
    a ranker's per-problem state, so a shallow copy suffices, and what it loaded once (models) stays shared."""
    return copy.copy(ranker)
