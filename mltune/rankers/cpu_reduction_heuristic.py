"""A handwritten llvm-cpu ranking for reduction candidates (softmax, layer norm, RMS norm, pooling): physical sort
keys in order of importance, read against the target's vector width, registers, L1 and cores."""

from __future__ import annotations

import numpy as np

from mltune.features.cpu_reduction import cpu_reduction_features
from mltune.rankers.base import RankingInput


def cpu_reduction_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    f = cpu_reduction_features(ranking_input.problem, ranking_input.target, ranking_input.candidates)
    keys = [
        # A step's loads and partial sums spilling out of the register file cost a store and a load per add.
        f["register_overflow"] > 0,
        # Whole SIMD vectors along the contiguous loop: a partial vector wastes lanes on every load and add.
        -np.round(f["vector_lane_fill"], 1),
        # Every core should get work in the last wave of workgroups.
        np.round(f["wave_inefficiency"], 1),
        # The fused normalisation runs over whole rows of the vector tile: past L1 it streams from L2 twice.
        f["row_tile_per_l1"] > 1,
        # Enough independent partial sums to hide the add latency (buckets of half a cover).
        -np.round(np.minimum(f["latency_cover"], 1.0) * 2),
        # Partial tiles compute padding (masked reduction steps) and run remainder loops.
        np.round(f["padding_waste_reduction"] + f["padding_waste_parallel"] + f["vector_remainder"], 1),
        # Ties in seeded random order, so that the first batches spread over the whole tie group.
        np.random.default_rng(seed).random(len(ranking_input.candidates)),
    ]
    return np.lexsort(keys[::-1])
