"""Features of GPU matvec candidates (IREE's VectorDistribute reduction config, `mltune.features.reduction_config`):
the weight's loads, contiguous along K or along the rows, and the GEMM's sizes.
"""

from __future__ import annotations

from mltune.features.base import FeatureMatrix
from mltune.features.cpu import gemm_sizes, problem_features
from mltune.features.reduction_config import reduction_config_columns
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.gpu_matvec import row_loop
from mltune.targets.gpu import GpuInfo


def weight_inner_loop(problem: Problem) -> int:
    """The innermost loop of the larger input (the weight of a matvec): the direction its loads are contiguous."""
    batch, m, n, _ = gemm_sizes(problem)
    (k_loop,) = problem.k
    if m > n:  # the LHS (M x K, or K x M when transposed) is the weight
        return k_loop if problem.layout[0] == "n" else problem.m[0]
    return k_loop if problem.layout[1] == "t" else problem.n[0]


def gpu_matvec_features(problem: Problem, gpu: GpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    batch, m, n, k = gemm_sizes(problem)
    inner = weight_inner_loop(problem)
    along = {problem.k[0]: "k", row_loop(problem): "rows"}.get(inner, "other")
    columns = reduction_config_columns(candidates, gpu, batch * m * n, k, element_bytes(problem.rhs_type), along)
    return FeatureMatrix.from_columns({**columns, **problem_features(problem, (batch, m, n, k), len(candidates))})
