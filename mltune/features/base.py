"""`FeatureMatrix`: named feature columns, so rankers and models refer to features by name."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FeatureMatrix:
    """Candidates' features: `values[i]` holds candidate i's, one column per name.

    Attributes:
        names: The features' names, in column order.
        values: Shape (candidates, features), float64.
    """

    names: tuple[str, ...]
    values: np.ndarray

    def __getitem__(self, name: str) -> np.ndarray:
        """One feature of every candidate."""
        return self.values[:, self.names.index(name)]

    @staticmethod
    def from_columns(columns: dict[str, np.ndarray]) -> "FeatureMatrix":
        """The matrix of named columns, in the dict's order."""
        names = tuple(columns)
        return FeatureMatrix(names, np.stack([np.asarray(columns[n], dtype=np.float64) for n in names], axis=1))
