"""Features of llvm-cpu contraction candidates, computed from the knobs alone (vectorised with numpy).

Each feature names one physical effect that can make a tile configuration fast or slow:
register pressure of the vector accumulators, SIMD lane use, loads per FMA, padding of
partial tiles, idle cores in the last wave of workgroups, and the workgroup's memory
footprint and arithmetic intensity.
"""

from __future__ import annotations

import numpy as np

from mltune.features.base import FeatureMatrix
from mltune.problem import Problem
from mltune.search.candidate import CandidateSet
from mltune.targets.cpu import CpuInfo

ELEMENT_BYTES = {"f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i8": 1}
VECTOR_REGISTERS = 32  # zmm0-31 on AVX-512 (and ymm0-31 with AVX-512VL)


def _ceil_div(a, b):
    return -(-a // b)


def padding_waste(size: int, tile: np.ndarray) -> np.ndarray:
    """Fraction of the tiled extent that is padding: 1 - size / (ceil(size / tile) * tile)."""
    return 1.0 - size / (_ceil_div(size, tile) * tile)


def wave_inefficiency(workgroups: np.ndarray, cores: int) -> np.ndarray:
    """Fraction of core slots left idle in the last wave of workgroups."""
    slots = _ceil_div(workgroups, cores) * cores
    return (slots - workgroups) / slots


def cpu_contraction_features(problem: Problem, cpu: CpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    (m,), (n,), (k,) = problem.sizes(problem.m), problem.sizes(problem.n), problem.sizes(problem.k)
    batch = int(np.prod(problem.sizes(problem.batch), dtype=np.int64))
    wg_m, wg_n = candidates.column("wg_m"), candidates.column("wg_n")
    vec_m, vec_n, vec_k = candidates.column("vec_m"), candidates.column("vec_n"), candidates.column("vec_k")
    in_bytes = ELEMENT_BYTES[problem.lhs_type]
    acc_bytes = ELEMENT_BYTES[problem.out_type]
    lanes = cpu.native_vector_bytes // acc_bytes
    vectors_per_row = _ceil_div(vec_n, lanes)
    accumulators = vec_m * vectors_per_row
    workgroups = batch * _ceil_div(m, wg_m) * _ceil_div(n, wg_n)
    footprint = (wg_m * k + k * wg_n) * in_bytes + wg_m * wg_n * acc_bytes
    return FeatureMatrix.from_columns({
        "tile_k_pow2": (vec_k & (vec_k - 1)) == 0,
        "vector_lane_fill": vec_n / (vectors_per_row * lanes),
        "accumulator_registers": accumulators,
        # accumulators + one row of RHS vectors + one broadcast LHS value must fit the register file
        "register_overflow": np.maximum(0, accumulators + vectors_per_row + 1 - VECTOR_REGISTERS),
        "fma_per_load": vec_m * vec_n * vec_k / (vec_m * vec_k + vec_k * vec_n),
        "vector_volume": vec_m * vec_n * vec_k,
        "padding_waste_m": padding_waste(m, wg_m),
        "padding_waste_n": padding_waste(n, wg_n),
        "padding_waste_k": padding_waste(k, vec_k),
        # vector tiles that do not divide their workgroup tile leave remainder iterations
        "vector_remainder": padding_waste(wg_m, vec_m) + padding_waste(wg_n, vec_n),
        "workgroups": workgroups,
        "wave_inefficiency": wave_inefficiency(workgroups, cpu.cores),
        "workgroup_intensity": 2.0 * wg_m * wg_n * k / footprint,
        "workgroup_footprint_kib": footprint / 1024.0,
        "log2_wg_m": np.log2(wg_m),
        "log2_wg_n": np.log2(wg_n),
        "log2_vec_m": np.log2(vec_m),
        "log2_vec_n": np.log2(vec_n),
        "log2_vec_k": np.log2(vec_k),
    })
