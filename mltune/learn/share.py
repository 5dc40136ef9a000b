"""How much of a learned ranker's first picks the forest gets, beside the heuristic, from held-out quality.

Interleaving the two orders (`mltune.rankers.blend.interleaved_order`) bounds the damage either can do: a candidate
at position p of one order is at most at about p / share of the merged one. The forest's share follows how the two
ranked problems the forest never saw (mean positions within 5 % of the best): the better one gets more of the
picks, but never less than a third or more than two thirds, so that neither is ever more than 3x behind itself.
"""

from __future__ import annotations

from statistics import mean
from typing import Sequence

MIN_SHARE, MAX_SHARE = 1 / 3, 2 / 3


def forest_share(forest_positions: Sequence[float], heuristic_positions: Sequence[float]) -> float:
    """The forest's share of the picks: the heuristic's mean position over both means, within [1/3, 2/3]."""
    if not forest_positions or not heuristic_positions:
        return 0.5
    forest, heuristic = mean(forest_positions), mean(heuristic_positions)
    return min(MAX_SHARE, max(MIN_SHARE, heuristic / (forest + heuristic)))


def fold_shares(fold_of: dict[int, int], forest_positions: dict[int, int],
                heuristic_positions: dict[int, int]) -> dict[int, float]:
    """Per held-out problem, the share set from the problems of the other folds only: cross-validating the
    interleaved ranker must not let a problem's own result choose how it is ranked."""
    shares = {}
    for i, fold in fold_of.items():
        others = [j for j in fold_of if fold_of[j] != fold]
        shares[i] = forest_share([forest_positions[j] for j in others], [heuristic_positions[j] for j in others])
    return shares
