"""The LambdaRank learner (`mltune.learn.ranking_trees`) on synthetic problems: its stored arrays rank as LightGBM
does, and it puts each problem's best first."""

from __future__ import annotations

import lightgbm
import numpy as np

from mltune.learn.ranking_trees import RANKING_SETTINGS, fit_ranking_trees, grades
from mltune.learn.tree_arrays import TreeEnsemble


def _synthetic(seed: int = 0):
    """Six synthetic problems of 100 candidates, rows shuffled across problems; each problem's log ratios offset by
    its index, as problems' defaults differ."""
    rng = np.random.default_rng(seed)
    scale = np.array([1, 10, 1e3, 1e-3, 1, 1])
    rows = rng.normal(size=(600, 6)) * scale
    groups = np.repeat(np.arange(6), 100)[rng.permutation(600)]
    labels = 0.3 * rows[:, 0] + np.sin(rows[:, 1]) + 0.05 * rng.normal(size=600) + groups
    return rows, labels, groups, scale, rng


def test_grades_step_by_five_percent_from_each_problems_best():
    log_ratios = np.log([1.0, 1.04, 1.06, 1.5, 3.0, 2.0, 2.0 * 1.049])
    groups = np.array([0, 0, 0, 0, 0, 7, 7])  # problem ids need not be contiguous
    assert grades(log_ratios, groups).tolist() == [10, 10, 9, 2, 0, 10, 10]


def test_the_stored_arrays_rank_as_lightgbm_does(tmp_path):
    """After a save and load, the arrays' predictions are LightGBM's scores times one negative factor: the same
    order, lowest first."""
    rows, labels, groups, scale, rng = _synthetic()
    (tmp_path / "r.npz").write_bytes(fit_ranking_trees(rows, labels, groups, 0).to_bytes())
    loaded = TreeEnsemble.load(tmp_path / "r.npz", 6)
    order = np.argsort(groups, kind="stable")
    as_read = rows.astype(np.float32).astype(np.float64)  # as the learner and `TreeEnsemble.predict` read them
    reference = lightgbm.LGBMRanker(**RANKING_SETTINGS, random_state=0)
    reference.fit(as_read[order], grades(labels[order], groups[order]), group=np.bincount(groups))
    unseen = (rng.normal(size=(2000, 6)) * scale).astype(np.float32).astype(np.float64)
    ratio = loaded.predict(unseen) / reference.predict(unseen)
    assert ratio[0] < 0
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-9)


def test_it_puts_each_problems_best_first_in_log_ratio_units():
    """The first candidate of each problem's order is within 5 % of its best (a few of 100 are, on these synthetic
    problems), the graded ones come before the rest, and the predictions have the spread of the labels."""
    rows, labels, groups, _, _ = _synthetic()
    predicted = fit_ranking_trees(rows, labels, groups, 0).predict(rows)
    graded = grades(labels, groups)
    for problem in range(6):
        mine = np.flatnonzero(groups == problem)
        order = mine[np.argsort(predicted[mine])]
        assert graded[order[0]] == 10
        assert graded[order[:5]].mean() > 2 * graded[mine].mean()
    # scaled by the slope of the labels on the score: predictions in the labels' units, not LightGBM's
    assert 0.2 < np.std(predicted) / np.std(labels - groups) < 2
