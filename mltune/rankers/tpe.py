"""The TPE ranker: Optuna's Tree-structured Parzen Estimator, learning during the run, over the finite candidate set.

Encoding: every size knob is one Optuna `FloatDistribution` over log2 of its value (neighbouring tile
sizes behave alike, so a Gaussian kernel in log2 space generalises between them); a knob that takes
the value 0 (a flag, an intrinsic's index, an option where 0 leaves it unset, as GPU spaces have) is
a `CategoricalDistribution` of its values. Every result told becomes a completed Optuna trial
(`create_trial`) whose value is log(ratio).
Instead of letting TPE sample points (most points of the knobs' product are invalid, and
failed trials teach TPE nothing), the ranker scores ALL remaining valid candidates by TPE's
density ratio log l(x) - log g(x), built from the good (l) and the other (g) trials, and
hands out the best. Compile or run failures are told as a very bad value, so g(x) learns
where they are. The first picks, before TPE has anything to split, follow the heuristic, which
also breaks ties. Nothing is sampled at random except g(x)'s subsample, seeded: same seed and
same results told, same order.
Scoring costs candidates x results, so g(x) is built from at most 64 of the other results
(a seeded sample), and past 64 results the candidates are rescored only when the results
grew by a quarter: asking for all of 14,000 candidates takes seconds, not minutes.

The density ratio uses Optuna's TPE internals (`optuna.samplers._tpe`); pyproject pins the
Optuna release line this was tested with.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, FloatDistribution
from optuna.samplers import TPESampler
from optuna.samplers._tpe.sampler import _split_trials

from mltune.rankers.base import RankingInput
from mltune.rankers.heuristic import Heuristic

STARTUP_PICKS = 8  # picks taken from the heuristic order before TPE has results to learn from
FAILED_LOG_RATIO = math.log(1000.0)  # a failure counts as 1000x slower than IREE's default
MAX_OTHER_RESULTS = 64  # results that build g(x): a seeded sample of the non-good ones
RESCORE_EVERY_RESULT_BELOW = 64  # rescore after every new result while fewer results are in ...
RESCORE_GROWTH = 4  # ... then when the results grew by a quarter


def encode_knob(values: np.ndarray) -> tuple[BaseDistribution, np.ndarray]:
    """A knob's distribution and every candidate's value in Optuna's internal form: log2 of a size, or the
    index of a category for a knob that takes 0 (where log2 is undefined)."""
    if values.min() >= 1:
        logs = np.log2(values.astype(np.float64))
        return FloatDistribution(float(logs.min()), float(logs.max())), logs
    choices, indices = np.unique(values, return_inverse=True)
    return CategoricalDistribution(tuple(int(c) for c in choices)), indices.astype(np.float64)


def good_fraction(n: int) -> int:
    """How many of n results count as good (l(x)): a quarter, so that l(x) has several points at small budgets."""
    return min(math.ceil(0.25 * n), 25)


class Tpe:
    """Adaptive ranker: heuristic first, then the remaining candidates by TPE density ratio, best first."""

    name = "tpe"

    def __init__(self, seed: int = 0, startup: int = STARTUP_PICKS):
        self.seed = seed
        self.startup = startup
        self._encoded: dict[str, np.ndarray] = {}  # every candidate's knob values in Optuna's internal form
        self._distributions: dict[str, BaseDistribution] = {}
        self._prior = np.empty(0, dtype=np.int64)  # heuristic rank of every candidate
        self._queue = np.empty(0, dtype=np.int64)  # candidates not handed out yet, best first
        self._trials: list[optuna.trial.FrozenTrial] = []
        self._scored_at = 0
        self._study: optuna.Study | None = None
        self._sampler: TPESampler | None = None

    def start(self, ranking_input: RankingInput) -> None:
        candidates = ranking_input.candidates
        # a knob with one value says nothing (and would give TPE a zero-width kernel)
        encoded = {name: encode_knob(candidates.column(name)) for name in candidates.names
                   if np.ptp(candidates.column(name)) > 0}
        self._distributions = {name: distribution for name, (distribution, _) in encoded.items()}
        self._encoded = {name: values for name, (_, values) in encoded.items()}
        self._queue = np.asarray(Heuristic(self.seed).order(ranking_input), dtype=np.int64)
        self._prior = np.empty(len(candidates), dtype=np.int64)
        self._prior[self._queue] = np.arange(len(candidates))
        self._trials = []
        self._scored_at = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            self._sampler = TPESampler(seed=self.seed, multivariate=True)
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        # the study only gives TPE its direction; results are kept as FrozenTrials here (storing them
        # in the study deep-copies each one, which dominates once thousands are told)
        self._study = optuna.create_study(direction="minimize", sampler=self._sampler)

    def tell(self, index: int, ratio: float) -> None:
        value = math.log(ratio) if 0 < ratio < math.inf else FAILED_LOG_RATIO
        params = {name: self._distributions[name].to_external_repr(float(values[index]))
                  for name, values in self._encoded.items()}
        self._trials.append(optuna.trial.create_trial(params=params, distributions=self._distributions, value=value))

    def density_ratio(self, indices: np.ndarray) -> np.ndarray:
        """log l(x) - log g(x) of the given candidates under the results told so far (higher = more promising)."""
        below, above = _split_trials(self._study, self._trials, good_fraction(len(self._trials)))
        if len(above) > MAX_OTHER_RESULTS:
            rng = np.random.default_rng([self.seed, len(self._trials)])
            above = [above[i] for i in sorted(rng.choice(len(above), MAX_OTHER_RESULTS, replace=False))]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            good = self._sampler._build_parzen_estimator(self._study, self._distributions, below, handle_below=True)
            bad = self._sampler._build_parzen_estimator(self._study, self._distributions, above, handle_below=False)
        points = {name: values[indices] for name, values in self._encoded.items()}
        return self._sampler._compute_acquisition_func(points, good, bad)

    def ask(self, n: int) -> list[int]:
        told = len(self._trials)
        step = 1 if told < RESCORE_EVERY_RESULT_BELOW else self._scored_at // RESCORE_GROWTH
        due = told - self._scored_at >= step
        if told >= max(self.startup, 2) and due:
            # best density ratio first; equal scores in heuristic order
            scores = self.density_ratio(self._queue)
            self._queue = self._queue[np.lexsort((self._prior[self._queue], -scores))]
            self._scored_at = told
        picked, self._queue = self._queue[:n], self._queue[n:]
        return [int(i) for i in picked]
