"""An mltune ranker plugin: gradient-boosted trees (LightGBM) predict each candidate's time relative to IREE's
default from mltune's features, and candidates are measured fastest-predicted first.

It learns from the `records` mltune gives it (a `mltune.records` frame): when tuning, the target arch's records
under `--dataset-dir`; in `mltune evaluate`, only those of the problems its fold trains on, so that every problem it
is scored on is one it never saw. One model is fitted per op kind and target family (their features differ), on
first use, and shared by the copies mltune makes for each problem. With no records of a problem's kind it leaves
the order to mltune's heuristic, and says so once.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pandas as pd
from lightgbm import LGBMRegressor

import mltune
from mltune.features import candidate_frame, feature_columns

# Small trees, many rounds, row and column subsampling: an arch's records are tens of problems of ~150 candidates.
# One thread and deterministic: the same records and seed give the same order.
SETTINGS: dict[str, Any] = {
    "n_estimators": 400,
    "learning_rate": 0.03,
    "num_leaves": 15,
    "min_child_samples": 20,
    "subsample": 0.8,
    "subsample_freq": 1,
    "colsample_bytree": 0.8,
    "n_jobs": 1,
    "deterministic": True,
    "force_row_wise": True,
    "verbose": -1,
}
Fitted = tuple[LGBMRegressor, list[str]]


def family(target_kind: str) -> str:
    """CPU and GPU targets have different features; ROCm and CUDA share theirs."""
    return "cpu" if target_kind == "cpu" else "gpu"


def fit(records: pd.DataFrame, op_kind: str, target_family: str, columns: list[str], seed: int) -> Fitted | None:
    """A model of log(ratio) from `columns`, fitted on the records of one op kind and target family that have them
    all; None without any."""
    if records.empty or not set(columns) <= set(records.columns):
        return None
    rows = records[(records["op_kind"] == op_kind) & (records["target_kind"].map(family) == target_family)]
    rows = rows.dropna(subset=columns)
    if rows.empty:
        return None
    model = LGBMRegressor(random_state=seed, **SETTINGS)
    model.fit(rows[columns].to_numpy(), np.log(rows["ratio"].to_numpy()))
    return model, columns


class LightGbmRanker:
    """A static ranker: its whole order is fixed in `start`; what it is told changes nothing."""

    name = "lightgbm"

    def __init__(self, seed: int = 0, records: pd.DataFrame | None = None):
        self.seed = seed
        self.records = records if records is not None else pd.DataFrame()
        self.models: dict[tuple[str, str], Fitted | None] = {}  # fitted once, shared by the per-problem copies
        self._order: list[int] = []
        self._next = 0

    def _model(self, ranking_input: mltune.RankingInput, columns: list[str]) -> Fitted | None:
        key = (ranking_input.problem.op_kind, family(ranking_input.target.kind))
        if key not in self.models:
            self.models[key] = fit(self.records, *key, columns, self.seed)
            if self.models[key] is None:
                print(
                    f"lightgbm: no records of {key[0]} problems on {key[1]} targets to learn from; the heuristic "
                    "ranks them",
                    file=sys.stderr,
                )
        return self.models[key]

    def start(self, ranking_input: mltune.RankingInput) -> None:
        frame = candidate_frame(ranking_input)
        fitted = self._model(ranking_input, feature_columns(frame))
        if fitted is None:
            self._order = mltune.rank(ranking_input, "heuristic", seed=self.seed)
        else:
            model, columns = fitted
            predicted = model.predict(frame[columns].to_numpy())
            ties = np.random.default_rng(self.seed).random(len(predicted))  # equal predictions in seeded order
            self._order = [int(i) for i in np.lexsort((ties, predicted))]
        self._next = 0

    def ask(self, n: int) -> list[int]:
        picked = self._order[self._next : self._next + n]
        self._next += len(picked)
        return picked

    def tell(self, index: int, ratio: float) -> None:
        """Learns nothing during a run."""
