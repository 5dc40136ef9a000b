"""The tree ensembles a cost model is fitted as: a random forest, or gradient-boosted trees, by name.

Each predicts log(candidate time / IREE's default time) from the feature columns, or (`ranking-trees`,
`mltune.learn.ranking_trees`) a score in those units fitted to each problem's order, and all are stored alike
(`mltune.learn.tree_arrays.TreeEnsemble`: plain arrays, loaded without running code), so a model ranks the same
way whichever fitted it. `mltune train` cross-validates each on the honest split and keeps, per op kind, the one
whose ranking reaches a candidate within 5 % of the best sooner (`mltune.learn.train.choose_learner`): a forest
averages deep trees fitted on resamples, boosting adds shallow trees each fitted on what the others still get
wrong, and which of the two ranks new shapes better differs between datasets (`docs/evaluation/honest-split.md`).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from sklearn.ensemble import GradientBoostingRegressor

from mltune.learn.forest import FOREST_SETTINGS, fit_forest
from mltune.learn.learner_names import BOOSTED, FOREST, RANKING
from mltune.learn.ranking_trees import RANKING_SETTINGS, fit_ranking_trees
from mltune.learn.tree_arrays import TreeEnsemble

# (features, labels, each row's problem, seed): the regression learners fit rows on their own, the ranking one
# each problem's rows together
Learner = Callable[[np.ndarray, np.ndarray, np.ndarray, int], TreeEnsemble]

# Many shallow trees with a small step, on row and column subsamples: an arch's records are tens of problems of
# ~60-200 candidates each, and the subsamples keep one problem's noise from steering every tree.
BOOSTED_SETTINGS: dict[str, Any] = {
    "n_estimators": 300,
    "learning_rate": 0.05,
    "max_depth": 4,
    "subsample": 0.8,
    "max_features": 0.8,
    "min_samples_leaf": 5,
}


def fit_regression_forest(features: np.ndarray, labels: np.ndarray, groups: np.ndarray, seed: int = 0) -> TreeEnsemble:
    """`fit_forest` with the learners' arguments (each row fitted on its own: `groups` unused)."""
    return fit_forest(features, labels, seed)


def fit_boosted(features: np.ndarray, labels: np.ndarray, groups: np.ndarray, seed: int = 0) -> TreeEnsemble:
    """Fit scikit-learn's gradient boosting and keep its trees' arrays. Boosting predicts its initial value plus
    the learning rate times the sum of its trees; `TreeEnsemble` averages its trees, so each tree's values are
    scaled by the learning rate and the number of trees, and shifted by the initial value."""
    boosted = GradientBoostingRegressor(**BOOSTED_SETTINGS, random_state=seed).fit(features, labels)
    trees = list(boosted.estimators_[:, 0])
    initial = float(boosted.init_.predict(features[:1])[0])
    return TreeEnsemble.from_trees(trees, scale=boosted.learning_rate * len(trees), offset=initial)


LEARNERS: dict[str, Learner] = {
    FOREST: fit_regression_forest,
    BOOSTED: fit_boosted,
    RANKING: fit_ranking_trees,
}  # in `LEARNER_NAMES`' order
SETTINGS: dict[str, dict[str, Any]] = {FOREST: FOREST_SETTINGS, BOOSTED: BOOSTED_SETTINGS, RANKING: RANKING_SETTINGS}
