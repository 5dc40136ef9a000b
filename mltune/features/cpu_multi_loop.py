"""Features of llvm-cpu multi-loop contraction candidates: per-loop `DoubleTilingExpert` tiles on a contraction with
several M or N loops or strided reads (a 1x1 convolution as IREE dispatches it at batch 1: output channels x
height x width x input channels, its image read with a step of 2 in a projection).

The features read a vector tile as a register tile of FMAs whose lanes run along one loop: the innermost loop of
the output that the tile spans (vector tile above 1), as IREE's contraction lowering broadcasts along the other
loops. Along that loop an operand is contiguous only if it is the operand's innermost dimension read with step 1;
any other read (the strided image, a weight whose innermost dimension is K) is a gather per vector, and a store
off the output's innermost loop is a scatter. Then, as for contractions: lane fill, accumulators against the
register file, FMAs per loaded element, idle cores in the last wave of workgroups, padding.
"""

from __future__ import annotations

import numpy as np

from mltune.emit.operand_types import operand_loops
from mltune.features.base import FeatureMatrix
from mltune.features.cpu import ceil_div, register_overflow
from mltune.features.cpu_reduction import per_loop_tiling_columns
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.cpu_reduction import parallel_knobs, reduction_knobs
from mltune.targets.cpu import CpuInfo


def lane_loop(output: tuple[int, ...], vectors: dict[int, np.ndarray]) -> np.ndarray:
    """Per candidate, the loop the SIMD lanes run along: the innermost loop of the `output` operand whose vector
    tile is above 1 (the output's innermost loop when none is)."""
    lane = np.full(len(next(iter(vectors.values()))), output[-1])
    chosen = np.zeros(len(lane), dtype=bool)
    for loop in reversed(output):
        pick = ~chosen & (vectors[loop] > 1)
        lane[pick], chosen = loop, chosen | pick
    return lane


def _contiguous_along(problem: Problem, loops: tuple[int, ...], loop: int) -> bool:
    """Whether an input whose dimensions walk `loops` is read along `loop` as its innermost dimension with step 1."""
    return loops[-1] == loop and (not problem.strides or problem.strides[loop] == 1)


def cpu_multi_loop_features(problem: Problem, cpu: CpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    col = candidates.column
    *inputs, output = operand_loops(problem)
    vectors = {loop: col(vec) for _, vec, loop in parallel_knobs(problem)}
    lane = lane_loop(output, vectors)
    lane_tile = np.select([lane == loop for loop in vectors], list(vectors.values()))
    lanes = max(1, cpu.native_vector_bytes // element_bytes(problem.out_type))
    vectors_per_lane_tile = ceil_div(lane_tile, lanes)
    tile = np.prod(list(vectors.values()), axis=0)
    accumulators = tile // lane_tile * vectors_per_lane_tile
    step = np.prod([col(red) for red, _ in reduction_knobs(problem)], axis=0)
    loaded = sum(np.prod([vectors[loop] for loop in loops if loop not in problem.k], axis=0) for loops in inputs) * step
    gathers = np.zeros(len(candidates))
    for loops in inputs:
        for loop in set(loops) - set(problem.k):
            if not _contiguous_along(problem, loops, loop):
                gathers = gathers + (lane == loop)
    macs = float(np.prod(problem.bounds, dtype=np.float64))
    columns = {
        "vector_lane_fill": lane_tile / (vectors_per_lane_tile * lanes),
        "gathered_inputs": gathers,
        "scattered_output": lane != output[-1],
        "accumulators": accumulators,
        "register_overflow": register_overflow(accumulators, vectors_per_lane_tile, cpu),
        "register_fill": (accumulators + vectors_per_lane_tile + 1) / cpu.vector_registers,
        "fma_per_load": tile * step / loaded,
        "fma_latency_cover": np.minimum(accumulators / (cpu.fma_units * cpu.fma_latency), 4.0),
        **per_loop_tiling_columns(problem, cpu, candidates),
        "log2_vector_tile": np.log2(tile),
        "log2_reduction_step": np.log2(step),
    }
    problem_level = {
        "log2_peak_cycles": np.log2(2 * macs / (cpu.cores * cpu.peak_flops_per_cycle)),
        "strided": bool(problem.strides),
        "input_bytes": element_bytes(problem.lhs_type),
        "log2_k": np.log2(np.prod(problem.sizes(problem.k))),
    }
    columns.update({name: np.full(len(candidates), value, dtype=np.float64) for name, value in problem_level.items()})
    return FeatureMatrix.from_columns(columns)
