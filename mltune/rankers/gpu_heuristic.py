"""A handwritten GPU ranking (contractions with TileAndFuse or VectorDistribute, convolutions; attention:
`attention_heuristic`; matvecs: `matvec_heuristic`): the SHARK tuner's sort key, then shared-memory bank conflicts, workgroup tile
size, wave quantization, occupancy and padding, as sort keys in order of importance. Neither contraction
pipeline is preferred: both compete on the same physical keys, ties in seeded random order."""

from __future__ import annotations

import numpy as np

from mltune.features.gpu import gpu_contraction_features
from mltune.rankers.attention_heuristic import attention_heuristic_order
from mltune.rankers.base import RankingInput
from mltune.rankers.matvec_heuristic import matvec_heuristic_order


def gpu_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    if ranking_input.problem.op_kind == "attention":
        return attention_heuristic_order(ranking_input, seed)
    if ranking_input.problem.op_kind == "matvec":
        return matvec_heuristic_order(ranking_input, seed)
    f = gpu_contraction_features(ranking_input.problem, ranking_input.target, ranking_input.candidates)
    keys = [
        # Accumulators beyond the register file spill to scratch memory on every MMA.
        f["register_overflow"] > 0,
        # SHARK tuner: a power-of-two K tile, a subgroup count that fills the CU's SIMDs, and the
        # intrinsic with the most MACs per loaded element.
        ~f["tile_k_pow2"].astype(bool),
        ~f["subgroups_fill_simds"].astype(bool),
        -f["mma_intensity"],
        # Keep IREE's shared-memory bank-conflict reduction: conflicts stall every operand load.
        f["no_bank_fix"],
        # Up to half the CUs, each busy CU helps (in eighths); beyond that, larger workgroup tiles load each
        # operand byte for more MACs (half-octave buckets). On the H100 records (`datasets/sm_90/`) large
        # tiles beat filling the last wave: the ratio falls with workgroup intensity in 18 of 22 problems.
        -np.floor(8 * np.minimum(1, f["workgroups"] / (ranking_input.target.cores / 2))),
        -np.floor(2 * np.log2(f["workgroup_intensity"])),
        # Every CU should have work in the last wave of workgroups.
        np.round(f["wave_inefficiency"], 2),
        # Padding computes zeros; low occupancy leaves memory latency exposed.
        np.round(f["padding_waste_m"] + f["padding_waste_n"] + f["padding_waste_k"], 1),
        -np.round(f["occupancy"], 1),
        # More MACs per shared-memory load within a subgroup (buckets of 8).
        -np.floor(f["subgroup_intensity"] / 8),
        # Prefetching the next K tile overlaps its global loads with the current MMAs (on ROCm; IREE 3.13's CUDA
        # code is the same for every stage count, so there the key only breaks ties).
        f["prefetch"] == 0,
        # IREE's own default for waves per EU comes first within a tie.
        f["waves_per_eu"] > 0,
        np.random.default_rng(seed).random(len(ranking_input.candidates)),
    ]
    return np.lexsort(keys[::-1])
