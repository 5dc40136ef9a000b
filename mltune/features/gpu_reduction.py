"""Features of GPU reduction and normalisation candidates (IREE's VectorDistribute reduction config,
`mltune.features.reduction_config`): the reduced input's loads, contiguous along the reduced loop for row-wise
norms and softmax, and the problem's rows, row length and the passes over each row (a softmax reads its rows for
the max, the sum and the division; a normalised reduction reads them again for the elementwise op).
"""

from __future__ import annotations

import numpy as np

from mltune.emit.operand_types import operand_loops
from mltune.features.base import FeatureMatrix
from mltune.features.reduction_config import reduction_config_columns
from mltune.frontend.problem import NORMALISED, Problem, reduction_inputs
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.gpu_reduction import GpuReduction
from mltune.targets.gpu import GpuInfo


def gpu_reduction_features(problem: Problem, gpu: GpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    (k_loop,) = problem.k
    k = problem.bounds[k_loop]
    rows = int(np.prod([problem.bounds[loop] for loop in problem.m]))
    reduced = next(loops for loops in operand_loops(problem) if k_loop in loops)
    along = {k_loop: "k", GpuReduction.row_loop(problem): "rows"}.get(reduced[-1], "other")
    in_bytes = GpuReduction.input_bytes(problem)
    columns = reduction_config_columns(candidates, gpu, rows, k, in_bytes, along)
    passes = reduction_inputs(problem) + problem.layout.endswith(NORMALISED)
    problem_level = {
        "log2_total_rows": np.log2(rows),
        "log2_row_elements": np.log2(k),
        "input_bytes": in_bytes,
        "row_passes": passes,
        "log2_reduced_bytes": np.log2(rows * k * in_bytes),
    }
    columns.update({name: np.full(len(candidates), value, dtype=np.float64) for name, value in problem_level.items()})
    return FeatureMatrix.from_columns(columns)
