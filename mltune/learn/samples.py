"""Dataset records grouped by problem into samples: each measured candidate once, with its ratio to IREE's default.

Features are recomputed here from the stored `problem` + `knobs`, so a new feature needs no
new measurement. A candidate measured several times (in several runs) is labelled with the
median of its records' ratios; records that failed (compile or run errors, timeouts) are
counted and left out: they carry no time to learn from.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

import numpy as np

from mltune.dataset import read_records, record_ratio
from mltune.errors import UserError
from mltune.features import FeatureMatrix, extractor_for
from mltune.problem import Problem
from mltune.search.candidate import CandidateSet
from mltune.targets.cpu import CpuInfo

# Records name the CPU (`arch`) but not its vector width: IREE's native_vector_size per LLVM CPU name.
AVX512_CPUS = ("skylake-avx512", "cascadelake", "cooperlake", "cannonlake", "icelake-client", "icelake-server",
               "tigerlake", "rocketlake", "sapphirerapids", "emeraldrapids", "graniterapids", "znver4", "znver5")
AVX2_CPUS = ("haswell", "broadwell", "skylake", "alderlake", "raptorlake", "meteorlake", "znver1", "znver2", "znver3")
ARCH_VECTOR_BYTES = {**{name: 64 for name in AVX512_CPUS}, **{name: 32 for name in AVX2_CPUS}}
DEFAULT_VECTOR_BYTES = 32


@dataclass(frozen=True)
class ProblemSamples:
    """One problem's measured candidates (one row each) and their time / baseline ratios (< 1 is faster)."""

    key: str
    problem: Problem
    target: CpuInfo
    pipeline: str
    candidates: CandidateSet
    ratios: np.ndarray

    def features(self) -> FeatureMatrix:
        return extractor_for(self.pipeline)(self.problem, self.target, self.candidates)


@dataclass(frozen=True)
class Dataset:
    """Everything `train` and `evaluate` read from `datasets/ARCH/`."""

    arch: str
    problems: list[ProblemSamples]
    failed_records: int
    data_sha256: str  # of the records used, in a canonical order: names the training data in a model's sidecar
    compilers: tuple[str, ...]  # IREE versions the records were measured with


def cpu_of(arch: str, device: str) -> CpuInfo:
    """The CPU facts features need: vector width from the arch name, cores from the record's device id."""
    cores = re.search(r"/(\d+)cores$", device)
    vector_bytes = ARCH_VECTOR_BYTES.get(arch, DEFAULT_VECTOR_BYTES)  # train prints the width it assumed
    return CpuInfo(arch, vector_bytes, int(cores.group(1)) if cores else len(os.sched_getaffinity(0)))


def _problem_samples(records: list[dict[str, Any]]) -> ProblemSamples:
    first = records[0]
    extractor_for(first["pipeline"])  # refuse pipelines without features before reading their problems
    problem = Problem.from_record(first["problem"])
    by_knobs: dict[tuple, list[float]] = defaultdict(list)
    names = tuple(sorted(first["knobs"]))
    for record in records:
        by_knobs[tuple(int(record["knobs"][name]) for name in names)].append(record_ratio(record))
    rows = sorted(by_knobs)
    return ProblemSamples(
        key=problem.key, problem=problem, target=cpu_of(first["arch"], first.get("device", "")),
        pipeline=first["pipeline"], candidates=CandidateSet(names, np.array(rows, dtype=np.int64).reshape(len(rows), -1)),
        ratios=np.array([median(by_knobs[row]) for row in rows]),
    )


def load_dataset(dataset_dir: Path, arch: str) -> Dataset:
    """Read `dataset_dir/arch/*.jsonl` and group the successful records by (pipeline, problem)."""
    folder = dataset_dir / arch
    if not folder.is_dir():
        raise UserError(f"no dataset for arch {arch!r}: {folder} is not a directory")
    ok: dict[str, list[dict[str, Any]]] = defaultdict(list)
    failed = malformed = 0
    for record in read_records(folder):
        if not all(isinstance(record.get(name), dict) for name in ("problem", "knobs")) or "pipeline" not in record:
            malformed += 1
            continue
        if record_ratio(record) == float("inf"):
            failed += 1
            continue
        ok[record["pipeline"] + json.dumps(record["problem"], sort_keys=True)].append(record)
    if not ok:
        raise UserError(f"{folder} holds no successful measurements (status ok with candidate and baseline times)")
    if malformed:
        print(f"warning: {folder}: skipped {malformed} records without problem, knobs or pipeline", file=sys.stderr)
    try:
        problems = sorted((_problem_samples(group) for group in ok.values()), key=lambda s: s.key)
    except (TypeError, KeyError, ValueError) as err:
        raise UserError(f"{folder}: a record's problem or knobs cannot be read ({err!r})") from None
    except UserError as err:
        raise UserError(f"cannot learn from the records of arch {arch!r}: {err}") from None
    digest = hashlib.sha256()
    for line in sorted(json.dumps(r, sort_keys=True) for group in ok.values() for r in group):
        digest.update(line.encode() + b"\n")
    compilers = tuple(sorted({str(r.get("compiler", "unknown")) for group in ok.values() for r in group}))
    return Dataset(arch, problems, failed, digest.hexdigest(), compilers)
