"""Candidates: the points of a space as one integer matrix, and the protocol that turns one into a config."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class CandidateSet:
    """All candidates of one problem: one row per candidate, one column per knob.

    Kept as a matrix, not as objects, so that features and rankers work on whole columns
    at once; a candidate's index is its row (solver order).

    Attributes:
        names: The knobs' names, in column order.
        values: Shape (candidates, knobs), integers.
    """

    names: tuple[str, ...]
    values: np.ndarray

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def column(self, name: str) -> np.ndarray:
        """One knob of every candidate."""
        return self.values[:, self.names.index(name)]

    def knobs(self, index: int) -> dict[str, int]:
        """Candidate `index`'s knobs by name."""
        return {name: int(value) for name, value in zip(self.names, self.values[index])}

    def index_of(self, knobs: dict[str, int]) -> int | None:
        """The index of the candidate with these knobs (all of `names`), None when the set holds none."""
        row = np.array([knobs[name] for name in self.names], dtype=self.values.dtype)
        hits = np.flatnonzero((self.values == row).all(axis=1))
        return int(hits[0]) if hits.size else None


class Configurator(Protocol):
    """A (problem, target) space: its candidates, the pipeline and the `compilation_info` of any of them
    (a space may hold several pipelines: the pipeline is then one of its knobs)."""

    def candidates(self) -> CandidateSet: ...

    def pipeline_of(self, knobs: dict[str, int]) -> str: ...

    def compilation_info(self, knobs: dict[str, int]) -> str: ...
