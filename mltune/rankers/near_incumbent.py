"""Candidates near the incumbent, IREE's default config at first, taken in turn with another ranker's picks.

IREE's default is measured for every problem (it is the baseline), and it is sometimes close to the best: it has
beaten every candidate the heuristic and the forest tried, while its neighbours, one halving or doubling of one tile
away, were never tried (`docs/evaluation/honest-split.md`). So a share of the picks goes to the untried candidates
nearest the incumbent, by L1 distance in log2 tile sizes (`mltune.spaces.tile_coordinates`): IREE's default until a
measured candidate beats it, then the fastest so far. The rest are the inner ranker's, in its order: a candidate at
position p of that order comes by p / (1 - share).
"""

from __future__ import annotations

import math
from functools import partial
from typing import Callable

import numpy as np

from mltune.rankers import NEAR_DEFAULT_SHARE
from mltune.rankers.base import Ranker, RankingInput
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.tile_coordinates import TileCoordinates, tile_coordinates


def near_default_share(ranker: Ranker, asked: float | None) -> float:
    """The share of picks near the incumbent: `asked` (`--near-default`), else `NEAR_DEFAULT_SHARE`, but none for a
    reference order (`reference = True`: none, shuffle, shuffle-lowerings), measured as it is: the baseline other
    rankers are compared against, and the collectors' unbiased sample."""
    if asked is not None:
        return asked
    return 0.0 if getattr(ranker, "reference", False) else NEAR_DEFAULT_SHARE


class NearIncumbent:
    """`inner`'s order with every pick of the `share` taken from the untried candidates nearest the incumbent
    (ties in seeded random order). Where a space has no coordinates, or IREE's default config lies outside it,
    `inner` ranks alone and names the records."""

    def __init__(
        self, inner: Ranker, coordinates: Callable[[CandidateSet], TileCoordinates | None], share: float, seed: int = 0
    ):
        self.inner = inner
        self.coordinates = coordinates
        self.share = share
        self.seed = seed
        self._points = np.empty((0, 0))
        self._centre: np.ndarray | None = None
        self._incumbent_ratio = 1.0
        self._ties = np.empty(0)
        self._given: set[int] = set()
        self._asked = {"inner": 0, "near": 0}
        self._distance: np.ndarray | None = None  # from the centre, untried ones only (inf: tried or no place)

    @property
    def name(self) -> str:
        """The inner ranker's name, marked when some picks are the incumbent's neighbours: such records must not
        count as the inner ranker's own iterations-to-near-optimal."""
        return f"{self.inner.name}+near-default" if self._centre is not None else self.inner.name

    def start(self, ranking_input: RankingInput) -> None:
        self.inner.start(ranking_input)
        found = self.coordinates(ranking_input.candidates) if self.share > 0 else None
        self._centre = None if found is None else found.default
        self._points = found.candidates if found is not None else np.empty((0, 0))
        self._incumbent_ratio = 1.0  # IREE's default, measured as the baseline
        self._ties = np.random.default_rng(self.seed).random(len(ranking_input.candidates))
        self._given = set()
        self._asked = {"inner": 0, "near": 0}
        self._distance = None

    def _distances(self) -> np.ndarray:
        """Each untried candidate's distance from the centre, computed once per centre (a space holds thousands of
        candidates, and `mltune evaluate` asks for every one)."""
        assert self._centre is not None
        if self._distance is None:
            distance = np.abs(self._points - self._centre).sum(axis=1)
            distance[np.isnan(distance) | (distance == 0)] = np.inf  # the incumbent's own tiling is measured already
            distance[list(self._given)] = np.inf
            self._distance = distance
        return self._distance

    def _give(self, index: int) -> None:
        self._given.add(index)
        if self._distance is not None:
            self._distance[index] = np.inf

    def _nearest_untried(self) -> int | None:
        distance = self._distances()
        nearest = distance.min(initial=np.inf)
        if not np.isfinite(nearest):
            return None
        tied = np.flatnonzero(distance == nearest)
        return int(tied[np.argmin(self._ties[tied])])

    def _inner_pick(self) -> int | None:
        while batch := self.inner.ask(1):
            if batch[0] not in self._given:
                return batch[0]
        return None

    def ask(self, n: int) -> list[int]:
        picked: list[int] = []
        while len(picked) < n:
            sources = ["inner", "near"] if self._centre is not None else ["inner"]
            if len(sources) == 2 and self._asked["inner"] >= (1 - self.share) * (sum(self._asked.values()) + 1):
                sources.reverse()  # the inner ranker has had its share so far: the incumbent's turn
            for source in sources:  # when one source has run dry, the other fills the rest
                index = self._inner_pick() if source == "inner" else self._nearest_untried()
                if index is not None:
                    break
            if index is None:
                break
            self._asked[source] += 1
            self._give(index)
            picked.append(index)
        return picked

    def tell(self, index: int, ratio: float) -> None:
        self.inner.tell(index, ratio)
        self._give(index)  # an interrupted run's trials are told, never asked for
        if (
            self._centre is not None
            and ratio < self._incumbent_ratio
            and math.isfinite(ratio)
            and not np.isnan(self._points[index]).any()
        ):
            self._incumbent_ratio, self._centre, self._distance = ratio, self._points[index], None


def near_default(inner: Ranker, space: object, default_config: str, share: float, seed: int = 0) -> NearIncumbent:
    """`inner` for one problem of `space` (a configurator), a `share` of its picks near IREE's `default_config` (the
    root op's `lowering_config`) and then near the fastest config measured."""
    return NearIncumbent(inner, partial(tile_coordinates, space, default_config=default_config), share, seed)
