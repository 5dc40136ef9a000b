"""Rankers, chosen by name on the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from mltune.errors import UserError
from mltune.rankers.base import Ranker, RankingInput
from mltune.rankers.forest import RandomForest
from mltune.rankers.heuristic import Heuristic
from mltune.rankers.refit import RefittedForest
from mltune.rankers.simple import Shuffle, ShuffleLoweringsFirst, SolverOrder
from mltune.targets import TargetFacts


def _tpe(seed: int = 0) -> Ranker:
    from mltune.rankers.tpe import Tpe  # Optuna takes ~0.13 s to import: only when TPE ranks, not at CLI start-up

    return Tpe(seed)


RANKERS: dict[str, Callable[[int], Ranker]] = {
    "none": SolverOrder,
    "shuffle": Shuffle,
    "shuffle-lowerings": ShuffleLoweringsFirst,
    "heuristic": Heuristic,
    "random-forest": RandomForest,
    "random-forest-refit": RefittedForest,
    "tpe": _tpe,
}


LEARNED: dict[str, type[RandomForest] | type[RefittedForest]] = {"random-forest": RandomForest,
                                                                  "random-forest-refit": RefittedForest}


def make_ranker(name: str, seed: int = 0, target: TargetFacts | None = None, model_dir: Path | None = None) -> Ranker:
    """The ranker called `name`; a learned one reads its models from `model_dir` alone when given, else from the
    search path of `mltune.paths`. Given the target, it checks them now, so that an arch with no model is reported
    before anything is compiled or recorded."""
    if name not in RANKERS:
        raise UserError(f"unknown ranker {name!r}; choose one of: {', '.join(RANKERS)}")
    if name not in LEARNED:
        return RANKERS[name](seed)
    learned = LEARNED[name](seed, model_dir=model_dir)
    if target is not None:
        learned.check_for(target)
    return learned


__all__ = ["RANKERS", "Ranker", "RankingInput", "make_ranker"]
