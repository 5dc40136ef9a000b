"""Gradient-boosted trees fitted to rank each problem's candidates (LightGBM's LambdaRank), stored as a
`TreeEnsemble` like the regression learners.

A regression model spends its fit on every candidate's time, the slow tail included; a ranker only needs the
first few right. LambdaRank fits the trees to the order within each problem, weighting each pair of candidates by
how much swapping them would change the ranking's quality near the top (NDCG over the first
`lambdarank_truncation_level`). Candidates are graded in 5 % steps from the problem's best (10 within 5 %, 9
within 10 %, ... 0 beyond 1.05^10 = 1.63x), the tolerance `mltune evaluate` scores. On sm_90's SIMT GEMMs, held
out by neighbourhood, `mltune train` found it within 5 % of the best sooner than regression trees
(`docs/evaluation/honest-split.md`, "A ranking objective").

The fitted trees are read out of LightGBM's model dump into the same node arrays (each node before its children),
so ranking needs neither LightGBM nor anything that runs code when loaded. The score is scaled by the slope of the
training problems' log ratios on it (both taken relative to each problem's mean), so predictions read as log
ratios to a problem's typical candidate: lower is faster, and the refitted ranker's residuals have the units of
its prior (`mltune.rankers.refit`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mltune.learn.tree_arrays import LEAF, TreeEnsemble

GRADES = 10  # grade 10: within 5 % of the problem's best; each further 5 % step one less
STEP = np.log(1.05)
# As the regression trees (`mltune.learn.learners.BOOSTED_SETTINGS`): many small trees, row and column subsamples;
# deterministic, row-wise and on one thread so that a dataset gives the same model on every machine. One thread also
# because LightGBM's OpenMP threads spin waiting for each other when another process holds a core, which made a fit
# many times slower (`docs/evaluation/honest-split.md`, "A ranking objective").
RANKING_SETTINGS: dict[str, Any] = {
    "objective": "lambdarank",
    "n_estimators": 300,
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_child_samples": 5,
    "subsample": 0.8,
    "subsample_freq": 1,
    "colsample_bytree": 0.8,
    "lambdarank_truncation_level": 20,
    "deterministic": True,
    "force_row_wise": True,
    "n_jobs": 1,
    "verbose": -1,
}


def grades(log_ratios: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Each row's relevance: 10 within 5 % of its problem's best, one less per further 5 % step, at least 0."""
    problem = np.unique(groups, return_inverse=True)[1]
    best = np.full(problem.max() + 1, np.inf)
    np.minimum.at(best, problem, log_ratios)
    steps = np.floor((log_ratios - best[problem]) / STEP + 1e-9)
    return np.clip(GRADES - steps, 0, GRADES).astype(np.int64)


def fit_ranking_trees(features: np.ndarray, labels: np.ndarray, groups: np.ndarray, seed: int = 0) -> TreeEnsemble:
    """Fit LambdaRank on rows grouped by problem (`groups`: each row's problem; `labels`: log(time / baseline)) and
    keep its trees as arrays, predicting the score times its slope on the labels."""
    import lightgbm  # only `mltune train` fits models

    order = np.argsort(groups, kind="stable")  # LightGBM takes each query's rows together
    rows = np.asarray(features, dtype=np.float32)[order].astype(np.float64)  # as `TreeEnsemble.predict` reads them
    labels, groups = np.asarray(labels, dtype=np.float64)[order], np.asarray(groups)[order]
    sizes = np.unique(groups, return_counts=True)[1]
    ranker = lightgbm.LGBMRanker(**RANKING_SETTINGS, random_state=seed)
    ranker.fit(rows, grades(labels, groups), group=sizes)
    trees = [tree["tree_structure"] for tree in ranker.booster_.dump_model()["tree_info"]]
    scale = _slope(ranker.predict(rows), labels, groups)
    return _ensemble(trees, scale * len(trees))


def _slope(scores: np.ndarray, labels: np.ndarray, groups: np.ndarray) -> float:
    """The least-squares slope of labels on scores, both less their problem's mean; negative (a higher score ranks
    first), -1 where the fit does not say so."""
    problem = np.unique(groups, return_inverse=True)[1]

    def centred(values: np.ndarray) -> np.ndarray:
        means = np.bincount(problem, values) / np.bincount(problem)
        return values - means[problem]

    x, y = centred(scores), centred(labels)
    slope = float(x @ y / (x @ x)) if x @ x > 0 else 0.0
    return slope if slope < 0 else -1.0


def _ensemble(trees: list[dict[str, Any]], scale: float) -> TreeEnsemble:
    """LightGBM's dumped trees as `TreeEnsemble` arrays, numbered depth-first (a node before its children), each leaf
    value times `scale`: the ensemble's mean is then `scale` / trees times LightGBM's sum."""
    left: list[int] = []
    right: list[int] = []
    feature: list[int] = []
    threshold: list[float] = []
    value: list[float] = []
    roots, depth = [], 0

    def add(node: dict[str, Any], level: int) -> int:
        nonlocal depth
        index = len(left)
        left.append(LEAF)
        right.append(LEAF)
        feature.append(0)
        threshold.append(0.0)
        value.append(float(node.get("leaf_value", 0.0)) * scale)
        if "split_feature" not in node:
            depth = max(depth, level)
            return index
        if node["decision_type"] != "<=" or node["missing_type"] == "Zero":
            raise ValueError(f"unsupported LightGBM split {node['decision_type']} ({node['missing_type']})")
        feature[index], threshold[index] = int(node["split_feature"]), float(node["threshold"])
        left[index] = add(node["left_child"], level + 1)
        right[index] = add(node["right_child"], level + 1)
        return index

    for tree in trees:
        roots.append(add(tree, 0))
    return TreeEnsemble(
        np.array(left, dtype=np.int32),
        np.array(right, dtype=np.int32),
        np.array(feature, dtype=np.int32),
        np.array(threshold, dtype=np.float64),
        np.array(value, dtype=np.float64),
        np.array(roots, dtype=np.int32),
        depth,
    )
