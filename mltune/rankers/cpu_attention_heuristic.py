"""A handwritten llvm-cpu ranking for attention candidates (`LinalgExtTileAndVectorize`): physical sort keys in order
of importance, read against the target's vector width, registers and cores."""

from __future__ import annotations

import numpy as np

from mltune.features.cpu_attention import cpu_attention_features
from mltune.rankers.base import RankingInput

REGISTER_SPILL_FACTOR = 2.0  # tiles holding more than twice the register file spill on every K2 step


def cpu_attention_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    problem, target, candidates = ranking_input.problem, ranking_input.target, ranking_input.candidates
    f = cpu_attention_features(problem, target, candidates)
    keys = [
        # S and the output accumulator far past the register file spill through the whole K2 loop.
        f["register_fill"] > REGISTER_SPILL_FACTOR,
        # Every N vector tile recomputes Q K^T and the exponentials: the whole value head in one tile first
        # (docs/cpu-attention.md).
        f["qk_recomputed"],
        # Whole SIMD vectors along N: a partial vector wastes lanes in every multiply-add of P V.
        -np.round(f["vector_lane_fill_n"], 1),
        # More multiply-adds per loaded Q, K and V element (query rows sharing each key; buckets of one).
        -np.floor(f["qk_fma_per_load"]) - np.floor(f["pv_fma_per_load"] / 4),
        # Every core should get work in the last wave of workgroups.
        np.round(f["wave_inefficiency"], 1),
        # Partial tiles compute padding (a partial K2 tile is masked) and run remainder loops.
        np.round(f["padding_waste_m"] + f["padding_waste_n"] + f["padding_waste_k2"] + f["vector_remainder"], 1),
        # Ties in seeded random order, so that the first batches spread over the whole tie group.
        np.random.default_rng(seed).random(len(candidates)),
    ]
    return np.lexsort(keys[::-1])
