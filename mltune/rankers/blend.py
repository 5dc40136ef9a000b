"""Two orders of the same candidates merged by the sum of their positions (a Borda count).

A forest trained on other CPUs knows which candidates are bad in general; the heuristic reads the target's own
registers and vector width. Where the two agree a candidate comes early; where one alone likes it, it waits.
"""

from __future__ import annotations

import numpy as np


def positions_of(order: np.ndarray) -> np.ndarray:
    """Inverse permutation: the 0-based position of each candidate in `order`."""
    positions = np.empty(len(order), dtype=np.int64)
    positions[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
    return positions


def blended_order(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Candidates by the sum of their positions in both orders; ties go to `first`'s order."""
    first_positions = positions_of(first)
    return np.lexsort((first_positions, first_positions + positions_of(second)))
