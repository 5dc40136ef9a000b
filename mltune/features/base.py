"""`FeatureMatrix`: named feature columns, so rankers and models refer to features by name."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FeatureMatrix:
    names: tuple[str, ...]
    values: np.ndarray  # shape (candidates, features), float64

    def __getitem__(self, name: str) -> np.ndarray:
        return self.values[:, self.names.index(name)]

    @staticmethod
    def from_columns(columns: dict[str, np.ndarray]) -> "FeatureMatrix":
        names = tuple(columns)
        return FeatureMatrix(names, np.stack([np.asarray(columns[n], dtype=np.float64) for n in names], axis=1))
