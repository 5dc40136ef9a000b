"""Synthetic dataset records for the learning tests: real candidate spaces, made-up times.

The times follow a known rule (padding and register spills cost time, whole SIMD vectors
save it; on GPUs, idle SMs in the last wave and low occupancy cost time), so a learner has
something real to find; they are not measurements.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from mltune.features.cpu import cpu_contraction_features
from mltune.features.cpu_convolution import cpu_convolution_features
from mltune.features.gpu import gpu_contraction_features
from mltune.features.gpu_matvec import gpu_matvec_features
from mltune.frontend.problem import Problem
from mltune.records.dataset import Record, RecordWriter
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.cpu_contraction import PIPELINE, CpuContraction
from mltune.spaces.cpu_convolution import PIPELINE as CONV_PIPELINE
from mltune.spaces.cpu_convolution import CpuConvolution
from mltune.spaces.gpu_contraction import GpuContraction
from mltune.spaces.gpu_matvec import GpuMatvec
from mltune.spaces.vector_distribute import PIPELINE as VECTOR_DISTRIBUTE
from mltune.targets import TargetFacts
from mltune.targets.cpu import CpuInfo
from mltune.targets.gpu import GpuInfo, MmaShape
from mltune.targets.stored import facts_to_record

MAPS = (
    "affine_map<(d0, d1, d2) -> (d0, d2)>",
    "affine_map<(d0, d1, d2) -> (d2, d1)>",
    "affine_map<(d0, d1, d2) -> (d0, d1)>",
)
SYNTHETIC_CPU = CpuInfo("synthetic", 32, 2)  # unknown to mltune, so learned as the default 32-byte vectors
SHAPES = ((64, 96, 48), (100, 200, 64), (48, 128, 96))
# a made-up CUDA GPU: 100 SMs, 100 KiB shared memory, one f16 MMA intrinsic
SYNTHETIC_GPU = GpuInfo(
    "cuda",
    "synthetic-gpu",
    "",
    (32,),
    4,
    100,
    1024,
    (1024, 1024, 64),
    100 * 1024,
    (MmaShape("NV_MMA_SYNC_F32_16x8x16_F16", 16, 8, 16, "f16", "f16", "f32"),),
    0,
)
GPU_SHAPES = ((256, 384, 512), (128, 256, 256), (512, 128, 192))


def matmul_problem(m: int, n: int, k: int, lhs: str = "f32", out: str = "f32") -> Problem:
    """A plain matmul `Problem`, as `read_root_ops` would describe it."""
    return Problem("contraction", "linalg.matmul", (m, n, k), (), (0,), (1,), (2,), lhs, lhs, out, MAPS, "nn")


def synthetic_ratios(problem: Problem, candidates) -> np.ndarray:
    """Synthetic time / baseline ratios from a fixed rule over the features."""
    f = cpu_contraction_features(problem, SYNTHETIC_CPU, candidates)
    return (
        0.6
        + 0.8 * f["padding_waste_total"]
        + 0.4 * (f["register_overflow"] > 0)
        + 0.3 * (1 - f["vector_lane_fill"])
        + 0.2 * f["wave_inefficiency"]
    )


def synthetic_gpu_ratios(problem: Problem, gpu: GpuInfo, candidates: CandidateSet) -> np.ndarray:
    """Synthetic GPU time / baseline ratios from a fixed rule over the GPU features."""
    f = gpu_contraction_features(problem, gpu, candidates)
    return (
        0.6
        + 0.8 * (f["padding_waste_m"] + f["padding_waste_n"])
        + 0.4 * (f["register_overflow"] > 0)
        + 0.5 * f["wave_inefficiency"]
        + 0.3 * (1 - f["occupancy"])
    )


def _write_problem(
    path: Path,
    arch: str,
    facts: TargetFacts,
    problem: Problem,
    pipeline_of: Callable[[dict], str],
    candidates: CandidateSet,
    ratios: np.ndarray,
    picked: np.ndarray,
    store_target: bool,
) -> None:
    """One problem's records: every picked candidate measured in two rounds, the last one a compile error;
    each record names its candidate's pipeline."""
    writer = RecordWriter(path)
    for position, index in enumerate(picked):
        failed = position == len(picked) - 1
        ratio = float(ratios[index])
        writer.append(
            Record(
                arch=arch,
                device=f"synthetic-host/device/{facts.cores}cores",
                problem=problem.to_record(),
                pipeline=pipeline_of(candidates.knobs(int(index))),
                knobs=candidates.knobs(int(index)),
                status="compile_error" if failed else "ok",
                time_us=[] if failed else [100.0 * ratio, 101.0 * ratio],
                baseline_us=[] if failed else [100.0, 101.0],
                ranker="shuffle",
                position=position,
                run_id="synthetic",
                level="model",
                target=facts_to_record(facts) if store_target else None,
            )
        )
    writer.close()


