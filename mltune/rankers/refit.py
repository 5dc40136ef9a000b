"""The random forest refitted during the run: a small residual model learns, after each batch, what the stored model
got wrong about this problem on this machine.

The stored model's prediction is the prior; each measured candidate's log ratio minus its prior is a residual,
and a small forest fitted on the measured candidates' features predicts it for the others. The order of what is
left is then prior + shrink x residual, the shrink growing with the measurements (n / (n + SHRINK_MEASUREMENTS)),
so a few noisy results barely move a good prior. Failed candidates are left out of the fit (they carry no time).
Where the prior interleaves the forest's order with the heuristic's, the corrected order of what is left is
interleaved with the heuristic's in the same share.
"""

from __future__ import annotations

import math

import numpy as np

from mltune.features import extractor_for
from mltune.rankers.base import RankingInput
from mltune.rankers.blend import interleaved_order
from mltune.rankers.forest import RandomForest

MIN_MEASUREMENTS = 4  # residuals are fitted from this many measured candidates on
SHRINK_MEASUREMENTS = 8  # with this many, the residual counts half
MAX_MEASUREMENTS = 128  # budgets are tens of candidates: past this, the order stays as last refitted
RESIDUAL_SETTINGS = {"n_estimators": 30, "max_depth": 4, "min_samples_leaf": 2, "max_features": 0.5}


class RefittedForest:
    """Adaptive ranker: the random forest's order, corrected after each batch by a residual fitted on the run."""

    name = "random-forest-refit"

    def __init__(self, seed: int = 0, model=None, model_dir=None, blend: bool = False, share: float = 1.0):
        self.seed = seed
        self.prior_ranker = RandomForest(seed, model, model_dir, blend, share)
        self._features = np.empty((0, 0))
        self._prior = np.empty(0)
        self._queue = np.empty(0, dtype=np.int64)
        self._heuristic: np.ndarray | None = None
        self._share = 1.0
        self._measured: dict[int, float] = {}
        self._fitted_at = 0

    def check_for(self, target) -> None:
        self.prior_ranker.check_for(target)

    def start(self, ranking_input: RankingInput) -> None:
        problem, target = ranking_input.problem, ranking_input.target
        ranked = self.prior_ranker.ranked(ranking_input)
        order, predicted, features = ranked.order, ranked.predicted, ranked.features
        self._heuristic, self._share = ranked.heuristic, ranked.share
        if features is None:
            features = extractor_for(problem, target)(problem, target, ranking_input.candidates)
        self._features = features.values
        # with no model (the heuristic ranks), the prior is the heuristic's order, as a small ramp
        self._prior = np.empty(len(order))
        if predicted is None:
            self._prior[order] = np.linspace(0.0, 0.1, len(order))
        else:
            self._prior = predicted
        self._queue = np.asarray(order, dtype=np.int64)
        self._measured = {}
        self._fitted_at = 0

    def tell(self, index: int, ratio: float) -> None:
        if 0 < ratio < math.inf:
            self._measured[index] = math.log(ratio)

    def _refit(self) -> None:
        from sklearn.ensemble import RandomForestRegressor  # only once a run has results

        measured = np.fromiter(self._measured, dtype=np.int64)
        residuals = np.array([self._measured[i] for i in measured]) - self._prior[measured]
        residual = RandomForestRegressor(**RESIDUAL_SETTINGS, random_state=self.seed, n_jobs=1)
        residual.fit(self._features[measured], residuals)
        shrink = len(measured) / (len(measured) + SHRINK_MEASUREMENTS)
        scores = self._prior[self._queue] + shrink * residual.predict(self._features[self._queue])
        self._queue = self._queue[np.argsort(scores, kind="stable")]  # ties keep the prior's order
        if self._heuristic is not None:  # the forest's share of what is left, as in the prior's order
            waiting = self._heuristic[np.isin(self._heuristic, self._queue)]
            self._queue = interleaved_order(self._queue, waiting, self._share)
        self._fitted_at = len(measured)

    def ask(self, n: int) -> list[int]:
        due = MIN_MEASUREMENTS <= len(self._measured) <= MAX_MEASUREMENTS and len(self._measured) > self._fitted_at
        if due and len(self._queue):
            self._refit()
        picked, self._queue = self._queue[:n], self._queue[n:]
        return [int(i) for i in picked]
