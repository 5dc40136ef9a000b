"""Measured-fast configs first: a ranker that puts what earlier runs found fast for the same problem
ahead of another ranker's order.

Records under `datasets/ARCH/` are self-describing, so any earlier run on this CPU that measured
the same problem (same key: kind, sizes, types, layout) tells us which configs beat IREE's
default. Those are tried first, fastest first; then the inner ranker's order, without repeats.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mltune.frontend.problem import Problem
from mltune.rankers.base import Ranker, RankingInput
from mltune.records.dataset import knobs_over, pooled_ratio, read_records


def known_fast_by_problem(dataset_dir: Path, exclude_run: str | None = None) -> dict[str, list[dict[str, int]]]:
    """For every problem key, the knobs that beat the baseline in earlier runs, fastest first: each config by the
    median over all its records' rounds (`pooled_ratio`), so one lucky screening that a finalist's re-measure
    contradicts does not seed a run. The records are read once for all of a run's problems."""
    if not dataset_dir.is_dir():
        return {}
    by_config: dict[str, dict[tuple, list[dict[str, Any]]]] = {}
    for record in read_records(dataset_dir):
        if record.get("status") != "ok" or record.get("run_id") == exclude_run or not record.get("time_us"):
            continue
        try:
            problem_key = Problem.from_record(record["problem"]).key
        except (TypeError, KeyError):
            continue
        by_config.setdefault(problem_key, {}).setdefault(tuple(sorted(record["knobs"].items())), []).append(record)
    known = {}
    for problem_key, configs in by_config.items():
        ratios = sorted(((pooled_ratio(records), dict(key)) for key, records in configs.items()), key=lambda p: p[0])
        known[problem_key] = [knobs for ratio, knobs in ratios if ratio < 1.0]
    return known


def known_fast(dataset_dir: Path, problem_key: str, exclude_run: str | None = None) -> list[dict[str, int]]:
    """Knobs that beat the baseline for `problem_key` in earlier runs, fastest first (median ratio)."""
    return known_fast_by_problem(dataset_dir, exclude_run).get(problem_key, [])


class SeededRanker:
    """Asks for the indices of `prior` knobs first (those in this space), then defers to `inner`."""

    def __init__(self, inner: Ranker, prior: list[dict[str, int]]):
        self.inner = inner
        self.prior = prior
        self._queue: list[int] = []
        self._given: set[int] = set()
        self._seeded = False

    @property
    def name(self) -> str:
        """The inner ranker's name, marked when prior knowledge changed the order: records of a seeded
        run must not count as that ranker's own iterations-to-near-optimal."""
        return f"{self.inner.name}+seeded" if self._seeded else self.inner.name

    def start(self, ranking_input: RankingInput) -> None:
        self.inner.start(ranking_input)
        candidates = ranking_input.candidates
        indices = []
        for prior in self.prior:
            knobs = knobs_over(prior, candidates.names)  # records from before a knob was added still count
            if knobs is not None:
                index = candidates.index_of(knobs)
                if index is not None and index not in indices:
                    indices.append(index)
        self._queue = indices
        self._given = set()
        self._seeded = bool(indices)

    def ask(self, n: int) -> list[int]:
        picked = self._queue[:n]
        self._queue = self._queue[n:]
        while len(picked) < n:
            batch = self.inner.ask(n - len(picked))
            if not batch:
                break
            picked.extend(i for i in batch if i not in self._given and i not in picked)
        self._given.update(picked)
        return picked

    def tell(self, index: int, ratio: float) -> None:
        self.inner.tell(index, ratio)
