"""The TPE ranker: Optuna's Tree-structured Parzen Estimator, learning during the run, over the finite candidate set.

Encoding: every knob is one Optuna `FloatDistribution` over log2 of its value (neighbouring tile
sizes behave alike, so a Gaussian kernel in log2 space generalises between them), and every
measured candidate is added to the study as a completed trial whose value is log(ratio).
Instead of letting TPE sample points (most points of the knobs' product are invalid, and
failed trials teach TPE nothing), the ranker scores ALL remaining valid candidates by TPE's
density ratio log l(x) - log g(x), built from the good (l) and the other (g) trials, and
hands out the best. Compile or run failures are told as a very bad value, so g(x) learns
where they are. The first picks, before TPE has anything to split, follow the heuristic.

The density ratio uses Optuna's TPE internals (`optuna.samplers._tpe`); pyproject pins the
Optuna release line this was tested with.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import optuna
from optuna.distributions import FloatDistribution
from optuna.samplers import TPESampler
from optuna.samplers._tpe.sampler import _split_trials

from mltune.rankers.base import RankingInput
from mltune.rankers.heuristic import Heuristic

STARTUP_PICKS = 8  # picks taken from the heuristic order before TPE has results to learn from
FAILED_LOG_RATIO = math.log(1000.0)  # a failure counts as 1000x slower than IREE's default


def good_fraction(n: int) -> int:
    """How many of n results count as good (l(x)): a quarter, so that l(x) has several points at small budgets."""
    return min(math.ceil(0.25 * n), 25)


class Tpe:
    """Adaptive ranker: heuristic first, then the remaining candidate with the best TPE density ratio."""

    name = "tpe"

    def __init__(self, seed: int = 0, startup: int = STARTUP_PICKS):
        self.seed = seed
        self.startup = startup
        self._log2_knobs: dict[str, np.ndarray] = {}
        self._prior = np.empty(0, dtype=np.int64)  # heuristic rank of every candidate
        self._left = np.empty(0, dtype=bool)
        self._told = 0
        self._scored_at = -1
        self._scores = np.empty(0)
        self._study: optuna.Study | None = None
        self._sampler: TPESampler | None = None
        self._distributions: dict[str, FloatDistribution] = {}

    def start(self, ranking_input: RankingInput) -> None:
        candidates = ranking_input.candidates
        # a knob with one value says nothing (and would give TPE a zero-width kernel)
        self._log2_knobs = {name: np.log2(candidates.column(name).astype(np.float64)) for name in candidates.names
                            if np.ptp(candidates.column(name)) > 0}
        self._distributions = {name: FloatDistribution(float(v.min()), float(v.max()))
                               for name, v in self._log2_knobs.items()}
        heuristic_order = Heuristic(self.seed).order(ranking_input)
        self._prior = np.empty(len(candidates), dtype=np.int64)
        self._prior[heuristic_order] = np.arange(len(candidates))
        self._left = np.ones(len(candidates), dtype=bool)
        self._told = 0
        self._scored_at = -1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            self._sampler = TPESampler(seed=self.seed, multivariate=True)
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self._study = optuna.create_study(direction="minimize", sampler=self._sampler)

    def tell(self, index: int, ratio: float) -> None:
        value = math.log(ratio) if 0 < ratio < math.inf else FAILED_LOG_RATIO
        params = {name: float(values[index]) for name, values in self._log2_knobs.items()}
        self._study.add_trial(optuna.trial.create_trial(params=params, distributions=self._distributions, value=value))
        self._told += 1

    def density_ratio(self) -> np.ndarray:
        """log l(x) - log g(x) of every candidate under the trials told so far (higher = more promising)."""
        trials = self._study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
        below, above = _split_trials(self._study, trials, good_fraction(len(trials)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            good = self._sampler._build_parzen_estimator(self._study, self._distributions, below, handle_below=True)
            bad = self._sampler._build_parzen_estimator(self._study, self._distributions, above, handle_below=False)
        return self._sampler._compute_acquisition_func(self._log2_knobs, good, bad)

    def ask(self, n: int) -> list[int]:
        left = np.flatnonzero(self._left)
        if self._told < max(self.startup, 2):
            picked = left[np.argsort(self._prior[left], kind="stable")][:n]
        else:
            if self._scored_at != self._told:  # rescore only when something new was told
                self._scores = self.density_ratio()
                self._scored_at = self._told
            # best density ratio first; equal scores in heuristic order
            picked = left[np.lexsort((self._prior[left], -self._scores[left]))][:n]
        self._left[picked] = False
        return [int(i) for i in picked]