def write_synthetic_dataset(root: Path, arch: str = "synthetic", per_problem: int = 40, seed: int = 0) -> Path:
    """Synthetic CPU records: `per_problem` random candidates of each shape in SHAPES, two rounds each, plus one
    compile error per problem; written as `root/arch/<shape>.jsonl` without target facts. Returns `root`."""
    rng = np.random.default_rng(seed)
    for m, n, k in SHAPES:
        problem = matmul_problem(m, n, k)
        candidates = CpuContraction(problem, SYNTHETIC_CPU, None).candidates()
        picked = rng.choice(len(candidates), per_problem + 1, replace=False)
        _write_problem(
            root / arch / f"mm_{m}x{n}x{k}.jsonl",
            arch,
            SYNTHETIC_CPU,
            problem,
            lambda _: PIPELINE,
            candidates,
            synthetic_ratios(problem, candidates),
            picked,
            store_target=False,
        )
    return root


def write_synthetic_gpu_dataset(
    root: Path,
    problems: list[Problem],
    gpu: GpuInfo = SYNTHETIC_GPU,
    store_target: bool = True,
    per_problem: int = 40,
    seed: int = 0,
) -> Path:
    """Synthetic records of `gpu` (arch `gpu.arch`; TileAndFuse and VectorDistribute candidates), as
    `write_synthetic_dataset` writes CPU ones; `store_target=False` writes them as schema 1 did, without the
    target's facts. Returns `root`."""
    rng = np.random.default_rng(seed)
    for problem in problems:
        configurator = GpuContraction(problem, gpu, None)
        candidates = configurator.candidates()
        picked = rng.choice(len(candidates), per_problem + 1, replace=False)
        _write_problem(
            root / gpu.arch / f"{problem.key}.jsonl",
            gpu.arch,
            gpu,
            problem,
            configurator.pipeline_of,
            candidates,
            synthetic_gpu_ratios(problem, gpu, candidates),
            picked,
            store_target,
        )
    return root


def conv_problem(n: int, oh: int, ow: int, oc: int, ic: int) -> Problem:
    """A 3x3 NHWC convolution `Problem` (stride and dilation 1), as `read_root_ops` would describe it."""
    return Problem(
        "convolution",
        "linalg.generic",
        (n, oh, ow, oc, 3, 3, ic),
        (0,),
        (1, 2),
        (3,),
        (4, 5, 6),
        "f32",
        "f32",
        "f32",
        (),
        "nhwc_hwcf",
        filter_loops=(4, 5),
        strides=(1, 1),
        dilations=(1, 1),
    )


def synthetic_conv_ratios(problem: Problem, candidates: CandidateSet) -> np.ndarray:
    """Synthetic CPU convolution time / baseline ratios from a fixed rule over the convolution features."""
    f = cpu_convolution_features(problem, SYNTHETIC_CPU, candidates)
    return (
        0.6
        + 0.8 * (f["padding_waste_pixels"] + f["padding_waste_oc"])
        + 0.4 * (f["register_overflow"] > 0)
        + 0.3 * (1 - f["vector_lane_fill"])
        + 0.2 * f["wave_inefficiency"]
    )


