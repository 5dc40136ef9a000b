"""A handwritten GPU ranking for matvec candidates: a memory-bound kernel's physical sort keys, most important first."""

from __future__ import annotations

import numpy as np

from mltune.features.gpu_matvec import COALESCED_BYTES, gpu_matvec_features
from mltune.rankers.base import RankingInput

IN_FLIGHT_CAP = 64 * 1024  # weight bytes in flight per CU/SM beyond which more no longer hides memory latency


def matvec_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    f = gpu_matvec_features(ranking_input.problem, ranking_input.target, ranking_input.candidates)
    keys = [
        # The weight streams through once: whole cache lines per subgroup load, then the widest load per thread.
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
        np.random.default_rng(seed).random(len(ranking_input.candidates)),
    ]
    return np.lexsort(keys[::-1])
