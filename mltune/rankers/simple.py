"""The reference orders every other ranker is measured against."""

from __future__ import annotations

import numpy as np

from mltune.rankers.base import RankingInput, StaticRanker


class SolverOrder(StaticRanker):
    """The order the space enumerates in: knob domains lexicographically (`--ranker none`)."""

    name = "none"

    def order(self, ranking_input: RankingInput) -> np.ndarray:
        return np.arange(len(ranking_input.candidates))


class Shuffle(StaticRanker):
    """A seeded uniform random permutation: the baseline a ranker has to beat."""

    name = "shuffle"

    def order(self, ranking_input: RankingInput) -> np.ndarray:
        return np.random.default_rng(self.seed).permutation(len(ranking_input.candidates))
