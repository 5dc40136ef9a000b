"""The decision rule on synthetic paired samples with known answers (all data here is synthetic)."""

from __future__ import annotations

import math
import random

import pytest

from mltune.execution.measurement import Measurement
from mltune.execution.verdict import Looks, SpeedupEstimate, median_interval


def test_interval_coverage_matches_the_binomial():
    """With 9 rounds the 2nd smallest and 2nd largest bound the median with 1 - 2 * 10/512 confidence."""
    low, high, confidence = median_interval(list(range(9)))
    assert (low, high) == (1, 7)
    assert confidence == pytest.approx(1 - 2 * (1 + 9) / 512)


def test_too_few_rounds_give_the_range_and_say_how_sure_it_is():
    low, high, confidence = median_interval([3.0, 1.0, 2.0])
    assert (low, high) == (1.0, 3.0) and confidence == pytest.approx(0.75)


def _paired_rounds(true_ratio: float, rounds: int, noise: float, seed: int, burst_every: int = 0) -> Measurement:
    """Synthetic rounds: a baseline drifting over time, the candidate `true_ratio` times it, both with
    multiplicative noise; every `burst_every`-th round a burst slows one side by 3x."""
    rng = random.Random(seed)
    base, cand = [], []
    for r in range(rounds):
        drift = 1000.0 * (1 + 0.5 * math.sin(r / 3))
        b = drift * math.exp(rng.gauss(0, noise))
        c = drift * true_ratio * math.exp(rng.gauss(0, noise))
        if burst_every and r % burst_every == burst_every - 1:
            (b, c) = (b * 3, c) if (r // burst_every) % 2 else (b, c * 3)
        base.append(b)
        cand.append(c)
    return Measurement(0, "ok", tuple(cand), tuple(base))


@pytest.mark.parametrize("seed", range(20))
def test_a_clear_win_is_kept_despite_drift_and_bursts(seed):
    measurement = _paired_rounds(0.5, rounds=15, noise=0.05, seed=seed, burst_every=5)
    assert measurement.wins(1.03)
    assert 1.8 < measurement.estimate.speedup < 2.2


def test_no_difference_is_almost_never_called_a_win():
    """A/A (true ratio 1): at a 95 % interval, at most a few of 200 noisy runs may look like a win."""
    wins = sum(_paired_rounds(1.0, rounds=15, noise=0.1, seed=s, burst_every=4).wins(1.0) for s in range(200))
    assert wins <= 10


def test_a_regression_is_never_kept_and_is_called_slower():
    for seed in range(50):
        measurement = _paired_rounds(1.15, rounds=15, noise=0.03, seed=seed)
        assert not measurement.wins(1.0)
        assert measurement.estimate.slower()


def test_a_small_true_gain_below_min_speedup_is_not_kept():
    measurement = _paired_rounds(1 / 1.01, rounds=30, noise=0.002, seed=1)
    assert measurement.estimate.faster(1.0) and not measurement.wins(1.03)


def test_three_rounds_cannot_prove_a_win_at_95_percent_but_say_their_confidence():
    estimate = SpeedupEstimate.from_ratios([0.5, 0.5, 0.5])
    assert estimate.confidence == pytest.approx(0.75)
    assert "75 % interval" in estimate.describe()


def test_failed_measurements_give_no_estimate():
    assert SpeedupEstimate.from_ratios([]).rounds == 0
    assert not Measurement(0, "timeout").wins(1.0)


def _sequential(ratios: list[float], looks: Looks) -> SpeedupEstimate:
    """The estimate a sequential measurement stops with: rounds added one at a time, as the timing worker does."""
    for done in range(looks.schedule[0], looks.schedule[-1] + 1):
        if looks.settled(ratios[:done], done - 1):
            break
    return looks.estimate(ratios[:done])


def test_optional_stopping_keeps_the_false_faster_rate_at_the_stated_level():
    """Synthetic A/A simulation (seeded): a build against itself, log-normal 5 % round noise, 9 to 30 rounds read
    at the planned looks. Calling it faster is the interval's one-sided error: at most 2.5 % at 95 %."""
    looks = Looks.of(9, 30)
    assert looks.schedule == (9, 12, 16, 22, 30)
    rng = random.Random(0)
    runs = 3000
    faster = sum(_sequential([math.exp(rng.gauss(0, 0.05)) for _ in range(30)], looks).faster() for _ in range(runs))
    assert faster / runs <= 0.025
    # reading the plain 95 % interval after every round from 9 to 30 (22 looks) is what this replaced
    naive = 0
    for _ in range(runs):
        ratios = [math.exp(rng.gauss(0, 0.05)) for _ in range(30)]
        done = next(n for n in range(9, 31) if n == 30 or SpeedupEstimate.from_ratios(ratios[:n]).decided())
        naive += SpeedupEstimate.from_ratios(ratios[:done]).faster()
    assert naive / runs > 0.04


def test_a_clear_win_is_still_decided_at_the_first_look():
    """Synthetic: 10 % faster with 2 % round noise stops at 9 rounds, called faster."""
    rng = random.Random(1)
    estimate = _sequential([0.9 * math.exp(rng.gauss(0, 0.02)) for _ in range(30)], Looks.of(9, 30))
    assert estimate.rounds == 9 and estimate.faster() and estimate.confidence >= 0.95
