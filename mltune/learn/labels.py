"""What a forest learns to predict for each measured candidate of a problem.

Only the order within a problem matters to a ranker, yet a raw log(time / baseline) also carries how good IREE's
default happened to be on that problem and that CPU: a model pooled over CPUs then spends its splits on that offset.
Labels relative to the problem's own best, or its ranks, keep only what ranks.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from scipy.stats import rankdata

Label = Callable[[np.ndarray], np.ndarray]


def log_ratio(ratios: np.ndarray) -> np.ndarray:
    """log(time / IREE default's time): what the forest predicts when the loop compares against the default."""
    return np.log(ratios)


def log_to_best(ratios: np.ndarray) -> np.ndarray:
    """log(time / the problem's best measured time): 0 for the best, the same scale on every CPU."""
    return np.log(ratios / ratios.min())


def rank_fraction(ratios: np.ndarray) -> np.ndarray:
    """The candidate's rank among the problem's measured ones, 0 (best) to 1 (worst)."""
    return (rankdata(ratios) - 1) / max(1, len(ratios) - 1)


LABELS: dict[str, Label] = {"log-ratio": log_ratio, "log-to-best": log_to_best, "rank": rank_fraction}
