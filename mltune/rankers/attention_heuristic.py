"""A handwritten GPU ranking for attention candidates: physical sort keys in order of importance, the first of them
the target's registers per thread."""

from __future__ import annotations

import numpy as np

from mltune.features.cpu import padding_waste
from mltune.features.gpu_attention import attention_registers, gpu_attention_features
from mltune.rankers.base import RankingInput


def attention_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    problem, target, candidates = ranking_input.problem, ranking_input.target, ranking_input.candidates
    f = gpu_attention_features(problem, target, candidates)
    (k2,) = problem.sizes(problem.k2)
    keys = [
        # S, P, the output accumulator and the query tile spilling past the target's registers per thread cost more
        # than any tile gains (measured on an H100: docs/gpu-compile-fraction.md).
        attention_registers(problem, candidates) > target.registers_per_thread,
        # Fewer workgroups than CUs leaves CUs idle for the whole kernel.
        f["workgroups"] < ranking_input.target.cores,
        # Each value-head tile recomputes Q K^T and the softmax: split the head dimension as little as possible.
        f["qk_recomputed"],
        # The intrinsics with the most MACs per loaded element (32x32 before 16x16), then the longer QK
        # K per issue (the virtual VMFMA).
        -f["qk_mma_intensity"],
        -f["pv_mma_intensity"],
        -f["qk_mma_k"],
        # Every CU should have work in the last wave of workgroups; a K2 tile that does not divide K2 computes a
        # masked partial tile.
        np.round(f["wave_inefficiency"], 1),
        np.round(padding_waste(k2, candidates.column("red_k2")), 1),
        # A power-of-two K2 tile, then higher occupancy to hide memory latency.
        ~f["red_k2_pow2"].astype(bool),
        -np.round(f["occupancy"], 1),
        # IREE's own default for the LLVM attribute first within a tie.
        f["waves_per_eu"] > 0,
        np.random.default_rng(seed).random(len(candidates)),
    ]
    return np.lexsort(keys[::-1])
