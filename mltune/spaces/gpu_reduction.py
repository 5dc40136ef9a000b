"""The GPU space for reductions and normalisations (`Problem.op_kind == "reduction"`: softmax, layer norm, RMS norm
dispatches) on ROCm and CUDA: IREE's `VectorDistribute` reduction config (`mltune.spaces.reduction_config`).

IREE 3.13 configures a reducing `linalg.generic` with one reduction loop with that config where the loop's length is
a multiple of the subgroup size (rows of 64, 128 and 768 seen; `benchmarks/gpu/reduction_defaults.py`): one row per
workgroup, the row split over every lane of a few subgroups (a 128 x 768 layer norm on gfx942: `partial_reduction`
768, `thread` 4, 64 lanes, 3 subgroups; on sm_90: 32 lanes, 6 subgroups, so the subgroup counts along K are not only
powers of two here). It gives the same lists to the reductions fused before the root (softmax's max) and, with
`serial` for `partial_reduction`, to the normalising op after it (`mltune.emit.reduction_match` writes them into a
spec). Other reductions (a row of 197, a pool over two loops) get `TileAndFuse`, which this space does not hold:
they are refused.

The tiled row loop R is the innermost parallel loop longer than 1 (the neighbouring row); the loads along K read the
reduced inputs.
"""

from __future__ import annotations

from mltune.frontend.problem import Problem, element_bytes, reduction_inputs
from mltune.spaces.reduction_config import ReductionConfig
from mltune.targets.gpu import GpuInfo


def reduced_length(problem: Problem, gpu: GpuInfo) -> int:
    """The one reduction loop's length, or a `ValueError` where IREE configures the op with another pipeline."""
    if len(problem.k) != 1:
        raise ValueError(f"a reduction over {len(problem.k)} loops is configured with TileAndFuse (no space yet)")
    length = problem.bounds[problem.k[0]]
    if length % min(gpu.subgroup_sizes):
        raise ValueError(
            f"a reduction of rows of {length} (not a multiple of the subgroup size) is configured "
            "with TileAndFuse (no space yet)"
        )
    return length


class GpuReduction(ReductionConfig):
    """The `Configurator` for a reduction or normalisation on a GPU, with IREE's `VectorDistribute` reduction config."""

    subgroup_counts_k = tuple(range(1, 17))  # IREE's default splits a row over any count (768: 3 on gfx942, 6 on sm_90)

    def __init__(self, problem: Problem, gpu: GpuInfo, *args, **kwargs):
        reduced_length(problem, gpu)
        super().__init__(problem, gpu, *args, **kwargs)

    @staticmethod
    def row_loop(problem: Problem) -> int:
        longer = [loop for loop in problem.m if problem.bounds[loop] != 1]
        if not longer:
            raise ValueError("a reduction with a single row is not tuned")
        return max(longer)

    @staticmethod
    def input_bytes(problem: Problem) -> int:
        return max(element_bytes(element) for element in problem.operand_types[: reduction_inputs(problem)])
