"""Two orders of the same candidates merged: by the sum of their positions (a Borda count), or taken in turn.

A forest trained on other CPUs knows which candidates are bad in general; the heuristic reads the target's own
registers and vector width. Where the two agree a candidate comes early; where one alone likes it, it waits.
Interleaving instead bounds how late either order's early candidates come, whatever the other thinks of them: a
forest that is confidently wrong on a shape unlike its training data costs at most a constant factor over the
heuristic.
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


def interleaved_order(first: np.ndarray, second: np.ndarray, first_share: float) -> np.ndarray:
    """Both orders (of the same candidates, by index) taken in turn, `first_share` of the picks from `first` and
    the rest from `second`, each skipping what the other already took: a candidate at position p of one order comes
    by about p / that order's share of the merged one."""
    orders = (np.asarray(first, dtype=np.int64), np.asarray(second, dtype=np.int64))
    taken = np.zeros(int(orders[0].max()) + 1 if len(orders[0]) else 0, dtype=bool)
    merged = np.empty(len(orders[0]), dtype=np.int64)
    cursors = [0, 0]
    from_first = 0
    for position in range(len(merged)):
        source = 0 if from_first < first_share * (position + 1) else 1
        while taken[orders[source][cursors[source]]]:  # both are permutations: an untaken one lies ahead
            cursors[source] += 1
        merged[position] = orders[source][cursors[source]]
        taken[merged[position]] = True
        from_first += source == 0
    return merged
