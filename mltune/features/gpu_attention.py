"""Features of GPU VectorDistribute attention candidates, from the knobs alone (vectorised with numpy).

Each names one effect on a flash-attention kernel: the intrinsics' MACs per loaded element,
workgroups that fill the CUs (batch x query tiles x value tiles), the QK^T product and softmax
recomputed once per value-head tile, shared memory for the Q, K and V tiles and the occupancy it
allows, and the registers holding the S tile and the output accumulator.
"""

from __future__ import annotations

import numpy as np

from mltune.features.base import FeatureMatrix
from mltune.features.cpu import ceil_div, wave_inefficiency
from mltune.features.gpu import ACCUMULATOR_REGISTER_LIMIT, MAX_SUBGROUPS_PER_CU
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.targets.gpu import GpuInfo


def _intensity(m: np.ndarray, n: np.ndarray, k: np.ndarray) -> np.ndarray:
    return m * n * k / (m * k + n * k)


def attention_registers(problem: Problem, candidates: CandidateSet) -> np.ndarray:
    """32-bit registers per thread a candidate holds through its K2 loop: the f32 S tile and its f16 copy P, the f32
    output accumulator, and the query tile (read once, kept for every K2 step)."""
    c = candidates.column
    (k1,) = problem.sizes(problem.k)
    q_bytes = element_bytes(problem.operand_types[0])
    m_tile, n_tile, red_k2 = c("m_tile"), c("n_tile"), c("red_k2")
    threads = c("sg_m") * c("sg_n") * c("sg_size")
    return (m_tile * red_k2 * (4 + 2) + m_tile * n_tile * 4 + m_tile * k1 * q_bytes) / (4 * threads)


def gpu_attention_features(problem: Problem, gpu: GpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    c = candidates.column
    batch = int(np.prod(problem.sizes(problem.batch), dtype=np.int64))
    (m,), (n,), (k1,) = problem.sizes(problem.m), problem.sizes(problem.n), problem.sizes(problem.k)
    m_tile, n_tile, red_k2 = c("m_tile"), c("n_tile"), c("red_k2")
    pv_m, pv_n, pv_k, qk_k = c("pv_mma_m"), c("pv_mma_n"), c("pv_mma_k"), c("qk_mma_k")
    subgroups = c("sg_m") * c("sg_n")
    threads = subgroups * c("sg_size")
    q_bytes, k_bytes, v_bytes = (element_bytes(t) for t in problem.operand_types[:3])
    shared = q_bytes * m_tile * k1 + k_bytes * red_k2 * k1 + v_bytes * red_k2 * n_tile
    workgroups = batch * ceil_div(m, m_tile) * ceil_div(n, n_tile)
    resident = np.maximum(np.minimum(gpu.shared_memory_bytes // shared, MAX_SUBGROUPS_PER_CU // subgroups), 1)
    registers = (m_tile * red_k2 + m_tile * n_tile) / threads  # f32 S tile and output accumulator per thread
    return FeatureMatrix.from_columns(
        {
            "qk_mma_intensity": _intensity(pv_m, pv_n, qk_k),
            "pv_mma_intensity": _intensity(pv_m, pv_n, pv_k),
            "qk_mma_k": qk_k,
            "subgroups": subgroups,
            "subgroups_fill_simds": subgroups % gpu.simds_per_cu == 0,
            "workgroups": workgroups,
            "waves": workgroups / (gpu.cores * resident),
            "wave_inefficiency": wave_inefficiency(workgroups, gpu.cores * resident),
            "qk_recomputed": ceil_div(n, n_tile),
            "shared_memory_kib": shared / 1024.0,
            "resident_workgroups": resident,
            "occupancy": np.minimum(resident * subgroups, MAX_SUBGROUPS_PER_CU) / MAX_SUBGROUPS_PER_CU,
            "accumulator_registers": registers,
            "register_overflow": np.maximum(0, registers - ACCUMULATOR_REGISTER_LIMIT),
            "log2_m_tile": np.log2(m_tile),
            "log2_n_tile": np.log2(n_tile),
            "log2_red_k2": np.log2(red_k2),
            "red_k2_pow2": (red_k2 & (red_k2 - 1)) == 0,
            "waves_per_eu": c("waves_per_eu"),
        }
    )
