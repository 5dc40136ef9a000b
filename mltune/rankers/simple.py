"""The reference orders every other ranker is measured against."""

from __future__ import annotations

import numpy as np

from mltune.rankers.base import RankingInput, StaticRanker


class SolverOrder(StaticRanker):
    """The order the space enumerates in: knob domains lexicographically (`--ranker none`)."""

    name = "none"
    reference = True  # measured as it is (`mltune.rankers.near_incumbent.near_default_share`)

    def order(self, ranking_input: RankingInput) -> np.ndarray:
        return np.arange(len(ranking_input.candidates))


class Shuffle(StaticRanker):
    """A seeded uniform random permutation: the baseline a ranker has to beat."""

    name = "shuffle"
    reference = True

    def order(self, ranking_input: RankingInput) -> np.ndarray:
        return np.random.default_rng(self.seed).permutation(len(ranking_input.candidates))


class ShuffleLoweringsFirst(StaticRanker):
    """A seeded random order that measures every candidate of a non-default lowering first (the data-tiled ones of
    `mltune.spaces.cpu_data_tiling`), then the rest at random: for collecting datasets. They are at most a few dozen
    among thousands of candidates, so a plain shuffle would almost never draw one and a model could not learn
    them."""

    name = "shuffle-lowerings"
    reference = True

    def order(self, ranking_input: RankingInput) -> np.ndarray:
        candidates = ranking_input.candidates
        permutation = np.random.default_rng(self.seed).permutation(len(candidates))
        if "lowering" not in candidates.names:
            return permutation
        other_lowering = candidates.column("lowering")[permutation] != 0
        return np.concatenate([permutation[other_lowering], permutation[~other_lowering]])
