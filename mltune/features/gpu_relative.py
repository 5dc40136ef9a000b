"""GPU contraction and convolution features in units that carry over to shapes no record came near.

A forest splits on thresholds: fed a problem's absolute sizes (log2 M, N, K, FLOPs), it learns "on shapes this
large, 128x256 workgroup tiles win" from the largest problems it saw, and applies it unchanged to a shape 8x larger.
Held out by size, a forest with those columns ranked the largest contractions worse than the heuristic
(`benchmarks/ranking/honest_split_study.py`, `docs/evaluation/honest-split.md`). So the models are trained without
them (`TRAINED_WITHOUT`), and with one column that does scale: the first-order time estimate's efficiency, the ideal
time of the problem's MACs on every SM's matrix units over the candidate's estimated time
(`mltune.features.gpu_throughput`), a fraction whatever the shape. The columns stay in the extractor, so that models
trained before still rank.
"""

from __future__ import annotations

import numpy as np

from mltune.features.base import FeatureMatrix
from mltune.features.gpu import gemm_view, gpu_contraction_features
from mltune.features.gpu_throughput import MMA_MACS_PER_CYCLE, contraction_estimate
from mltune.frontend.problem import Problem
from mltune.spaces.candidate import CandidateSet
from mltune.targets.gpu import GpuInfo

ABSOLUTE_SIZES = ("log2_m", "log2_n", "log2_k", "log2_batch", "log2_flops")


def gpu_gemm_features(problem: Problem, gpu: GpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    """`gpu_contraction_features` and `estimate_efficiency`."""
    features = gpu_contraction_features(problem, gpu, candidates)
    (batch, m, n, k), _ = gemm_view(problem, candidates)
    ideal = float(batch) * m * n * k / (MMA_MACS_PER_CYCLE * gpu.cores)
    efficiency = ideal / contraction_estimate(problem, gpu, candidates).cycles
    return FeatureMatrix(features.names + ("estimate_efficiency",), np.column_stack([features.values, efficiency]))
