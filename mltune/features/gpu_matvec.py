"""Features of GPU matvec candidates (IREE's VectorDistribute reduction config), from the knobs alone.

A matvec reads every weight element once and does one multiply-add with it, so it runs at the speed of
memory: what matters is how the loads are shaped and how many bytes are in flight. Each feature names one
such effect: the bytes per load instruction, the bytes a subgroup reads contiguously from the weight,
workgroups that keep every CU/SM busy and how many fit at once, the weight bytes a CU has in flight per
step, the serial K steps, and the cost of combining partial sums (lane shuffles, a shared-memory
reduction across subgroups).
"""

from __future__ import annotations

import numpy as np

from mltune.features.base import FeatureMatrix
from mltune.features.cpu import gemm_sizes, problem_features, wave_inefficiency
from mltune.features.gpu import MAX_SUBGROUPS_PER_CU
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.gpu_matvec import row_loop
from mltune.targets.gpu import GpuInfo

COALESCED_BYTES = 128  # a subgroup's load covering this many contiguous bytes uses whole cache lines


def weight_inner_loop(problem: Problem) -> int:
    """The innermost loop of the larger input (the weight of a matvec): the direction its loads are contiguous."""
    batch, m, n, _ = gemm_sizes(problem)
    (k_loop,) = problem.k
    if m > n:  # the LHS (M x K, or K x M when transposed) is the weight
        return k_loop if problem.layout[0] == "n" else problem.m[0]
    return k_loop if problem.layout[1] == "t" else problem.n[0]


def gpu_matvec_features(problem: Problem, gpu: GpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    c = candidates.column
    batch, m, n, k = gemm_sizes(problem)
    in_bytes = element_bytes(problem.rhs_type)
    rows, k_tile, vector, lanes_k = c("rows"), c("k_tile"), c("vector"), c("lanes_k")
    sg_k, sg_r, sg_size = c("sg_k"), c("sg_r"), c("sg_size")
    lanes_r = sg_size // lanes_k
    subgroups = sg_k * sg_r
    threads = subgroups * sg_size
    rows_per_thread = rows // (lanes_r * sg_r)
    k_per_thread = k_tile // (lanes_k * sg_k)
    inner = weight_inner_loop(problem)
    contiguous = {problem.k[0]: lanes_k * vector, row_loop(problem): lanes_r}.get(inner, np.ones_like(rows))
    workgroups = batch * m * n // rows
    resident = np.maximum(MAX_SUBGROUPS_PER_CU // subgroups, 1)
    per_cu = np.minimum(workgroups / gpu.cores, resident)
    return FeatureMatrix.from_columns({
        "load_bytes": vector * in_bytes,
        "coalesced_bytes": np.minimum(contiguous * in_bytes, 4 * COALESCED_BYTES),
        "lanes_k": lanes_k,
        "lanes_r": lanes_r,
        "subgroups_k": sg_k,
        "subgroups_r": sg_r,
        "threads": threads,
        "log2_rows": np.log2(rows),
        "rows_per_thread": rows_per_thread,
        "k_per_thread": k_per_thread,
        "thread_tile_bytes": rows_per_thread * k_per_thread * in_bytes,
        "log2_k_tile": np.log2(k_tile),
        "k_steps": k // k_tile,
        "workgroups": workgroups,
        "busy_cus": np.minimum(1.0, workgroups / gpu.cores),
        "resident_workgroups": resident,
        "waves": workgroups / (gpu.cores * resident),
        "wave_inefficiency": wave_inefficiency(workgroups, gpu.cores * resident),
        "bytes_in_flight_per_cu": per_cu * threads * rows_per_thread * k_per_thread * in_bytes,
        "shuffle_steps": np.log2(lanes_k),
        "subgroup_reduction": sg_k > 1,
        "sg_size": sg_size,
        **problem_features(problem, (batch, m, n, k), len(candidates)),
    })
