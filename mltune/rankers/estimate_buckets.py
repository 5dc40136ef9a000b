"""Time estimates in buckets for the handwritten GPU rankings: first-order estimates within ~19 % of each other tie,
so the rankings' later keys decide between them."""

from __future__ import annotations

import numpy as np

BUCKETS_PER_OCTAVE = 4


def estimate_buckets(cycles: np.ndarray) -> np.ndarray:
    """Each estimate's quarter-octave bucket (a lexsort key: lower is faster)."""
    return np.round(BUCKETS_PER_OCTAVE * np.log2(cycles))
