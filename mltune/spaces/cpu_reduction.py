"""The llvm-cpu `DoubleTilingExpert` space for reductions and normalisations (softmax, layer norm, RMS norm, pooling),
and for multi-loop contractions (`MULTI_LOOP_CONTRACTION`: 1x1 convolutions as IREE dispatches them at batch 1, strided
or not), which IREE configures with the same per-loop tiles.

IREE 3.13 configures a reducing `linalg.generic` (`KernelDispatch.cpp`, its default generic-op config) with three
tiling levels: `distribution` over the parallel loops (workgroups; reduction loops 0), `vector_common_parallel`
over the parallel loops (the rows one vector tile reduces together) and `vector_reduction` over the reduction loops
(the vector step along a row). E.g. a 128 x 768 layer-norm row sum on AVX-512: `[16, 0]`, `[8, 0]`, `[0, 16]`; a
12 x 128 x 128 softmax: `[4, 32, 0]`, `[1, 8, 0]`, `[0, 0, 16]`. Knobs: per parallel loop `wg_p<i>` and `vec_p<i>`
(loops in order, `i` counts parallel loops), per reduction loop `red_r<j>`.

IREE then gives the ops fused around the root (the accumulator's fill, the normalising elementwise op, softmax's
max) tiles derived from the root's, among them `vector_inner_parallel` along the reduced dimension. A tuning spec's
`compilation_info` on the root replaces that whole step: the fused ops keep no configuration of their own and are
vectorised over whole rows of the vector tile, unless the spec configures them too, as it does a normalisation
after the root (`mltune.emit.reduction_match`; softmax's max before it stays unconfigured). So, for candidates to
compile (IREE's large-vector check, `native_vector_size` x 512 bytes; docs/cpu-reductions.md):
- a vector tile is at most its workgroup tile (a contraction's: short of twice it, masked; tiles need not divide their
  loops: remainders are peeled or masked);
- the root's vector tile, `prod(vec_p) x prod(red_r)` elements, stays under the limit;
- while a fused op stays unconfigured (`whole_rows`), so does a whole-row tile, `prod(vec_p) x prod(reduction
  sizes)` in f32.
"""

from __future__ import annotations

from mltune.frontend.problem import NORMALISED, REDUCTION, Problem, element_bytes, reduction_inputs
from mltune.spaces.cpu_contraction import (
    VECTOR_BYTES_LIMIT_FACTOR,
    CpuContraction,
    vector_tile_values,
    workgroup_tile_values,
)
from mltune.spaces.space import Knob, Space
from mltune.targets.cpu import CpuInfo

PIPELINE = "DoubleTilingExpert"
MAX_WORKGROUP_TILE = 1024
MAX_VECTOR_TILE = {"parallel": 32, "reduction": 128}
ROW_BYTES = 4  # the fused elementwise op computes in f32 (or wider inputs' type)
LEVELS = ("distribution", "vector_common_parallel", "vector_reduction")


def parallel_loops(problem: Problem) -> tuple[int, ...]:
    """The op's parallel loops, in order (a reduction's `m`; a contraction's batch, M and N loops)."""
    return tuple(sorted(problem.batch + problem.m + problem.n))


def parallel_knobs(problem: Problem) -> list[tuple[str, str, int]]:
    """(workgroup knob, vector knob, loop) of each parallel loop."""
    return [(f"wg_p{i}", f"vec_p{i}", loop) for i, loop in enumerate(parallel_loops(problem))]


def reduction_knobs(problem: Problem) -> list[tuple[str, int]]:
    """(knob, loop) of each reduction loop."""
    return [(f"red_r{j}", loop) for j, loop in enumerate(problem.k)]


