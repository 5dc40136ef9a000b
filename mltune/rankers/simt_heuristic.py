"""A handwritten GPU ranking for contraction candidates without MMA (`gpu_simt_contraction`): the first-order time
estimate (`mltune.features.gpu_simt`) in quarter-octave buckets, then the larger thread block (more FMAs per operand
read), staged operands, and seeded random order. Nothing in it is fitted to measured problems."""

from __future__ import annotations

import numpy as np

from mltune.features.gpu_simt import simt_estimate
from mltune.rankers.base import RankingInput
from mltune.rankers.estimate_buckets import estimate_buckets

REGISTER_LIMIT = 255  # 32-bit registers per NVIDIA thread: beyond it the accumulators spill


def simt_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    problem, target, candidates = ranking_input.problem, ranking_input.target, ranking_input.candidates
    estimate = simt_estimate(problem, target, candidates)
    c = candidates.column
    keys = [
        estimate.registers > REGISTER_LIMIT,
        estimate_buckets(estimate.cycles),
        -(c("th_m") * c("th_n")) / (c("th_m") + c("th_n")),
        -c("promote"),
        np.random.default_rng(seed).random(len(candidates)),
    ]
    return np.lexsort(keys[::-1])
