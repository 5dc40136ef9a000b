"""Features of llvm-cpu reduction candidates (`DoubleTilingExpert` on a reducing generic), from the problem and knobs.

A vector tile reduces `rows` = prod(vec_p) rows at once, `red_r` elements of each per step, into `rows` partial
sums, then the fused elementwise op (a normalisation, softmax's division) reads those rows again, whole, in steps
of its inner tile; the rows stay in L1 between the two passes only if they fit. The SIMD lanes run along the reduced operand's innermost
loop: the reduction loop when the rows are contiguous (layer norm, softmax, NCHW pooling), else the innermost
parallel loop (NHWC pooling). So: lane fill along that loop, the registers a step holds, independent partial sums
against the add latency, the whole-row tile against L1, idle cores in the last wave of workgroups, and padding.
"""

from __future__ import annotations

import numpy as np

from mltune.emit.operand_types import operand_loops
from mltune.features.base import FeatureMatrix
from mltune.features.cpu import ceil_div, padding_waste, wave_inefficiency
from mltune.frontend.problem import Problem, element_bytes, reduction_inputs
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.cpu_reduction import ROW_BYTES, parallel_knobs, reduction_knobs
from mltune.targets.cpu import CpuInfo


def rows_contiguous(problem: Problem) -> bool:
    """Whether the reduced operand's innermost dimension is a reduction loop (its rows are contiguous)."""
    reduced = next(loops for loops in operand_loops(problem) if set(loops) & set(problem.k))
    return reduced[-1] in problem.k


def per_loop_tiling_columns(problem: Problem, cpu: CpuInfo, candidates: CandidateSet) -> dict[str, np.ndarray]:
    """Columns of any per-loop tiling (reductions, multi-loop contractions): padding of partial workgroup and
    reduction tiles, vector remainders, and the workgroups against the cores."""
    col = candidates.column
    workgroups = np.ones(len(candidates), dtype=np.int64)
    parallel_waste, remainder = np.zeros(len(candidates)), np.zeros(len(candidates))
    for wg, vec, loop in parallel_knobs(problem):
        size = problem.bounds[loop]
        workgroups = workgroups * ceil_div(size, col(wg))
        parallel_waste = parallel_waste + padding_waste(size, col(wg))
        remainder = remainder + padding_waste(col(wg), col(vec))
    reduction_waste = sum(
        (padding_waste(problem.bounds[loop], col(red)) for red, loop in reduction_knobs(problem)),
        np.zeros(len(candidates)),
    )
    return {
        "padding_waste_reduction": reduction_waste,
        "padding_waste_parallel": parallel_waste,
        "vector_remainder": remainder,
        "workgroups_per_core": workgroups / cpu.cores,
        "wave_inefficiency": wave_inefficiency(workgroups, cpu.cores),
        "log2_workgroups": np.log2(workgroups),
    }


def cpu_reduction_features(problem: Problem, cpu: CpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    col = candidates.column
    in_bytes = element_bytes(problem.lhs_type)
    lanes = max(1, cpu.native_vector_bytes // in_bytes)
    rows = np.prod([col(vec) for _, vec, _ in parallel_knobs(problem)], axis=0)
    step, row_elements = rows, 1
    for red, loop in reduction_knobs(problem):
        step, row_elements = step * col(red), row_elements * problem.bounds[loop]
    contiguous = rows_contiguous(problem)
    lane_tile = col(reduction_knobs(problem)[-1][0]) if contiguous else col(parallel_knobs(problem)[-1][1])
    vectors_per_lane_tile = ceil_div(lane_tile, lanes)
    step_registers = step // lane_tile * vectors_per_lane_tile  # the step's loaded vectors (also its partial sums)
    total_rows = int(np.prod([problem.bounds[loop] for loop in problem.m]))
    columns = {
        "vector_lane_fill": lane_tile / (vectors_per_lane_tile * lanes),
        "step_registers": step_registers,
        "register_fill": step_registers / cpu.vector_registers,
        "register_overflow": np.maximum(0, 2 * step_registers - cpu.vector_registers),  # loads and partial sums
        # independent partial sums hide the add latency only when there are units x latency of them
        "latency_cover": np.minimum(step_registers / (cpu.fma_units * cpu.fma_latency), 4.0),
        "row_tile_per_l1": rows * row_elements * max(ROW_BYTES, in_bytes) / cpu.l1d_bytes,
        **per_loop_tiling_columns(problem, cpu, candidates),
        "log2_rows": np.log2(rows),
        "log2_lane_tile": np.log2(lane_tile),
    }
    problem_level = {
        "log2_total_rows": np.log2(total_rows),
        "log2_row_elements": np.log2(row_elements),
        "input_bytes": in_bytes,
        "rows_contiguous": contiguous,
        "inputs": reduction_inputs(problem),
        # the bytes the whole reduction reads, in L2s of the target
        "reduced_bytes_per_l2": total_rows * row_elements * in_bytes / cpu.l2_bytes,
    }
    columns.update({name: np.full(len(candidates), value, dtype=np.float64) for name, value in problem_level.items()})
    return FeatureMatrix.from_columns(columns)
