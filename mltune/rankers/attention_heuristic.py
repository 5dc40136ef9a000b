"""A handwritten GPU ranking for attention candidates: physical sort keys in order of importance."""

from __future__ import annotations

import numpy as np

from mltune.features.gpu_attention import gpu_attention_features
from mltune.rankers.base import RankingInput


def attention_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    f = gpu_attention_features(ranking_input.problem, ranking_input.target, ranking_input.candidates)
    keys = [
        # The S tile and the output accumulator spilling to scratch memory cost more than any tile gains.
        f["register_overflow"] > 0,
        # Fewer workgroups than CUs leaves CUs idle for the whole kernel.
        f["workgroups"] < ranking_input.target.cores,
        # Each value-head tile recomputes Q K^T and the softmax: split the head dimension as little as possible.
        f["qk_recomputed"],
        # The intrinsics with the most MACs per loaded element (32x32 before 16x16), then the longer QK
        # K per issue (the virtual VMFMA).
        -f["qk_mma_intensity"], -f["pv_mma_intensity"], -f["qk_mma_k"],
        # Every CU should have work in the last wave of workgroups.
        np.round(f["wave_inefficiency"], 1),
        # A power-of-two K2 tile, then higher occupancy to hide memory latency.
        ~f["red_k2_pow2"].astype(bool), -np.round(f["occupancy"], 1),
        # IREE's own default for the LLVM attribute first within a tie.
        f["waves_per_eu"] > 0,
        np.random.default_rng(seed).random(len(ranking_input.candidates)),
    ]
    return np.lexsort(keys[::-1])
