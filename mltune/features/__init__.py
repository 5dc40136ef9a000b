"""Feature extractors: (problem, target, candidates) to a named numeric matrix, one row per candidate.

`EXTRACTORS` maps a record's `pipeline` to the extractor of its candidates, so training and
ranking compute the same columns from the same stored `problem` + `knobs`.
"""

from __future__ import annotations

from typing import Any, Callable

from mltune.errors import UserError
from mltune.features.base import FeatureMatrix
from mltune.features.cpu import cpu_contraction_features
from mltune.features.gpu import gpu_contraction_features
from mltune.problem import Problem
from mltune.search.candidate import CandidateSet
from mltune.search.cpu_contraction import PIPELINE as CPU_CONTRACTION_PIPELINE
from mltune.search.gpu_contraction import PIPELINE as GPU_TILE_AND_FUSE_PIPELINE

Extractor = Callable[[Problem, Any, CandidateSet], FeatureMatrix]

# GPU convolutions share the contractions' pipeline name (TileAndFuse, as IGEMM): their features see the implicit GEMM
EXTRACTORS: dict[str, Extractor] = {CPU_CONTRACTION_PIPELINE: cpu_contraction_features,
                                    GPU_TILE_AND_FUSE_PIPELINE: gpu_contraction_features}


def extractor_for(pipeline: str) -> Extractor:
    """The extractor for one pipeline, or a `UserError` saying none exists yet."""
    if pipeline not in EXTRACTORS:
        raise UserError(f"no feature extractor for pipeline {pipeline!r} yet (have: {', '.join(EXTRACTORS)})")
    return EXTRACTORS[pipeline]


__all__ = ["EXTRACTORS", "Extractor", "FeatureMatrix", "cpu_contraction_features", "extractor_for",
           "gpu_contraction_features"]
