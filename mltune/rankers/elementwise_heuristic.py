"""A handwritten GPU ranking for elementwise candidates (`mltune.spaces.gpu_elementwise`): the physical sort keys of a
kernel that only moves memory, most important first, as for the reduction config's (`matvec_heuristic`)."""

from __future__ import annotations

import numpy as np

from mltune.features.gpu_elementwise import TRANSACTION_BYTES, gpu_elementwise_features
from mltune.rankers.base import RankingInput
from mltune.rankers.matvec_heuristic import IN_FLIGHT_CAP

VECTOR_BYTES = 16  # the widest access one thread makes in one instruction


def elementwise_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    f = gpu_elementwise_features(ranking_input.problem, ranking_input.target, ranking_input.candidates)
    keys = [
        # Every operand in whole cache lines per warp access, then the widest store per thread.
        -np.minimum(f["min_run_bytes"], TRANSACTION_BYTES),
        -np.minimum(f["store_vector_bytes"], VECTOR_BYTES),
        # Every CU/SM gets workgroups.
        -f["fills_gpu"],
        # Bytes in flight per CU/SM hide the memory latency (half-octave buckets, up to the cap).
        -np.floor(2 * np.log2(np.minimum(f["in_flight_bytes_per_core"], IN_FLIGHT_CAP))),
        # Every CU/SM has work in the last wave of workgroups.
        np.round(f["last_wave_idle"], 1),
        np.random.default_rng(seed).random(len(f["promote"])),
    ]
    return np.lexsort(keys[::-1])