def whole_rows(problem: Problem) -> bool:
    """Whether a fused op may stay unconfigured and be vectorised over whole rows (conservatively): always, unless
    the spec configures the consumers (`NORMALISED`) and no other reduction is fused before the root (softmax's
    max, which reads the rows as the root does, is why a second input counts). A contraction's consumers have no
    loop the root does not tile."""
    if problem.op_kind != REDUCTION:
        return False
    return not (problem.layout.endswith(NORMALISED) and reduction_inputs(problem) == 1)


def widest_bytes(problem: Problem) -> int:
    return max(element_bytes(element) for element in problem.operand_types)


def cpu_reduction_space(problem: Problem, cpu: CpuInfo) -> Space:
    knobs = []
    for wg, vec, loop in parallel_knobs(problem):
        size = problem.bounds[loop]
        knobs += [
            Knob(wg, workgroup_tile_values(size, MAX_WORKGROUP_TILE)),
            Knob(vec, vector_tile_values(size, MAX_VECTOR_TILE["parallel"])),
        ]
    knobs += [
        Knob(red, vector_tile_values(problem.bounds[loop], MAX_VECTOR_TILE["reduction"]))
        for red, loop in reduction_knobs(problem)
    ]
    space = Space(knobs, [])
    v = space.var
    limit = cpu.native_vector_bytes * VECTOR_BYTES_LIMIT_FACTOR
    rows = 1
    for _, vec, _ in parallel_knobs(problem):
        rows = rows * v(vec)
    step = rows
    row_elements = 1
    for red, loop in reduction_knobs(problem):
        step = step * v(red)
        row_elements *= problem.bounds[loop]
    # a contraction's vector tile may pass its workgroup tile short of twice it, masked, as IREE's own default of a
    # ResNet 1x1 convolution does (workgroup 7, vector 8); a reduction's stays within it
    if problem.op_kind == REDUCTION:
        constraints = [v(vec) <= v(wg) for wg, vec, _ in parallel_knobs(problem)]
    else:
        constraints = [v(vec) < 2 * v(wg) for wg, vec, _ in parallel_knobs(problem)]
    constraints.append(step * widest_bytes(problem) < limit)
    if whole_rows(problem):
        constraints.append(rows * row_elements * max(ROW_BYTES, widest_bytes(problem)) < limit)
    space.constraints = tuple(constraints)
    return space


def tile_lists(problem: Problem, knobs: dict[str, int]) -> dict[str, list[int]]:
    """The three tiling levels, one entry per loop of the op."""
    levels = {name: [0] * len(problem.bounds) for name in LEVELS}
    for wg, vec, loop in parallel_knobs(problem):
        levels["distribution"][loop] = knobs[wg]
        levels["vector_common_parallel"][loop] = knobs[vec]
    for red, loop in reduction_knobs(problem):
        levels["vector_reduction"][loop] = knobs[red]
    return levels


def knobs_of_levels(problem: Problem, levels: dict[str, list[int]]) -> dict[str, int]:
    """The knobs that describe a lowering config's tiling levels (the inverse of `tile_lists`)."""
    knobs = {}
    for wg, vec, loop in parallel_knobs(problem):
        knobs |= {wg: levels["distribution"][loop], vec: levels["vector_common_parallel"][loop]}
    return knobs | {red: levels["vector_reduction"][loop] for red, loop in reduction_knobs(problem)}


class CpuReduction(CpuContraction):
    """The `Configurator` for a reduction on llvm-cpu with `DoubleTilingExpert` (IREE data-tiles no reduction)."""

    pipeline = PIPELINE
    has_data_tiled_lowering = False

    build_space = staticmethod(cpu_reduction_space)  # (problem, cpu) -> Space
    levels = staticmethod(tile_lists)  # (problem, knobs) -> tiling levels


class CpuMultiLoopContraction(CpuReduction):
    """The `Configurator` for a multi-loop contraction on llvm-cpu: IREE tiles it per loop as it does a reduction
    (`distribution` and `vector_common_parallel` over the parallel loops, `vector_reduction` over K), and does not
    data-tile it."""
