"""Features and a first-order time estimate of GPU candidates without MMA (`gpu_simt_contraction`,
`gpu_simt_convolution`), each seen as a GEMM (`SimtGemm`; a convolution's K is its window times its channels).

Each thread keeps a `th_m x th_n` block of accumulators and, per K element, loads `th_m + th_n` operand elements for
`th_m * th_n` FMAs. A warp issues them on one SM sub-partition (SMSP), one instruction a cycle: an SM with fewer
warps in flight than SMSPs leaves FMA units idle (on the H100, one-warp workgroups ran slower with fewer of them per
SM: `docs/whole-models.md`). The threads of a warp that share an operand row or column read one copy of it (a
broadcast), so a warp's operand bytes are the distinct rows and columns it spans (shared memory when promoted, L1
otherwise). A workgroup reads `(wg_m + wg_n)` elements per K element from L2 for `wg_m * wg_n` FMAs; it waits a
memory latency per K tile, which the workgroups resident on an SM hide from each other. The busiest SM runs
ceil(workgroups / SMs) workgroups. Only datasheet rates and the knobs enter."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mltune.features.base import FeatureMatrix
from mltune.features.cpu import ceil_div, padding_waste, problem_features, wave_inefficiency
from mltune.features.gpu import MAX_SUBGROUPS_PER_CU
from mltune.features.gpu_throughput import GLOBAL_BYTES_PER_CYCLE, MEMORY_LATENCY_CYCLES, SHARED_BYTES_PER_CYCLE
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.gpu_simt_contraction import contraction_gemm
from mltune.spaces.gpu_simt_convolution import convolution_gemm
from mltune.spaces.simt import SimtGemm
from mltune.targets.gpu import GpuInfo

FMA_PER_CYCLE = 128  # f32 FMAs per SM and cycle (Ampere, Hopper; CDNA3 CUs likewise)
UNPROMOTED_READ_COST = 2.0  # an operand byte read through L1 instead of shared memory: its tags and misses
BASE_REGISTERS = 24  # addresses, indices and loop counters beside the accumulators and operands
GEMM_VIEWS = {
    "contraction": contraction_gemm,
    "convolution": convolution_gemm,
    "depthwise_convolution": convolution_gemm,
    "multi_loop_contraction": convolution_gemm,
}


def simt_gemm(problem: Problem, candidates: CandidateSet) -> SimtGemm:
    """A SIMT space's candidates as a GEMM, by the problem's op kind."""
    return GEMM_VIEWS[problem.op_kind](problem, candidates)


@dataclass(frozen=True)
class SimtEstimate:
    """Per candidate: estimated cycles of the busiest SM, registers per thread and workgroups resident per SM."""

    cycles: np.ndarray
    registers: np.ndarray
    resident: np.ndarray


def simt_estimate(
    problem: Problem, gpu: GpuInfo, candidates: CandidateSet, latency: float = MEMORY_LATENCY_CYCLES
) -> SimtEstimate:
    g = simt_gemm(problem, candidates)
    wg_m, wg_n, th_m, th_n, red_k, promote, threads = g.wg_m, g.wg_n, g.th_m, g.th_n, g.red_k, g.promote, g.threads
    in_bytes = element_bytes(problem.lhs_type)
    registers = th_m * th_n + th_m + th_n + BASE_REGISTERS + promote * (wg_m + wg_n) * red_k // threads
    shared = promote * (wg_m + wg_n) * red_k * in_bytes
    resident = np.minimum.reduce(
        [
            np.where(shared > 0, gpu.shared_memory_bytes // np.maximum(shared, 1), MAX_SUBGROUPS_PER_CU),
            gpu.registers_per_cu // np.maximum(registers * threads, 1),
            np.maximum(MAX_SUBGROUPS_PER_CU * max(gpu.subgroup_sizes) // threads, 1),
        ]
    )
    resident = np.maximum(resident, 1)
    per_sm = ceil_div(g.workgroups, gpu.cores)
    concurrent = np.minimum(resident, per_sm)
    # one K tile of one workgroup: a warp issues on one sub-partition (SMSP) one instruction a cycle, per thread and
    # K element an FMA per accumulator and a load per operand element; fewer warps than SMSPs leave lanes idle
    warps = threads / gpu.subgroup_sizes[0]
    issues = warps * (th_m * th_n + th_m + th_n) * red_k
    # the bytes a warp reads per K element: threads of a warp that share an operand row or column read one copy
    # (a broadcast), so it is the distinct rows and columns it spans (threads laid out N fastest) times the block
    across = np.minimum(wg_n // th_n, gpu.subgroup_sizes[0])
    reads = (
        warps
        * (gpu.subgroup_sizes[0] // across * th_m + across * th_n)
        * red_k
        * in_bytes
        * np.where(promote > 0, 1.0, UNPROMOTED_READ_COST)
    )
    global_bytes = (wg_m + wg_n) * red_k * in_bytes
    step = np.maximum(issues / np.minimum(gpu.simds_per_cu, warps), (reads + shared) / SHARED_BYTES_PER_CYCLE)
    # `concurrent` workgroups each take a step: they share the SMSPs, shared memory/L1 and L2, and none finishes
    # before its loads' latency and its own step
    together = np.maximum.reduce(
        [
            concurrent * issues / np.minimum(gpu.simds_per_cu, concurrent * warps),
            concurrent * (reads + shared) / SHARED_BYTES_PER_CYCLE,
            concurrent * global_bytes / GLOBAL_BYTES_PER_CYCLE,
            latency + step,
        ]
    )
    return SimtEstimate(per_sm * ceil_div(g.k, red_k) * together / concurrent, registers, resident)


def gpu_simt_features(problem: Problem, gpu: GpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    g = simt_gemm(problem, candidates)
    batch, m, n, k = g.batch, g.m, g.n, g.k
    wg_m, wg_n, th_m, th_n, workgroups = g.wg_m, g.wg_n, g.th_m, g.th_n, g.workgroups
    estimate = simt_estimate(problem, gpu, candidates)
    ideal = float(batch) * m * n * k / (FMA_PER_CYCLE * gpu.cores)
    return FeatureMatrix.from_columns(
        {
            "log2_wg_m": np.log2(wg_m),
            "log2_wg_n": np.log2(wg_n),
            "thread_elements": th_m * th_n,
            "thread_intensity": th_m * th_n / (th_m + th_n),
            "workgroup_intensity": wg_m * wg_n / (wg_m + wg_n),
            "log2_red_k": np.log2(g.red_k),
            "promote": g.promote,
            "threads": g.threads,
            "workgroups": workgroups,
            "busy_sms": np.minimum(1.0, workgroups / gpu.cores),
            "resident_workgroups": estimate.resident,
            "wave_inefficiency": wave_inefficiency(workgroups, gpu.cores * estimate.resident),
            "registers": estimate.registers,
            "padding_waste_m": padding_waste(m, wg_m),
            "padding_waste_n": padding_waste(n, wg_n),
            "estimate_efficiency": ideal / estimate.cycles,
            **problem_features(problem, (batch, m, n, k), len(candidates)),
        }
    )
