"""Dataset records grouped by problem into samples: each measured candidate once, with its ratio to IREE's default.

Features are recomputed here from the stored `problem` + `knobs`, so a new feature needs no
new measurement. A candidate measured several times (in several runs, or re-measured as a finalist) is labelled with
the median over all its records' rounds (`pooled_ratio`); records that failed (compile or run errors, timeouts) are
counted and left out: they carry no time to learn from.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mltune.errors import UserError
from mltune.execution.measurement import TimingPlan
from mltune.features import FeatureMatrix, extractor_for, model_kind
from mltune.frontend.problem import Problem
from mltune.learn.holdout import check_holdout, read_holdout
from mltune.rankers.base import RankingInput
from mltune.records.dataset import knobs_over, pooled_ratio, read_records, record_ratio
from mltune.spaces.candidate import CandidateSet
from mltune.targets import TargetFacts
from mltune.targets.stored import ResolvedFacts, facts_to_record, record_facts

SCREENING_ROUNDS = TimingPlan().rounds  # what one screening measures; a finalist's re-measure has 9 or more


@dataclass(frozen=True)
class ProblemSamples:
    """One problem's measured candidates (one row each) and their time / baseline ratios (< 1 is faster)."""

    key: str
    problem: Problem
    target: TargetFacts
    target_origin: str  # stored in the records, or how they were rebuilt (`mltune.targets.stored`)
    pipelines: tuple[str, ...]  # the pipelines its candidates use (GPU contractions: one or both)
    candidates: CandidateSet
    ratios: np.ndarray
    rounds: tuple[int, ...] = ()  # per candidate, the rounds its label pools (a finalist's re-measure: 9 or more)

    @property
    def best_rounds(self) -> int:
        """The rounds the best candidate's label rests on (0: not known): 3 is one screening, a best that a
        re-measure never checked."""
        return self.rounds[int(np.argmin(self.ratios))] if self.rounds else 0

    @property
    def model_kind(self) -> str:
        """The name of the model that learns this problem (`mltune.features.model_kind`)."""
        return model_kind(self.problem, self.target, self.candidates)

    def features(self) -> FeatureMatrix:
        return extractor_for(self.problem, self.target)(self.problem, self.target, self.candidates)

    def ranking_input(self) -> RankingInput:
        """What a ranker sees of this problem when it replays the records."""
        return RankingInput(self.problem, self.target, self.candidates)


@dataclass(frozen=True)
class Dataset:
    """Everything `train` and `evaluate` read from `datasets/ARCH/`."""

    arch: str
    problems: list[ProblemSamples]
    failed_records: int
    data_sha256: str  # of the records used, in a canonical order: names the training data in a model's sidecar
    compilers: tuple[str, ...]  # IREE versions the records were measured with
    holdout: list[ProblemSamples] = field(default_factory=list)  # kept out of training for good (`holdout.json`)


def _problem_samples(records: list[dict[str, Any]], target: ResolvedFacts, key_suffix: str = "") -> ProblemSamples:
    """One problem's records on one target, whatever pipelines they name: one row per distinct candidate."""
    problem = Problem.from_record(records[0]["problem"])
    pipelines = tuple(sorted({record["pipeline"] for record in records}))
    extractor_for(problem, target.facts, pipelines)  # refuse pipelines without features before reading knobs
    by_knobs: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    names = tuple(sorted({name for record in records for name in record["knobs"]}))
    for record in records:
        knobs = knobs_over(record["knobs"], names)
        if knobs is None:
            raise ValueError(
                f"the records of {problem.key} name different knobs: {sorted(record['knobs'])} among {list(names)}"
            )
        by_knobs[tuple(int(knobs[name]) for name in names)].append(record)
    rows = sorted(by_knobs)
    return ProblemSamples(
        key=problem.key + key_suffix,
        problem=problem,
        target=target.facts,
        target_origin=target.origin,
        pipelines=pipelines,
        candidates=CandidateSet(names, np.array(rows, dtype=np.int64).reshape(len(rows), -1)),
        ratios=np.array([pooled_ratio(by_knobs[row]) for row in rows]),
        rounds=tuple(sum(len(record["time_us"]) for record in by_knobs[row]) for row in rows),
    )


