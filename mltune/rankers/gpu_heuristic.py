"""A handwritten GPU ranking (contractions with TileAndFuse or VectorDistribute, convolutions, and 1x1 ones read as multi-loop contractions, as their implicit GEMM;
attention: `attention_heuristic`; matvecs, reductions: `matvec_heuristic`; elementwise ops:
`elementwise_heuristic`): a candidate whose registers spill goes last, then
candidates are ordered by a first-order time estimate from the problem's size and the target's facts
(`mltune.features.gpu_throughput`: the busiest SM's workgroups x K steps x the cost of a step, from MMA rate,
shared-memory bandwidth and bank conflicts, memory latency over the workgroups resident at once, and L2 bandwidth),
in quarter-octave buckets; within a bucket, the SHARK tuner's keys, less padding, IREE's defaults, then seeded random
order. Nothing in it is fitted to measured problems. Neither contraction pipeline is preferred."""

from __future__ import annotations

import numpy as np

from mltune.features.gpu import gpu_contraction_features
from mltune.features.gpu_throughput import MEMORY_LATENCY_CYCLES, contraction_estimate
from mltune.rankers.attention_heuristic import attention_heuristic_order
from mltune.rankers.base import RankingInput
from mltune.rankers.elementwise_heuristic import elementwise_heuristic_order
from mltune.rankers.estimate_buckets import estimate_buckets
from mltune.rankers.matvec_heuristic import matvec_heuristic_order, reduction_heuristic_order
from mltune.rankers.simt_heuristic import simt_heuristic_order
from mltune.spaces.simt import is_simt


def contraction_heuristic_order(
    ranking_input: RankingInput, seed: int, latency: float = MEMORY_LATENCY_CYCLES
) -> np.ndarray:
    """`latency`: the memory latency the estimate assumes (`benchmarks/ranking/heuristic_holdout.py` varies it)."""
    problem, target, candidates = ranking_input.problem, ranking_input.target, ranking_input.candidates
    f = gpu_contraction_features(problem, target, candidates)
    estimate = contraction_estimate(problem, target, candidates, latency)
    keys = [
        # Registers beyond the per-thread limit spill to local memory on every MMA.
        estimate.spills,
        estimate_buckets(estimate.cycles),
        # SHARK tuner: a power-of-two K tile, a subgroup count that fills the CU's SIMDs, and the
        # intrinsic with the most MACs per loaded element.
        ~f["tile_k_pow2"].astype(bool),
        ~f["subgroups_fill_simds"].astype(bool),
        -f["mma_intensity"],
        # Keep IREE's shared-memory bank-conflict reduction; padding computes zeros.
        f["no_bank_fix"],
        np.round(f["padding_waste_m"] + f["padding_waste_n"] + f["padding_waste_k"], 1),
        # Prefetching the next K tile overlaps its global loads with the current MMAs (on ROCm; IREE 3.13's CUDA
        # code is the same for every stage count, so there the key only breaks ties).
        f["prefetch"] == 0,
        # IREE's own default for waves per EU comes first within a tie.
        f["waves_per_eu"] > 0,
        np.random.default_rng(seed).random(len(candidates)),
    ]
    return np.lexsort(keys[::-1])


def any_contraction_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    """A contraction's or convolution's candidates are MMA tilings, or SIMT ones where the target has no intrinsic
    for its types."""
    order = simt_heuristic_order if is_simt(ranking_input.candidates) else contraction_heuristic_order
    return order(ranking_input, seed)


ORDERS = {
    "attention": attention_heuristic_order,
    "matvec": matvec_heuristic_order,
    "reduction": reduction_heuristic_order,
    "contraction": any_contraction_order,
    "convolution": any_contraction_order,
    "multi_loop_contraction": any_contraction_order,
    "elementwise": elementwise_heuristic_order,
    "depthwise_convolution": simt_heuristic_order,
}


def gpu_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    return ORDERS[ranking_input.problem.op_kind](ranking_input, seed)
