"""The `VectorDistribute` pipeline's rules for GPU contractions and 2-D NHWC convolutions, over the knobs of
their spaces.

The candidates of both GPU pipelines share one set of knobs (`gpu_contraction` says why): the
workgroup tiles, MMA tiles per subgroup, the K tile in MMA-K units. VectorDistribute spells the same
tiling differently (read from IREE 3.13's own VectorDistribute configuration and its emitted
constraints, `LLVMGPUConstraintGenerator.cpp`): `subgroup_basis = [[count per loop], [0, 1, ...]]`
instead of a `subgroup` tile list, the `reduction` tile in elements, and operands promoted with
`promotion_types = [#iree_gpu.derived_thread_config, ...]`. It has no `padding`: every tile divides
its dimension. A convolution is tiled directly (no IGEMM), as IREE's own VectorDistribute convolution
configuration does: only its innermost M (output width), N (output channels) and K (input channels) loops
are the GEMM's; the batch and output-row loops take workgroup tile 1, the filter loops reduction tile 1.

IREE's emitted constraints are conjoined where the compiler emits them, less two that IREE's own
VectorDistribute configurations break (`breaks_iree_default`). Rules beyond IREE's emitted ones:
- each promoted operand tile is copied to shared memory by all threads with the layout IREE derives
  for it (`deriveThreadTileSizes` + `getDerivedThreadLayout`: 128-bit vectors along the tile's inner
  dimension, then threads over the inner and outer dimensions, each count dividing or divided by the
  threads left); where no such layout exists the compiler fails with `'vector.transfer_read' op
  failed to derive layout for promoted read-like op` (IREE's own constraints accept those tiles,
  e.g. a K tile of 160 with 128 threads);
- prefetching shared memory only exists on ROCm (`ROCDLPrefetchSharedMemory`): 0 or 2 stages there,
  0 on CUDA, where a stage count changes nothing.
"""

from __future__ import annotations

from typing import Callable

import z3

from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.iree_constraints import pins_prefetch
from mltune.spaces.subgroup_tiling import Derived
from mltune.targets.gpu import GpuInfo

PIPELINE = "VectorDistribute"
PREFETCH_STAGES = {"rocm": (0, 2), "cuda": (0,)}  # IREE's own VectorDistribute default is 0
LOAD_BITS = 128  # widest global load per thread
MAX_SUBGROUP_K = 32  # IREE: "sg_k <= 32"


def gemm_loops(problem: Problem) -> tuple[int, int, int]:
    """The loops VectorDistribute tiles as the GEMM's M, N and K: the innermost of each (a contraction has one)."""
    return problem.m[-1], problem.n[-1], problem.k[-1]


def vector_distribute_rules(
    problem: Problem, gpu: GpuInfo, var: Callable[[str], z3.ArithRef], derived: Derived
) -> list[z3.BoolRef]:
    """mltune's own model of what VectorDistribute accepts (beyond the rules both pipelines share); `var` gives
    the knobs by the contraction space's names (`wg_m`, `wg_n`, `red_k`, `prefetch`)."""
    m, n, k = (problem.bounds[loop] for loop in gemm_loops(problem))
    wg_m, wg_n, red_k = var("wg_m"), var("wg_n"), var("red_k")
    k_tile = red_k * derived.mma_k
    threads = derived.workgroup_size
    vector = LOAD_BITS // (8 * element_bytes(problem.lhs_type))
    # the operand tiles as read: K innermost unless the operand is transposed (`Problem.layout`; a convolution's
    # `nhwc_hwcf` reads as `nn`: channels innermost in the input, output channels in the filter)
    lhs = (wg_m, k_tile) if problem.layout[0] == "n" else (k_tile, wg_m)
    rhs = (wg_n, k_tile) if problem.layout[1] == "t" else (k_tile, wg_n)
    return [
        m % wg_m == 0,
        n % wg_n == 0,
        k % k_tile == 0,  # no padding
        red_k <= MAX_SUBGROUP_K,
        k_tile % derived.mma_m == 0,  # IREE: "red_k % mma_m == 0"
        (k_tile * wg_m) % threads == 0,
        (k_tile * wg_n) % threads == 0,  # IREE: "lhs_tile_elements must be divisible ..."
        thread_layout_exists(*lhs, threads, vector),
        thread_layout_exists(*rhs, threads, vector),
        z3.Or(*[var("prefetch") == stages for stages in PREFETCH_STAGES[gpu.api]]),
    ]


def _min(a: z3.ArithRef | int, b: z3.ArithRef | int) -> z3.ArithRef:
    return z3.If(a <= b, a, b)


def thread_layout_exists(outer: z3.ArithRef, inner: z3.ArithRef, threads: z3.ArithRef, vector: int) -> z3.BoolRef:
    """IREE derives a thread layout for copying an `outer` x `inner` tile with `threads` threads: each thread
    reads `element` contiguous values (up to a 128-bit vector), then the inner and the outer counts of
    such reads are spread over the threads left, each dividing or divided by them. Tiles here are at least
    one vector wide (MMA sizes), so IREE's collapsing of narrower dimensions never applies."""
    flat = outer * inner
    widest = _min(vector, flat / threads)
    element = z3.If(
        flat % threads != 0,
        _min(vector, inner),
        z3.If(z3.And(inner % widest != 0, widest % inner != 0), 1, _min(inner, widest)),
    )
    reads = inner / element
    left = z3.If(threads % reads == 0, threads / reads, 1)
    return z3.And(
        inner % element == 0,
        z3.Or(threads % reads == 0, reads % threads == 0),
        z3.Or(left % outer == 0, outer % left == 0),
    )


def breaks_iree_default(assertion: z3.BoolRef, variables: set[str]) -> bool:
    """IREE's emitted assertions that its own VectorDistribute configurations break, left out: the prefetch pin
    (its default is 0) and "wg_size_x <= wg_m OR wg_size_x <= wg_n", which IREE's source calls a heuristic
    filter to narrow the search (its default for a 256x384 matmul, 64x64 tiles with 256 threads, fails it)."""
    return pins_prefetch(assertion, variables) or (z3.is_or(assertion) and "wg_size_x" in variables)


def emitted_names(problem: Problem, var: Callable[[str], z3.ArithRef], derived: Derived) -> dict[str, z3.ArithRef]:
    """IREE's VectorDistribute loop knobs over mltune's: its reduction tile is in elements."""
    mi, ni, ki = gemm_loops(problem)
    return {f"wg_{mi}": var("wg_m"), f"wg_{ni}": var("wg_n"), f"red_{ki}": var("red_k") * derived.mma_k}


def vector_distribute_levels(
    problem: Problem, wg_m: int, wg_n: int, k_tile: int, count_m: int, count_n: int
) -> dict[str, list]:
    """IREE's `workgroup`, `reduction` (in elements) and `subgroup_basis` lists: batch and outer M loops
    tile 1 (workgroup), outer K loops (a convolution's filter loops) 1 (reduction)."""
    loops = len(problem.bounds)
    workgroup, reduction, counts = [0] * loops, [0] * loops, [1] * loops
    for loop in problem.batch + problem.m[:-1]:
        workgroup[loop] = 1
    for loop in problem.k[:-1]:
        reduction[loop] = 1
    mi, ni, ki = gemm_loops(problem)
    workgroup[mi], workgroup[ni], reduction[ki] = wg_m, wg_n, k_tile
    counts[mi], counts[ni] = count_m, count_n
    return {"workgroup": workgroup, "reduction": reduction, "subgroup_basis": [counts, list(range(loops))]}
