"""Feature extractors: (problem, target, candidates) to a named numeric matrix, one row per candidate.

The extractor is chosen by the target's family (CPU or GPU) and the problem's op kind, never by a
candidate's pipeline: one problem's candidates may span several pipelines (GPU contractions:
TileAndFuse and VectorDistribute, told apart by the `vector_distribute` knob), and every candidate
of a problem must get the same columns. Training (from the stored `problem` + `knobs` + target facts)
and ranking at tune time call the same `extractor_for`, so both compute the same columns. A record's
`pipeline` must still be one whose knobs the extractor reads (imported records name other tuners'
pipelines and knobs).

Public: `candidate_frame` (a problem's candidates as a data frame, the columns of `mltune.records.load`),
`knob_columns`, `feature_columns`, `FeatureMatrix` and `extractor_for`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from mltune.errors import UserError
from mltune.features.base import FeatureMatrix
from mltune.features.cpu import cpu_contraction_features
from mltune.features.cpu_attention import cpu_attention_features
from mltune.features.cpu_convolution import cpu_convolution_features
from mltune.features.cpu_multi_loop import cpu_multi_loop_features
from mltune.features.cpu_reduction import cpu_reduction_features
from mltune.features.gpu import gpu_contraction_features
from mltune.features.gpu_attention import gpu_attention_features
from mltune.features.gpu_elementwise import gpu_elementwise_features
from mltune.features.gpu_matvec import gpu_matvec_features
from mltune.features.gpu_reduction import gpu_reduction_features
from mltune.features.gpu_relative import ABSOLUTE_SIZES, gpu_gemm_features
from mltune.features.gpu_simt import gpu_simt_features
from mltune.features.table import candidate_frame, feature_columns, knob_columns
from mltune.frontend.problem import Problem
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.cpu_attention import PIPELINE as CPU_ATTENTION_PIPELINE
from mltune.spaces.cpu_contraction import PIPELINE as CPU_CONTRACTION_PIPELINE
from mltune.spaces.cpu_convolution import PIPELINE as CPU_CONVOLUTION_PIPELINE
from mltune.spaces.cpu_data_tiling import PIPELINE as CPU_DATA_TILED_PIPELINE
from mltune.spaces.cpu_reduction import PIPELINE as CPU_REDUCTION_PIPELINE
from mltune.spaces.gpu_contraction import PIPELINE as GPU_TILE_AND_FUSE_PIPELINE
from mltune.spaces.simt import PIPELINE as GPU_SIMT_PIPELINE
from mltune.spaces.simt import is_simt
from mltune.spaces.vector_distribute import PIPELINE as GPU_VECTOR_DISTRIBUTE_PIPELINE

Extractor = Callable[[Problem, Any, CandidateSet], FeatureMatrix]


def gpu_any_contraction_features(problem: Problem, gpu: Any, candidates: CandidateSet) -> FeatureMatrix:
    """A GPU contraction's or convolution's candidates are MMA tilings (both pipelines), or SIMT ones
    (`gpu_simt_contraction`, `gpu_simt_convolution`) where the target has no intrinsic for its operand types: a
    target gives one problem one kind only."""
    extractor = gpu_simt_features if is_simt(candidates) else gpu_gemm_features
    return extractor(problem, gpu, candidates)


# (target family, op kind): the extractor, and the pipelines whose candidates it describes. GPU convolutions
# (IGEMM TileAndFuse, and VectorDistribute's direct tiling on the same knobs) are seen as their implicit GEMM, and so
# are GPU multi-loop contractions (1x1 convolutions without their batch, on the convolution space's knobs);
# GPU contractions of both pipelines share one set of knobs;
# contractions and convolutions no intrinsic fits have SIMT knobs of their own (thread blocks, no MMA);
# attention is VectorDistribute too, with knobs of its own (two matmuls' intrinsics, M/N/K2 tiles); so are matvecs
# (IREE's reduction config: no MMA, lanes and subgroups over the K loop), and reductions and normalisations with
# it; elementwise ops are TileAndFuse with workgroup and thread tiles only; depthwise convolutions are SIMT
# everywhere. CPU contractions' data-tiled candidates (Mmt4dTilingExpert) share the plain ones' knobs and add their
# lowering's.
EXTRACTORS: dict[tuple[str, str], tuple[Extractor, tuple[str, ...]]] = {
    ("cpu", "contraction"): (cpu_contraction_features, (CPU_CONTRACTION_PIPELINE, CPU_DATA_TILED_PIPELINE)),
    ("cpu", "convolution"): (cpu_convolution_features, (CPU_CONVOLUTION_PIPELINE,)),
    ("cpu", "depthwise_convolution"): (cpu_convolution_features, (CPU_CONVOLUTION_PIPELINE,)),
    ("cpu", "attention"): (cpu_attention_features, (CPU_ATTENTION_PIPELINE,)),
    ("cpu", "reduction"): (cpu_reduction_features, (CPU_REDUCTION_PIPELINE,)),
    ("cpu", "multi_loop_contraction"): (cpu_multi_loop_features, (CPU_REDUCTION_PIPELINE,)),
    ("gpu", "contraction"): (
        gpu_any_contraction_features,
        (GPU_TILE_AND_FUSE_PIPELINE, GPU_VECTOR_DISTRIBUTE_PIPELINE, GPU_SIMT_PIPELINE),
    ),
    ("gpu", "convolution"): (
        gpu_any_contraction_features,
        (GPU_TILE_AND_FUSE_PIPELINE, GPU_VECTOR_DISTRIBUTE_PIPELINE, GPU_SIMT_PIPELINE),
    ),
    ("gpu", "multi_loop_contraction"): (gpu_any_contraction_features, (GPU_TILE_AND_FUSE_PIPELINE, GPU_SIMT_PIPELINE)),
    ("gpu", "attention"): (gpu_attention_features, (GPU_VECTOR_DISTRIBUTE_PIPELINE,)),
    ("gpu", "matvec"): (gpu_matvec_features, (GPU_VECTOR_DISTRIBUTE_PIPELINE,)),
    ("gpu", "reduction"): (gpu_reduction_features, (GPU_VECTOR_DISTRIBUTE_PIPELINE,)),
    ("gpu", "elementwise"): (gpu_elementwise_features, (GPU_TILE_AND_FUSE_PIPELINE,)),
    ("gpu", "depthwise_convolution"): (gpu_simt_features, (GPU_SIMT_PIPELINE,)),
}


# (target family, op kind): columns the extractor computes that models are not trained on (`mltune.features.
# gpu_relative` says why); models trained before with them still rank, as the columns are still computed.
TRAINED_WITHOUT: dict[tuple[str, str], tuple[str, ...]] = {
    ("gpu", "contraction"): ABSOLUTE_SIZES,
    ("gpu", "convolution"): ABSOLUTE_SIZES,
    ("gpu", "multi_loop_contraction"): ABSOLUTE_SIZES,
}


def target_family(target: Any) -> str:
    """ "cpu" or "gpu" (ROCm and CUDA facts share their extractors)."""
    return "cpu" if target.kind == "cpu" else "gpu"


SIMT_GEMM = "simt_gemm"
# the op kinds whose GPU candidates are MMA or SIMT GEMM tilings: their SIMT candidates share the `SIMT_GEMM` model
GEMM_KINDS = frozenset(
    kind
    for (family, kind), (extractor, _) in EXTRACTORS.items()
    if family == "gpu" and extractor is gpu_any_contraction_features
)


def model_kind(problem: Problem, target: Any, candidates: CandidateSet) -> str:
    """The name a problem's learned model is kept and looked up under: its op kind, or `SIMT_GEMM` for a GPU
    contraction, convolution or multi-loop contraction whose candidates are SIMT. One model learns one feature set:
    f16 and f32 problems of one kind get different spaces on one target, and the SIMT candidates of all three kinds
    get the same columns (each seen as a GEMM, `mltune.features.gpu_simt`), so one model learns them together,
    from three times the problems a model per kind had (`docs/evaluation/honest-split.md`, "SIMT kinds pooled")."""
    gemm = target_family(target) == "gpu" and problem.op_kind in GEMM_KINDS
    return SIMT_GEMM if gemm and is_simt(candidates) else problem.op_kind


def extractor_for(problem: Problem, target: Any, pipelines: Iterable[str] = ()) -> Extractor:
    """The extractor for a problem's candidates on a target; `pipelines` (the records' pipeline names, when
    training) must all be ones it describes. Anything else is a `UserError` saying no extractor exists yet."""
    family = target_family(target)
    extractor, known = EXTRACTORS.get((family, problem.op_kind), (None, ()))
    unknown = [pipeline for pipeline in pipelines if pipeline not in known]
    if extractor is None or unknown:
        what = f"pipeline {unknown[0]!r} of " if unknown else ""
        have = ", ".join(f"{kind} on {fam} ({'/'.join(names)})" for (fam, kind), (_, names) in EXTRACTORS.items())
        raise UserError(f"no feature extractor for {what}{problem.op_kind} on {family} targets yet (have: {have})")
    return extractor


__all__ = [
    "EXTRACTORS",
    "GEMM_KINDS",
    "SIMT_GEMM",
    "TRAINED_WITHOUT",
    "Extractor",
    "FeatureMatrix",
    "candidate_frame",
    "cpu_attention_features",
    "cpu_contraction_features",
    "cpu_convolution_features",
    "cpu_reduction_features",
    "extractor_for",
    "feature_columns",
    "knob_columns",
    "gpu_any_contraction_features",
    "gpu_attention_features",
    "gpu_contraction_features",
    "gpu_elementwise_features",
    "gpu_matvec_features",
    "gpu_reduction_features",
    "model_kind",
    "target_family",
]