class _FactsCache:
    """Every record's resolved facts, each distinct stored target read and each old (arch, device) rebuilt once."""

    def __init__(self) -> None:
        self._seen: dict[str, ResolvedFacts] = {}

    def __call__(self, record: dict[str, Any]) -> ResolvedFacts:
        key = json.dumps([record.get("target"), record["arch"], record.get("device", "")], sort_keys=True)
        if key not in self._seen:
            self._seen[key] = record_facts(record)
        return self._seen[key]


def _samples_of_groups(
    groups: dict[tuple[str, TargetFacts], list[dict[str, Any]]], origins: dict[TargetFacts, str]
) -> list[ProblemSamples]:
    """One `ProblemSamples` per (problem, facts) group; a problem measured on targets with different
    facts is one group per target, its key suffixed with a short hash of the facts."""
    per_problem = Counter(problem for problem, _ in groups)
    samples = []
    for (problem, facts), records in groups.items():
        suffix = ""
        if per_problem[problem] > 1:
            suffix = "@" + hashlib.sha256(json.dumps(facts_to_record(facts), sort_keys=True).encode()).hexdigest()[:8]
        samples.append(_problem_samples(records, ResolvedFacts(facts, origins[facts]), suffix))
    return sorted(samples, key=lambda s: s.key)


def load_dataset(dataset_dir: Path, arch: str) -> Dataset:
    """Read `dataset_dir/arch/*.jsonl` and group the successful records by (problem, target facts): a problem's
    candidates of several pipelines are one group, as the loop ranks them together. The problems named in the
    folder's `holdout.json` go to `holdout`, never to `problems`, and their records are not in `data_sha256`."""
    folder = dataset_dir / arch
    if not folder.is_dir():
        have = (
            sorted(p.name for p in dataset_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
            if dataset_dir.is_dir()
            else []
        )
        raise UserError(
            f"no dataset for arch {arch!r}: {folder} is not a directory (archs with data in {dataset_dir}: "
            f"{', '.join(have) or 'none'}; --dataset-dir picks another folder)"
        )
    ok: dict[tuple[str, TargetFacts], list[dict[str, Any]]] = defaultdict(list)
    origins: dict[TargetFacts, str] = {}
    facts_of = _FactsCache()
    failed = malformed = 0
    for record in read_records(folder):
        if not all(isinstance(record.get(name), dict) for name in ("problem", "knobs")) or "pipeline" not in record:
            malformed += 1
            continue
        if record_ratio(record) == float("inf"):
            failed += 1
            continue
        try:
            resolved = facts_of(record)
        except (TypeError, KeyError, ValueError) as err:
            raise UserError(f"{folder}: a record's target facts cannot be read ({err!r})") from None
        except UserError as err:
            raise UserError(f"{folder}: cannot rebuild the target facts of records without them: {err}") from None
        origins.setdefault(resolved.facts, resolved.origin)
        ok[json.dumps(record["problem"], sort_keys=True), resolved.facts].append(record)
    if not ok:
        raise UserError(f"{folder} holds no successful measurements (status ok with candidate and baseline times)")
    if malformed:
        print(f"warning: {folder}: skipped {malformed} records without problem, knobs or pipeline", file=sys.stderr)
    try:
        problems = _samples_of_groups(ok, origins)
    except (TypeError, KeyError, ValueError) as err:
        raise UserError(f"{folder}: a record's problem or knobs cannot be read ({err!r})") from None
    except UserError as err:
        raise UserError(f"cannot learn from the records of arch {arch!r}: {err}") from None
    holdout = read_holdout(folder)
    check_holdout(folder, holdout, {p.problem.key for p in problems})
    trained = {key: group for key, group in ok.items() if Problem.from_record(group[0]["problem"]).key not in holdout}
    digest = hashlib.sha256()
    for line in sorted(json.dumps(r, sort_keys=True) for group in trained.values() for r in group):
        digest.update(line.encode() + b"\n")
    compilers = tuple(sorted({str(r.get("compiler", "unknown")) for group in ok.values() for r in group}))
    return Dataset(
        arch,
        [p for p in problems if p.problem.key not in holdout],
        failed,
        digest.hexdigest(),
        compilers,
        [p for p in problems if p.problem.key in holdout],
    )
