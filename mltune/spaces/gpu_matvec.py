"""The GPU space for matvecs: the contractions IREE lowers with its `VectorDistribute` reduction config on ROCm
and CUDA (`Problem.op_kind == "matvec"`, e.g. the single-token GEMVs of LLM decoding).

An MMA tile wastes all but one row of the intrinsic on a unit M, so IREE reads such a contraction as a
reduction (`ReductionConfigUtils.cpp`, `setReductionConfig`): its space is that config's
(`mltune.spaces.reduction_config`), tiled along the row loop R: the first parallel loop longer than 1 (N of a
1 x N x K matvec, M of an M x 1 x K one, the batch of a batch matvec). The loads along K read the weight
(the RHS's element type).
"""

from __future__ import annotations

from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.reduction_config import ReductionConfig


def row_loop(problem: Problem) -> int:
    """The loop IREE's reduction config tiles across a workgroup's outputs: the first parallel loop longer than 1."""
    longer = [loop for loop in sorted(problem.batch + problem.m + problem.n) if problem.bounds[loop] != 1]
    if not longer:
        raise ValueError("a matvec with a single output is not tuned")
    return longer[0]


class GpuMatvec(ReductionConfig):
    """The `Configurator` for a matvec on a GPU, with IREE's `VectorDistribute` reduction config."""

    row_loop = staticmethod(row_loop)

    @staticmethod
    def input_bytes(problem: Problem) -> int:
        return element_bytes(problem.rhs_type)
