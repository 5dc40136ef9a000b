"""Handwritten GPU rankings for candidates with IREE's VectorDistribute reduction config (matvecs, reductions and
normalisations): a memory-bound kernel's physical sort keys, most important first, the same for both kinds."""

from __future__ import annotations

import numpy as np

from mltune.features.base import FeatureMatrix
from mltune.features.gpu_matvec import gpu_matvec_features
from mltune.features.gpu_reduction import gpu_reduction_features
from mltune.features.reduction_config import COALESCED_BYTES
from mltune.rankers.base import RankingInput

IN_FLIGHT_CAP = 64 * 1024  # input bytes in flight per CU/SM beyond which more no longer hides memory latency


def reduction_config_order(f: FeatureMatrix, seed: int) -> np.ndarray:
    keys = [
        # The input streams through once: whole cache lines per subgroup load, then the widest load per thread.
        -np.minimum(f["coalesced_bytes"], COALESCED_BYTES),
        -f["load_bytes"],
        # Every CU/SM needs workgroups (in eighths of the CUs busy).
        -np.floor(8 * f["busy_cus"]),
        # Bytes in flight per CU hide the memory latency (half-octave buckets, up to the cap).
        -np.floor(2 * np.log2(np.minimum(f["bytes_in_flight_per_cu"], IN_FLIGHT_CAP))),
        # Partial sums of several subgroups meet in shared memory behind a barrier.
        f["subgroup_reduction"],
        # Every CU should have work in the last wave of workgroups.
        np.round(f["wave_inefficiency"], 1),
        np.random.default_rng(seed).random(len(f["load_bytes"])),
    ]
    return np.lexsort(keys[::-1])


def matvec_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    return reduction_config_order(
        gpu_matvec_features(ranking_input.problem, ranking_input.target, ranking_input.candidates), seed
    )


def reduction_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    return reduction_config_order(
        gpu_reduction_features(ranking_input.problem, ranking_input.target, ranking_input.candidates), seed
    )
