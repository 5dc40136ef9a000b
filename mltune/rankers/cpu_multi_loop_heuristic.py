"""A handwritten llvm-cpu ranking for multi-loop contractions (1x1 convolutions at batch 1, strided or not):
the contraction's physical sort keys, with the lanes' loop read against each operand's layout first."""

from __future__ import annotations

import numpy as np

from mltune.features.cpu_multi_loop import cpu_multi_loop_features
from mltune.rankers.base import RankingInput


def cpu_multi_loop_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    f = cpu_multi_loop_features(ranking_input.problem, ranking_input.target, ranking_input.candidates)
    keys = [
        # Accumulators spilling out of the vector register file cost a load and a store per FMA.
        f["register_overflow"] > 0,
        # Lanes along the output's contiguous loop: a store off it is a scatter of every accumulator.
        f["scattered_output"],
        # Each step of the reduction loop has a cost per accumulator that only a long enough step (16 elements of K)
        # amortises: on ResNet-50's 1x1 convolutions shorter steps took several times longer (docs/cpu-convolutions.md).
        -np.minimum(f["log2_reduction_step"], 4),
        # Workgroups too small to amortise their own cost: over 64 per core, each holds little more than a vector
        # tile, and such a pick ran several times slower than IREE's default (docs/cpu-convolutions.md).
        f["workgroups_per_core"] > 64,
        # Whole SIMD vectors along the lanes' loop: a partial vector wastes lanes on every FMA.
        -np.round(f["vector_lane_fill"], 1),
        # Inputs gathered along the lanes' loop (a strided image) cost a shuffle or a load per lane.
        f["gathered_inputs"],
        # More FMAs per loaded element keep the FMA units fed (buckets of 2).
        -np.floor(f["fma_per_load"] / 2),
        # Every core should get work in the last wave of workgroups.
        np.round(f["wave_inefficiency"], 1),
        # Partial tiles compute padding and run remainder loops.
        np.round(f["padding_waste_parallel"] + f["padding_waste_reduction"] + f["vector_remainder"], 1),
        # Ties in seeded random order, so that the first batches spread over the whole tie group.
        np.random.default_rng(seed).random(len(ranking_input.candidates)),
    ]
    return np.lexsort(keys[::-1])
