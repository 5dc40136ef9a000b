"""Evaluation maths on tiny hand-made cases with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mltune.learn.scoring import (
    first_near_optimal,
    score_order,
    shuffle_expectation,
    shuffle_solved_fraction,
    shuffle_solved_probability,
    solved_fraction,
    summarise,
    top_k_score,
)

# synthetic: five candidates' times; the best is index 1 (1.0); index 2 is within 5 % (1.04), not within 2 %
TIMES = np.array([3.0, 1.0, 1.04, 2.0, 1.5])
ORDER = [0, 3, 2, 1, 4]


def test_first_near_optimal_position():
    assert first_near_optimal(TIMES, ORDER, 0.05) == 3
    assert first_near_optimal(TIMES, ORDER, 0.02) == 4
    assert first_near_optimal(TIMES, ORDER, 1.0) == 2  # 2.0 <= 2 * 1.0
    with pytest.raises(ValueError):
        first_near_optimal(TIMES, [0, 3], 0.05)


def test_top_k_score():
    assert top_k_score(TIMES, ORDER, 1) == 3.0
    assert top_k_score(TIMES, ORDER, 2) == 2.0
    assert top_k_score(TIMES, ORDER, 3) == pytest.approx(1.04)
    assert top_k_score(TIMES, ORDER, 20) == 1.0


@pytest.mark.parametrize("n,k", [(5, 1), (5, 2), (50, 3), (1265, 10), (7, 7)])
def test_shuffle_expectation_is_the_sum_of_survival_probabilities(n, k):
    # E[T] = sum over t >= 0 of P(T > t), with P(T > t) = 1 - P(solved within t)
    survival = sum(1 - shuffle_solved_probability(n, k, t) for t in range(0, n + 1))
    assert survival == pytest.approx(shuffle_expectation(n, k))
    assert shuffle_solved_probability(n, k, n - k + 1) == 1.0


def test_shuffle_by_enumeration():
    # every permutation of 4 candidates with 2 good ones: first-good positions 1,1,1,1,2,2,2,2,... mean (4+1)/(2+1)
    from itertools import permutations

    firsts = [next(i for i, c in enumerate(p, 1) if c < 2) for p in permutations(range(4))]
    assert np.mean(firsts) == pytest.approx(shuffle_expectation(4, 2)) == pytest.approx(5 / 3)
    assert np.mean([f <= 1 for f in firsts]) == pytest.approx(shuffle_solved_probability(4, 2, 1))


def test_score_and_summary():
    a = score_order("a", TIMES, ORDER)
    assert a.positions == {0.02: 4, 0.05: 3, 0.10: 3}
    assert a.near_optimal == {0.02: 1, 0.05: 2, 0.10: 2}
    assert a.shuffle_expected[0.05] == pytest.approx(6 / 3)
    b = score_order("b", TIMES, [1, 0, 2, 3, 4])
    s = summarise([a, b])
    assert s.median_position[0.05] == 2.0 and s.mean_position[0.05] == 2.0
    assert s.shuffle_ratio[0.05] == pytest.approx(2.0 / 2.0)
    assert s.geomean_gain[0.05] == pytest.approx(math.sqrt((2 / 3) * (2 / 1)))
    assert s.mean_top_k[5] == 1.0
    np.testing.assert_allclose(solved_fraction([a.positions[0.05], b.positions[0.05]], [1, 2, 3]), [0.5, 0.5, 1.0])
    curve = shuffle_solved_fraction([a, b], 0.05, [1, 4, 5])
    np.testing.assert_allclose(curve, [0.4, 1.0, 1.0])
