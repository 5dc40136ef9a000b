"""The `Ranker` protocol (public): rankers order candidates; they never compile or benchmark.

The loop calls `start` once per problem, then alternates `ask` (the next indices to
measure) and `tell` (what one measured). Static rankers fix their whole order in `start`
and ignore `tell`; adaptive rankers use it to reorder what is left.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

import numpy as np

from mltune.features.base import FeatureMatrix
from mltune.frontend.problem import Problem
from mltune.spaces.candidate import CandidateSet
from mltune.targets import TargetFacts


@dataclass(frozen=True)
class RankingInput:
    """Everything a ranker may look at for one problem.

    Attributes:
        problem: The problem: op kind (`problem.op_kind`, e.g. "contraction"), sizes, element types; `problem.key`
            names it in records.
        target: The target's facts (`target.arch`, `target.kind`: "cpu", "rocm" or "cuda", cores, vector width ...).
        candidates: The candidates, indexed from 0 to `len(candidates) - 1`: `candidates.knobs(i)` is candidate i's
            knobs as a dict, `candidates.values` all of them (one row per candidate, columns `candidates.names`).
            They may span several pipelines: a knob then names each candidate's.
    """

    problem: Problem
    target: TargetFacts
    candidates: CandidateSet

    @cached_property
    def features(self) -> FeatureMatrix:
        """Every candidate's features (`features.values`, one row per candidate in index order, columns
        `features.names`), as mltune's own models see them; computed once, on first use.

        Raises:
            UserError: mltune has no feature extractor for this op kind on this target.
        """
        from mltune.features import extractor_for  # the extractors import every space's modules

        return extractor_for(self.problem, self.target)(self.problem, self.target, self.candidates)


class Ranker(Protocol):
    """What orders one problem's candidates (a plugin's ranker too: `docs/ranker-plugins.md`).

    mltune makes one ranker per run (`mltune.rankers.make_ranker`) and gives each problem a shallow copy
    (`copy.copy`) before `start`: `start` must assign every per-problem attribute anew, never mutate one made in
    `__init__`; what is loaded once (a model) stays shared by the copies.

    Attributes:
        name: Written into every record the ranker's picks produce.
    """

    name: str

    def start(self, ranking_input: RankingInput) -> None:
        """Begin a problem: forget any earlier one."""
        ...

    def ask(self, n: int) -> list[int]:
        """Up to `n` indices of candidates to measure next, best first; an empty list when nothing is left."""
        ...

    def tell(self, index: int, ratio: float) -> None:
        """What candidate `index` measured: its time / IREE's default time (< 1 is faster); `inf` when it failed
        to compile or run."""
        ...


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
        picked = self._order[self._next : self._next + n]
        self._next += len(picked)
        return [int(i) for i in picked]

    def tell(self, index: int, ratio: float) -> None:
        """Static rankers learn nothing during a run."""


def for_one_problem(ranker: Ranker) -> Ranker:
    """A ranker of its own for one problem, when several problems are searched at once: `start` replaces all of
    a ranker's per-problem state, so a shallow copy suffices, and what it loaded once (models) stays shared."""
    return copy.copy(ranker)
