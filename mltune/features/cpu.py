"""Features of llvm-cpu contraction candidates, computed from the problem and the knobs (vectorised with numpy).

Each feature names one physical effect that can make a tile configuration fast or slow:
register pressure of the vector accumulators, SIMD lane use, loads per FMA, padding of
partial tiles, idle cores in the last wave of workgroups, and the working set of the
workgroup and vector tiles against the caches. Problem-level columns (sizes, element
bytes, layout) come last, so that one model can tell problems apart and generalise across them.
The target's resources (vector width and registers, caches, FMA units and latency, cores; see
`mltune.targets.cpu_table`) enter as ratios (`*_per_*`, fills, fits), so that one model can learn
from several CPUs and rank on one it never saw: a size that means different things on different cores
(accumulators, N in elements, footprints in bytes, workgroups) appears only in the target's units
(register file, vectors, cache sizes, cores), never also in absolute form, which a model would
otherwise learn from one CPU and misapply on another.
"""

from __future__ import annotations

import numpy as np

from mltune.features.base import FeatureMatrix
from mltune.frontend.problem import ELEMENT_BYTES, Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.targets.cpu import CpuInfo


def ceil_div(a, b):
    return -(-a // b)


def padding_waste(size: int, tile: np.ndarray) -> np.ndarray:
    """Fraction of the tiled extent that is padding: 1 - size / (ceil(size / tile) * tile)."""
    return 1.0 - size / (ceil_div(size, tile) * tile)


def wave_inefficiency(workgroups: np.ndarray, cores: int) -> np.ndarray:
    """Fraction of core slots left idle in the last wave of workgroups."""
    slots = ceil_div(workgroups, cores) * cores
    return (slots - workgroups) / slots


def gemm_sizes(problem: Problem) -> tuple[int, int, int, int]:
    """(batch, M, N, K) of a contraction: the product of its batch loops and its one M, N and K size."""
    (m,), (n,), (k,) = problem.sizes(problem.m), problem.sizes(problem.n), problem.sizes(problem.k)
    return int(np.prod(problem.sizes(problem.batch), dtype=np.int64)), m, n, k


def register_overflow(accumulators: np.ndarray, vectors_per_row: np.ndarray, cpu: CpuInfo) -> np.ndarray:
    """Vector registers missing for the accumulators, one row of RHS vectors and one broadcast LHS value."""
    return np.maximum(0, accumulators + vectors_per_row + 1 - cpu.vector_registers)


def target_relative_features(
    cpu: CpuInfo, accumulators: np.ndarray, vectors_per_row: np.ndarray, flops: float, rows: int
) -> dict[str, np.ndarray]:
    """Columns that read a candidate against the core it runs on, shared by contractions and convolutions."""
    return {
        "register_fill": (accumulators + vectors_per_row + 1) / cpu.vector_registers,
        # independent accumulators hide the FMA latency only when there are units x latency of them
        "fma_latency_cover": np.minimum(accumulators / (cpu.fma_units * cpu.fma_latency), 4.0),
        # the problem's size in ideal cycles of the whole CPU at its f32 peak
        "log2_peak_cycles": np.full(rows, np.log2(flops / (cpu.cores * cpu.peak_flops_per_cycle))),
    }


def problem_features(problem: Problem, dims: tuple[int, int, int, int], rows: int) -> dict[str, np.ndarray]:
    """Problem-level columns from the (batch, M, N, K) the candidates see: the same for every candidate of a
    problem (`rows` of them), they let one model span problems."""
    batch, m, n, k = dims
    columns = {
        "log2_m": np.log2(m),
        "log2_n": np.log2(n),
        "log2_k": np.log2(k),
        "log2_batch": np.log2(batch),
        "log2_flops": np.log2(2.0 * batch * m * n * k),
        # narrower inputs double the elements per load; a wider accumulator halves the lanes per FMA
        "input_bytes": element_bytes(problem.lhs_type),
        "accumulator_bytes": element_bytes(problem.out_type),
        # a transposed operand changes which loads are contiguous
        "lhs_transposed": problem.layout[0] == "t",
        "rhs_transposed": problem.layout[1] == "t",
    }
    return {name: np.full(rows, value, dtype=np.float64) for name, value in columns.items()}


def lowering_features(problem: Problem, candidates: CandidateSet) -> dict[str, np.ndarray]:
    """Which lowering a candidate takes (`mltune.spaces.cpu_data_tiling`; records and candidate sets from before the
    lowering was a knob are all plain) and what data tiling adds: packing both operands and unpacking the result,
    once per call, in bytes moved per flop (0 for the plain lowering)."""
    lowering = candidates.column("lowering") if "lowering" in candidates.names else np.zeros(len(candidates), np.int64)
    batch, m, n, k = gemm_sizes(problem)
    moved = 2 * batch * ((m * k + k * n) * ELEMENT_BYTES[problem.lhs_type] + m * n * ELEMENT_BYTES[problem.out_type])
    tiled = lowering > 0
    return {
        "data_tiled": tiled,
        "ukernel": lowering == 2,
        "pack_bytes_per_flop": np.where(tiled, moved / (2.0 * batch * m * n * k), 0.0),
    }


def cpu_contraction_features(problem: Problem, cpu: CpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    """Features of both lowerings alike: a data-tiled candidate's tile columns hold the mmt4d's tiles in elements."""
    batch, m, n, k = gemm_sizes(problem)
    wg_m, wg_n = candidates.column("wg_m"), candidates.column("wg_n")
    vec_m, vec_n, vec_k = candidates.column("vec_m"), candidates.column("vec_n"), candidates.column("vec_k")
    in_bytes = ELEMENT_BYTES[problem.lhs_type]
    acc_bytes = ELEMENT_BYTES[problem.out_type]
    lanes = cpu.native_vector_bytes // acc_bytes
    vectors_per_row = ceil_div(vec_n, lanes)
    accumulators = vec_m * vectors_per_row
    workgroups = batch * ceil_div(m, wg_m) * ceil_div(n, wg_n)
    footprint = (wg_m * k + k * wg_n) * in_bytes + wg_m * wg_n * acc_bytes
    # one vector tile streams vec_m rows of LHS and vec_n columns of RHS over the whole K
    vector_panel = (vec_m + vec_n) * k * in_bytes
    padded_area = ceil_div(m, wg_m) * wg_m * ceil_div(n, wg_n) * wg_n
    columns = {
        "tile_k_pow2": (vec_k & (vec_k - 1)) == 0,
        "vector_lane_fill": vec_n / (vectors_per_row * lanes),
        "register_overflow": register_overflow(accumulators, vectors_per_row, cpu),
        "vector_n_per_lanes": vec_n / lanes,
        "fma_per_load": vec_m * vec_n * vec_k / (vec_m * vec_k + vec_k * vec_n),
        # the CPU analogue of an MMA intrinsic's area / volume: elements touched (LHS, RHS and
        # accumulator faces) per multiply-add of one vector tile; lower means more reuse per element
        "vector_area_per_volume": (vec_m * vec_k + vec_k * vec_n + vec_m * vec_n) / (vec_m * vec_n * vec_k),
        "padding_waste_m": padding_waste(m, wg_m),
        "padding_waste_n": padding_waste(n, wg_n),
        "padding_waste_k": padding_waste(k, vec_k),
        # fraction of the computed output that is padding (both partial workgroup tiles together)
        "padding_waste_total": 1.0 - m * n / padded_area,
        # vector tiles that do not divide their workgroup tile leave remainder iterations
        "vector_remainder": padding_waste(wg_m, vec_m) + padding_waste(wg_n, vec_n),
        # below one, cores idle; far above one, per-workgroup overhead adds up
        "workgroups_per_core": workgroups / cpu.cores,
        "wave_inefficiency": wave_inefficiency(workgroups, cpu.cores),
        "workgroup_intensity": 2.0 * wg_m * wg_n * k / footprint,
        # panels re-read for every vector tile are cheap only while they stay in L1 / L2
        "vector_panel_fits_l1": vector_panel <= cpu.l1d_bytes,
        "workgroup_fits_l2": footprint <= cpu.l2_bytes,
        "vector_panel_per_l1": vector_panel / cpu.l1d_bytes,
        "workgroup_footprint_per_l2": footprint / cpu.l2_bytes,
        # the operands of all workgroups in flight at once (one per core) against the shared L3
        "wave_footprint_per_l3": footprint * np.minimum(workgroups, cpu.cores) / cpu.l3_bytes,
        "log2_wg_m": np.log2(wg_m),
        "log2_wg_n": np.log2(wg_n),
        "log2_vec_m": np.log2(vec_m),
        "log2_vec_k": np.log2(vec_k),
    }
    columns.update(
        target_relative_features(cpu, accumulators, vectors_per_row, 2.0 * batch * m * n * k, len(candidates))
    )
    columns.update(problem_features(problem, (batch, m, n, k), len(candidates)))
    columns.update(lowering_features(problem, candidates))
    return FeatureMatrix.from_columns(columns)
