"""Features of GPU contraction candidates (TileAndFuse or VectorDistribute), from the knobs alone (vectorised with numpy).

Each names one effect that makes a tile configuration fast or slow on a GPU: the MMA
intrinsic's arithmetic intensity, subgroups that fill a CU's SIMDs, a power-of-two K tile
(the SHARK tuner's sort key), wave quantization of workgroups over the CUs/SMs, shared
memory per workgroup and the occupancy it allows, accumulator registers per thread, and
padding of the MMA-aligned dimensions. The target's resources (CUs/SMs, SIMDs, shared memory, threads
per workgroup) also enter as ratios, so that one model can learn from several GPUs.
"""

from __future__ import annotations

import numpy as np

from mltune.features.base import FeatureMatrix
from mltune.features.cpu import ceil_div, gemm_sizes, padding_waste, problem_features, wave_inefficiency
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.targets.gpu import GpuInfo

ACCUMULATOR_REGISTER_LIMIT = (
    256  # 32-bit registers per thread (architected VGPRs on CDNA, the per-thread cap on NVIDIA)
)
MAX_SUBGROUPS_PER_CU = 32  # resident subgroups per CU/SM (CDNA: 8 waves x 4 SIMDs; Ampere and Hopper: 64 warps)


def _is_pow2(x: np.ndarray) -> np.ndarray:
    return (x & (x - 1)) == 0


def gemm_view(problem: Problem, candidates: CandidateSet) -> tuple[tuple[int, int, int, int], tuple[np.ndarray, ...]]:
    """(batch, M, N, K) and the M/N workgroup and subgroup tiles; a convolution is seen as its implicit GEMM
    (M = batch x output image, N = output channels, K = filter window x input channels)."""
    c = candidates.column
    size = lambda loops: int(np.prod(problem.sizes(loops), dtype=np.int64))  # noqa: E731
    if problem.op_kind in ("convolution", "multi_loop_contraction"):  # a 1x1 convolution without its batch
        dims = (1, size(problem.batch + problem.m), size(problem.n), size(problem.k))
        return dims, (c("wg_b") * c("wg_oh") * c("wg_ow"), c("wg_oc"), c("sg_oh") * c("sg_ow"), c("sg_oc"))
    return gemm_sizes(problem), (c("wg_m"), c("wg_n"), c("sg_m"), c("sg_n"))


def gpu_contraction_features(problem: Problem, gpu: GpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    (batch, m, n, k), (wg_m, wg_n, sg_m, sg_n) = gemm_view(problem, candidates)
    c = candidates.column
    red_k = c("red_k")
    mma_m, mma_n, mma_k, sg_size = c("mma_m"), c("mma_n"), c("mma_k"), c("sg_size")
    subgroups = (wg_m // (sg_m * mma_m)) * (wg_n // (sg_n * mma_n))
    threads = subgroups * sg_size
    k_tile = red_k * mma_k
    shared = element_bytes(problem.lhs_type) * (wg_m + wg_n) * k_tile
    workgroups = batch * ceil_div(m, wg_m) * ceil_div(n, wg_n)
    resident = np.minimum(gpu.shared_memory_bytes // np.maximum(shared, 1), MAX_SUBGROUPS_PER_CU // subgroups)
    resident = np.maximum(resident, 1)
    return FeatureMatrix.from_columns(
        {
            "tile_k_pow2": _is_pow2(k_tile),
            "subgroups": subgroups,
            "subgroups_fill_simds": subgroups % gpu.simds_per_cu == 0,
            "mma_intensity": mma_m * mma_n * mma_k / (mma_m * mma_k + mma_n * mma_k),
            "subgroup_intensity": (sg_m * mma_m) * (sg_n * mma_n) / (sg_m * mma_m + sg_n * mma_n),
            "workgroup_intensity": wg_m * wg_n / (wg_m + wg_n),
            "workgroups": workgroups,
            "waves": workgroups / (gpu.cores * resident),
            "wave_inefficiency": wave_inefficiency(workgroups, gpu.cores * resident),
            "shared_memory_kib": shared / 1024.0,
            "resident_workgroups": resident,
            "occupancy": np.minimum(resident * subgroups, MAX_SUBGROUPS_PER_CU) / MAX_SUBGROUPS_PER_CU,
            "accumulator_registers": wg_m * wg_n / threads,
            "register_overflow": np.maximum(0, wg_m * wg_n / threads - ACCUMULATOR_REGISTER_LIMIT),
            "padding_waste_m": padding_waste(m, wg_m),
            "padding_waste_n": padding_waste(n, wg_n),
            "padding_waste_k": padding_waste(k, k_tile),
            "threads": threads,
            "shared_memory_fraction": shared / gpu.shared_memory_bytes,
            "workgroups_per_cu": workgroups / gpu.cores,
            "subgroups_per_simd": subgroups / gpu.simds_per_cu,
            "threads_per_limit": threads / gpu.max_threads,
            "log2_wg_m": np.log2(wg_m),
            "log2_wg_n": np.log2(wg_n),
            "log2_k_tile": np.log2(k_tile),
            "prefetch": c("prefetch"),
            "no_bank_fix": c("no_bank_fix"),
            "waves_per_eu": c("waves_per_eu"),
            # records from before VectorDistribute, and convolutions, have no such knob: TileAndFuse
            "vector_distribute": c("vector_distribute")
            if "vector_distribute" in candidates.names
            else np.zeros(len(candidates)),
            **problem_features(problem, (batch, m, n, k), len(candidates)),
        }
    )
