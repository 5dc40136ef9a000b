"""The TPE ranker: Optuna's Tree-structured Parzen Estimator, learning during the run, over the finite candidate set.

Encoding: every size knob is one Optuna `FloatDistribution` over log2 of its value (neighbouring tile
sizes behave alike, so a Gaussian kernel in log2 space generalises between them); a knob that takes
the value 0 (a flag, an intrinsic's index, an option where 0 leaves it unset, as GPU spaces have) is
a `CategoricalDistribution` of its values. Every result told becomes a completed trial of an Optuna study
(`optuna.trial.create_trial`, `Study.add_trial`) at the candidate's own knobs, with value log(ratio);
compile or run failures are told as a very bad value, so that TPE learns where they are.

Only Optuna's public interface is used. TPE proposes points (`Study.ask` with a `TPESampler`), but most points
of the knobs' product are not valid candidates, so each proposal is matched to the nearest candidate not
handed out yet (in the encoded space: log2 sizes scaled by their range, a category counting 1 when it
differs), and the remaining candidates follow by their distance to the nearest proposal. A proposal is not a
measurement: it is told as failed (`TrialState.FAIL`), which TPE does not learn from. TPE scores 128 draws of
l(x) per proposal (`n_ei_candidates`, 24 by default): over a finite set measured within a few batches,
exploiting what was learnt pays more than exploring. The first picks, before TPE has anything to split, follow
the heuristic, which also breaks ties. Everything TPE draws is seeded: same seed and same results told, same
order. A scoring asks TPE for `PROPOSALS` points; past 64 results the candidates are rescored only when the
results grew by a quarter, so that asking for every one of 14,000 candidates stays cheap.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, FloatDistribution
from optuna.samplers import TPESampler
from optuna.trial import TrialState

from mltune.rankers.base import RankingInput
from mltune.rankers.heuristic import Heuristic

STARTUP_PICKS = 8  # picks taken from the heuristic order before TPE has results to learn from
FAILED_LOG_RATIO = math.log(1000.0)  # a failure counts as 1000x slower than IREE's default
PROPOSALS = 8  # points TPE proposes per scoring (each costs one TPE sampling)
EI_DRAWS = 128  # draws of l(x) TPE scores per proposal
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


class Tpe:
    """Adaptive ranker: heuristic first, then the remaining candidates nearest to TPE's proposals first."""

    name = "tpe"

    def __init__(self, seed: int = 0, startup: int = STARTUP_PICKS):
        self.seed = seed
        self.startup = startup
        self._encoded: dict[str, np.ndarray] = {}  # every candidate's knob values in Optuna's internal form
        self._distributions: dict[str, BaseDistribution] = {}
        self._prior = np.empty(0, dtype=np.int64)  # heuristic rank of every candidate
        self._queue = np.empty(0, dtype=np.int64)  # candidates not handed out yet, best first
        self._told = 0
        self._scored_at = 0
        self._study: optuna.Study | None = None

    def start(self, ranking_input: RankingInput) -> None:
        candidates = ranking_input.candidates
        # a knob with one value says nothing (and would give TPE a zero-width kernel)
        encoded = {
            name: encode_knob(candidates.column(name))
            for name in candidates.names
            if np.ptp(candidates.column(name)) > 0
        }
        self._distributions = {name: distribution for name, (distribution, _) in encoded.items()}
        self._encoded = {name: values for name, (_, values) in encoded.items()}
        self._queue = np.asarray(Heuristic(self.seed).order(ranking_input), dtype=np.int64)
        self._prior = np.empty(len(candidates), dtype=np.int64)
        self._prior[self._queue] = np.arange(len(candidates))
        self._told = 0
        self._scored_at = 0
        optuna.logging.set_verbosity(optuna.logging.ERROR)  # told failures would each log a warning
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            sampler = TPESampler(
                seed=self.seed,
                multivariate=True,
                constant_liar=False,
                n_ei_candidates=EI_DRAWS,
                n_startup_trials=max(self.startup, 2),
            )
        self._study = optuna.create_study(direction="minimize", sampler=sampler)

    def tell(self, index: int, ratio: float) -> None:
        value = math.log(ratio) if 0 < ratio < math.inf else FAILED_LOG_RATIO
        params = {
            name: self._distributions[name].to_external_repr(float(values[index]))
            for name, values in self._encoded.items()
        }
        self._study.add_trial(optuna.trial.create_trial(params=params, distributions=self._distributions, value=value))
        self._told += 1

    def proposals(self, count: int) -> np.ndarray:
        """`count` points TPE proposes from the results told so far, encoded (one row each, one column a knob)."""
        trials = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            for _ in range(count):
                trials.append(self._study.ask(self._distributions))
        for trial in trials:
            self._study.tell(trial, state=TrialState.FAIL)  # a proposal, not a measurement
        return np.array(
            [[self._internal(name, trial.params[name]) for name in self._encoded] for trial in trials], dtype=np.float64
        ).reshape(count, len(self._encoded))

    def _internal(self, name: str, value: object) -> float:
        distribution = self._distributions[name]
        if isinstance(distribution, CategoricalDistribution):
            return float(distribution.choices.index(value))
        return float(value)

    def distances(self, indices: np.ndarray, points: np.ndarray) -> np.ndarray:
        """Distance of each candidate (rows) to each point (columns): log2 sizes scaled by their knob's range,
        a category counting 1 when it differs."""
        total = np.zeros((len(indices), len(points)))
        for column, (name, values) in enumerate(self._encoded.items()):
            own = values[indices][:, None]
            if isinstance(self._distributions[name], CategoricalDistribution):
                total += own != points[None, :, column]
            else:
                span = self._distributions[name].high - self._distributions[name].low
                total += ((own - points[None, :, column]) / span) ** 2
        return np.sqrt(total)

    def _rescore(self) -> None:
        """Each proposal takes its nearest remaining candidate, in proposal order; the rest follow by their
        distance to the nearest proposal, equal distances in heuristic order."""
        distance = self.distances(self._queue, self.proposals(PROPOSALS))
        first: list[int] = []
        for column in range(distance.shape[1]):
            free = np.setdiff1d(np.arange(len(self._queue)), first)
            if not len(free):
                break
            first.append(int(free[np.lexsort((self._prior[self._queue[free]], distance[free, column]))[0]]))
        rest = np.setdiff1d(np.arange(len(self._queue)), first)
        rest = rest[np.lexsort((self._prior[self._queue[rest]], distance[rest].min(axis=1)))]
        self._queue = self._queue[np.concatenate([np.array(first, dtype=np.int64), rest])]

    def ask(self, n: int) -> list[int]:
        step = 1 if self._told < RESCORE_EVERY_RESULT_BELOW else self._scored_at // RESCORE_GROWTH
        if self._told >= max(self.startup, 2) and self._told - self._scored_at >= step and len(self._queue):
            self._rescore()
            self._scored_at = self._told
        picked, self._queue = self._queue[:n], self._queue[n:]
        return [int(i) for i in picked]
