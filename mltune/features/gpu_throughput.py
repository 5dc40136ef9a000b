"""A first-order time estimate of a GPU contraction (or convolution, as its implicit GEMM) candidate.

Each workgroup walks the K loop in steps of its K tile: it loads the step's operand tiles from global memory (into
registers, then shared memory: IREE 3.13 has no asynchronous copies on CUDA), waits a memory latency, then runs the
step's MMAs, reading the operands back from shared memory. One SM/CU runs `c` such workgroups at once, so a step
costs it the most of: its MMAs and shared-memory traffic (the SM's own throughput), the latency spread over the `c`
workgroups that hide it, and its global-memory bytes (the SM's share of L2 bandwidth). The busiest SM runs
ceil(workgroups / SMs) workgroups, each ceil(K / K tile) steps: that product is the estimate. `c` is limited by
shared memory, registers and subgroup slots, and by the workgroups the SM gets at all.

Only hardware facts and the candidate's tiles enter; the rates below are datasheet figures, the same for every
problem. Registers beyond the per-thread limit spill to local memory on every MMA, which costs more than any tile
gains (`docs/gpu-ceiling.md`) and which no time estimate of this kind prices, so `spills` is reported beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mltune.features.cpu import ceil_div
from mltune.features.gpu import MAX_SUBGROUPS_PER_CU, gemm_view
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.targets.gpu import GpuInfo

MMA_MACS_PER_CYCLE = 1024  # dense f16 MACs per SM/CU and cycle: A100 and H100 (mma.sync), MI300X alike
SHARED_BANKS = 32  # of 4 bytes each, on NVIDIA and AMD
SHARED_BYTES_PER_CYCLE = 4 * SHARED_BANKS  # shared memory (LDS) bandwidth per SM/CU
GLOBAL_BYTES_PER_CYCLE = 64  # L2 to one SM/CU
MEMORY_LATENCY_CYCLES = 600  # a global load's round trip, which a workgroup's K step waits for


@dataclass(frozen=True)
class Estimate:
    """Per candidate: estimated cycles of the busiest SM/CU, registers per thread, and whether they spill."""

    cycles: np.ndarray
    registers: np.ndarray
    spills: np.ndarray
    resident: np.ndarray  # workgroups one SM/CU holds at once


def bank_conflicts(row_bytes: np.ndarray, rows: int = 8) -> np.ndarray:
    """How many ways the 4-byte reads of `rows` rows (one MMA fragment: 8 rows of 4 lanes) collide in 32 banks of 4
    bytes when each row is `row_bytes` long and unpadded."""
    row_bytes = np.asarray(row_bytes, dtype=np.int64)
    starts = np.stack([(r * row_bytes // 4) % SHARED_BANKS // 4 for r in range(rows)], axis=-1)
    distinct = np.array([len(np.unique(row)) for row in starts.reshape(-1, rows)]).reshape(row_bytes.shape)
    return rows / distinct


def contraction_estimate(
    problem: Problem, gpu: GpuInfo, candidates: CandidateSet, latency: float = MEMORY_LATENCY_CYCLES
) -> Estimate:
    (batch, m, n, k), (wg_m, wg_n, sg_m, sg_n) = gemm_view(problem, candidates)
    c = candidates.column
    mma_m, mma_n, mma_k, sg_size = c("mma_m"), c("mma_n"), c("mma_k"), c("sg_size")
    in_bytes, acc_bytes = element_bytes(problem.lhs_type), element_bytes(problem.out_type)
    k_tile = c("red_k") * mma_k
    subgroups = (wg_m // (sg_m * mma_m)) * (wg_n // (sg_n * mma_n))
    threads = subgroups * sg_size
    # 32-bit registers per thread: the accumulators, and the larger of what a K step holds at one time: its operand
    # tiles on their way from global to shared memory, or one MMA K step of the subgroup's operand fragments
    shared = (wg_m + wg_n) * k_tile * in_bytes
    fragments = (sg_m * mma_m + sg_n * mma_n) * mma_k * in_bytes * subgroups
    registers = (wg_m * wg_n * acc_bytes + np.maximum(shared, fragments)) / (4 * threads)
    spills = registers > gpu.registers_per_thread
    resident = np.minimum.reduce(
        [
            gpu.shared_memory_bytes // np.maximum(shared, 1),
            gpu.registers_per_cu // np.maximum(np.ceil(registers) * threads, 1),
            np.maximum(MAX_SUBGROUPS_PER_CU // subgroups, 1),
        ]
    )
    resident = np.maximum(resident, 1)
    workgroups = batch * ceil_div(m, wg_m) * ceil_div(n, wg_n)
    per_sm = ceil_div(workgroups, gpu.cores)
    concurrent = np.minimum(resident, per_sm)
    # one K step of one workgroup: its MMAs (a subgroup issues to its own SIMD's matrix unit: fewer subgroups than
    # SIMDs leave units idle), its shared-memory stores and every subgroup's operand reads (serialised by bank
    # conflicts unless IREE pads the rows), and its global loads
    reads = subgroups * (sg_m * mma_m + sg_n * mma_n) * k_tile * in_bytes
    shared_traffic = shared + reads * np.where(c("no_bank_fix") > 0, bank_conflicts(k_tile * in_bytes), 1)
    macs = wg_m * wg_n * k_tile
    alone = np.maximum(
        macs / (MMA_MACS_PER_CYCLE * np.minimum(1, subgroups / gpu.simds_per_cu)),
        shared_traffic / SHARED_BYTES_PER_CYCLE,
    )
    # `concurrent` workgroups each take a step: the SM's matrix units, shared memory and L2 share serve them all,
    # and none finishes before its loads' latency and its own step
    together = np.maximum.reduce(
        [
            concurrent * macs / (MMA_MACS_PER_CYCLE * np.minimum(1, concurrent * subgroups / gpu.simds_per_cu)),
            concurrent * shared_traffic / SHARED_BYTES_PER_CYCLE,
            concurrent * shared / GLOBAL_BYTES_PER_CYCLE,
            latency + alone,
        ]
    )
    return Estimate(per_sm * ceil_div(k, k_tile) * together / concurrent, registers, spills, resident)
