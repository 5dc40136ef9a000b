"""Rankers, chosen by name on the command line."""

from __future__ import annotations

from typing import Callable

from mltune.errors import UserError
from mltune.rankers.base import Ranker, RankingInput
from mltune.rankers.forest import RandomForest
from mltune.rankers.heuristic import Heuristic
from mltune.rankers.simple import Shuffle, SolverOrder
from mltune.rankers.tpe import Tpe

RANKERS: dict[str, Callable[[int], Ranker]] = {
    "none": SolverOrder,
    "shuffle": Shuffle,
    "heuristic": Heuristic,
    "random-forest": RandomForest,
    "tpe": Tpe,
}


def make_ranker(name: str, seed: int = 0) -> Ranker:
    if name not in RANKERS:
        raise UserError(f"unknown ranker {name!r}; choose one of: {', '.join(RANKERS)}")
    return RANKERS[name](seed)


__all__ = ["RANKERS", "Ranker", "RankingInput", "make_ranker"]
