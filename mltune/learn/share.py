"""How much of a learned ranker's first picks the forest gets, beside the heuristic, from held-out quality.

Interleaving the two orders (`mltune.rankers.blend.interleaved_order`) bounds the damage either can do: a candidate
at position p of one order is at most at about p / share of the merged one. The forest's share follows how the two
ranked problems the forest never saw (mean positions within 5 % of the best): the better one gets more of the
picks, the forest never less than a third (its picks come at most 3x later than alone) and the heuristic never less
than a fifth (at most 5x later). The bounds are uneven because on the honest split the forest leads on most archs and
kinds: a cap of two thirds held back the forests that lead by far (docs/evaluation/honest-split.md).
"""

from __future__ import annotations

from statistics import mean
from typing import Sequence

MIN_SHARE, MAX_SHARE = 1 / 3, 4 / 5


def forest_share(
    forest_positions: Sequence[float], heuristic_positions: Sequence[float], max_share: float = MAX_SHARE
) -> float:
    """The forest's share of the picks: the heuristic's mean position over both means, within [1/3, `max_share`]
    (4/5 as shipped; other caps for studies)."""
    if not forest_positions or not heuristic_positions:
        return 0.5
    forest, heuristic = mean(forest_positions), mean(heuristic_positions)
    return min(max_share, max(MIN_SHARE, heuristic / (forest + heuristic)))


def fold_shares(
    fold_of: dict[int, int], forest_positions: dict[int, int], heuristic_positions: dict[int, int]
) -> dict[int, float]:
    """Per held-out problem, the share set from the problems of the other folds only: cross-validating the
    interleaved ranker must not let a problem's own result choose how it is ranked."""
    shares = {}
    for i, fold in fold_of.items():
        others = [j for j in fold_of if fold_of[j] != fold]
        shares[i] = forest_share([forest_positions[j] for j in others], [heuristic_positions[j] for j in others])
    return shares
