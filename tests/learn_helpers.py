"""Synthetic dataset records for the learning tests: real candidate spaces, made-up times.

The times follow a known rule (padding and register spills cost time, whole SIMD vectors
save it), so a learner has something real to find; they are not measurements.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mltune.dataset import Record, RecordWriter
from mltune.features.cpu import cpu_contraction_features
from mltune.problem import Problem
from mltune.search.cpu_contraction import PIPELINE, CpuContraction
from mltune.targets.cpu import CpuInfo

MAPS = ("affine_map<(d0, d1, d2) -> (d0, d2)>", "affine_map<(d0, d1, d2) -> (d2, d1)>",
        "affine_map<(d0, d1, d2) -> (d0, d1)>")
SYNTHETIC_CPU = CpuInfo("synthetic", 32, 2)  # unknown to mltune, so learned as the default 32-byte vectors
SHAPES = ((64, 96, 48), (100, 200, 64), (48, 128, 96))


def matmul_problem(m: int, n: int, k: int, lhs: str = "f32", out: str = "f32") -> Problem:
    """A plain matmul `Problem`, as `read_root_ops` would describe it."""
    return Problem("contraction", "linalg.matmul", (m, n, k), (), (0,), (1,), (2,), lhs, lhs, out, MAPS, "nn")


def synthetic_ratios(problem: Problem, candidates) -> np.ndarray:
    """Synthetic time / baseline ratios from a fixed rule over the features."""
    f = cpu_contraction_features(problem, SYNTHETIC_CPU, candidates)
    return (0.6 + 0.8 * f["padding_waste_total"] + 0.4 * (f["register_overflow"] > 0)
            + 0.3 * (1 - f["vector_lane_fill"]) + 0.2 * f["wave_inefficiency"])


def write_synthetic_dataset(root: Path, arch: str = "synthetic", per_problem: int = 40, seed: int = 0) -> Path:
    """Synthetic records: `per_problem` random candidates of each shape in SHAPES, two rounds each, plus one
    compile error per problem; written as `root/arch/<shape>.jsonl`. Returns `root`."""
    rng = np.random.default_rng(seed)
    for m, n, k in SHAPES:
        problem = matmul_problem(m, n, k)
        candidates = CpuContraction(problem, SYNTHETIC_CPU, None).candidates()
        picked = rng.choice(len(candidates), per_problem + 1, replace=False)
        ratios = synthetic_ratios(problem, candidates)
        writer = RecordWriter(root / arch / f"mm_{m}x{n}x{k}.jsonl")
        for position, index in enumerate(picked):
            failed = position == per_problem
            ratio = float(ratios[index])
            writer.append(Record(
                arch=arch, device="synthetic-host/local-task/2cores", problem=problem.to_record(),
                pipeline=PIPELINE, knobs=candidates.knobs(int(index)), status="compile_error" if failed else "ok",
                time_us=[] if failed else [100.0 * ratio, 101.0 * ratio],
                baseline_us=[] if failed else [100.0, 101.0], ranker="shuffle", position=position,
                run_id="synthetic", level="model",
            ))
        writer.close()
    return root


def train_synthetic_model(root: Path) -> Path:
    """Train the forest of arch `synthetic` on synthetic records into `root/models/`; returns `root`."""
    from mltune.learn.train import train

    train(write_synthetic_dataset(root / "datasets"), "synthetic", root / "models")
    return root