def write_synthetic_conv_records(
    root: Path, problems: list[Problem], arch: str = "synthetic", per_problem: int = 40, seed: int = 0
) -> Path:
    """Synthetic CPU convolution records of `problems`, as `write_synthetic_dataset` writes matmul ones."""
    rng = np.random.default_rng(seed)
    for problem in problems:
        candidates = CpuConvolution(problem, SYNTHETIC_CPU, None).candidates()
        picked = rng.choice(len(candidates), per_problem + 1, replace=False)
        _write_problem(
            root / arch / f"{problem.key}.jsonl",
            arch,
            SYNTHETIC_CPU,
            problem,
            lambda _: CONV_PIPELINE,
            candidates,
            synthetic_conv_ratios(problem, candidates),
            picked,
            store_target=False,
        )
    return root


def matvec_problem(n: int, k: int) -> Problem:
    """A 1 x N x K f16 matvec with an N x K weight, as `read_root_ops` describes one IREE configured as a reduction."""
    maps = (MAPS[0], "affine_map<(d0, d1, d2) -> (d1, d2)>", MAPS[2])
    return Problem("matvec", "linalg.matmul", (1, n, k), (), (0,), (1,), (2,), "f16", "f16", "f32", maps, "nt")


def write_synthetic_matvec_records(
    root: Path, problems: list[Problem], gpu: GpuInfo = SYNTHETIC_GPU, per_problem: int = 40, seed: int = 0
) -> Path:
    """Synthetic matvec records of `gpu`: faster with coalesced 16-byte loads and busy SMs (a made-up rule)."""
    rng = np.random.default_rng(seed)
    for problem in problems:
        candidates = GpuMatvec(problem, gpu, None).candidates()
        f = gpu_matvec_features(problem, gpu, candidates)
        ratios = 0.7 + 0.3 * (f["coalesced_bytes"] < 128) + 0.2 * (f["load_bytes"] < 16) + 0.4 * (1 - f["busy_cus"])
        picked = rng.choice(len(candidates), per_problem + 1, replace=False)
        _write_problem(
            root / gpu.arch / f"{problem.key}.jsonl",
            gpu.arch,
            gpu,
            problem,
            lambda _: VECTOR_DISTRIBUTE,
            candidates,
            ratios,
            picked,
            store_target=True,
        )
    return root


def train_synthetic_model(root: Path) -> Path:
    """Train the forest of arch `synthetic` on synthetic matmul records into `root/models/`; returns `root`."""
    from mltune.learn.train import train

    train(write_synthetic_dataset(root / "datasets"), "synthetic", root / "models", force=True)
    return root


def relative_ratios(problem: Problem, cpu: CpuInfo, candidates: CandidateSet) -> np.ndarray:
    """Synthetic ratios from a rule over target-relative features only (register file fill, SIMD lane fill, padding,
    idle cores): the same rule on two CPUs, so a model that reads the features relative to the target transfers."""
    f = cpu_contraction_features(problem, cpu, candidates)
    return (
        0.6
        + 0.8 * f["padding_waste_total"]
        + 0.5 * (f["register_fill"] > 1)
        + 0.4 * (1 - f["vector_lane_fill"])
        + 0.2 * f["wave_inefficiency"]
    )


def write_synthetic_cpu_arch(root: Path, cpu: CpuInfo, shapes=SHAPES, per_problem: int = 40, seed: int = 0) -> Path:
    """Synthetic records of `cpu` (arch `cpu.arch`, its facts stored) with `relative_ratios`. Returns `root`."""
    rng = np.random.default_rng(seed)
    for m, n, k in shapes:
        problem = matmul_problem(m, n, k)
        candidates = CpuContraction(problem, cpu, None).candidates()
        picked = rng.choice(len(candidates), per_problem + 1, replace=False)
        _write_problem(
            root / cpu.arch / f"mm_{m}x{n}x{k}.jsonl",
            cpu.arch,
            cpu,
            problem,
            lambda _: PIPELINE,
            candidates,
            relative_ratios(problem, cpu, candidates),
            picked,
            store_target=True,
        )
    return root
