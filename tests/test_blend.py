"""The Borda blend of two orders (`mltune.rankers.blend`)."""

import numpy as np

from mltune.rankers.blend import blended_order, positions_of


def test_positions_invert_an_order():
    order = np.array([2, 0, 3, 1])
    assert positions_of(order).tolist() == [1, 3, 0, 2]


def test_agreement_comes_first_and_ties_follow_the_first_order():
    first = np.array([0, 1, 2, 3])
    second = np.array([1, 0, 3, 2])
    # positions summed: 0 -> 0+1, 1 -> 1+0, 2 -> 2+3, 3 -> 3+2; ties kept in `first`'s order
    assert blended_order(first, second).tolist() == [0, 1, 2, 3]
    assert blended_order(first, np.array([3, 2, 1, 0])).tolist() == [0, 1, 2, 3]  # all tie: the first order
    assert blended_order(np.array([3, 0, 1, 2]), np.array([3, 1, 0, 2])).tolist()[0] == 3
