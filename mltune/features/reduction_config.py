"""Features of candidates with IREE's VectorDistribute reduction config (`mltune.spaces.reduction_config`: matvecs,
reductions and normalisations on GPUs), from the knobs alone.

Such a kernel reads every input element once and does a few operations with it, so it runs at the speed of
memory: what matters is how the loads are shaped and how many bytes are in flight. Each feature names one
such effect: the bytes per load instruction, the bytes a subgroup reads contiguously, workgroups that keep every
CU/SM busy and how many fit at once, the input bytes a CU has in flight per step, the serial K steps, and the
cost of combining partial sums (lane shuffles, a shared-memory reduction across subgroups).
"""

from __future__ import annotations

import numpy as np

from mltune.features.cpu import wave_inefficiency
from mltune.features.gpu import MAX_SUBGROUPS_PER_CU
from mltune.spaces.candidate import CandidateSet
from mltune.targets.gpu import GpuInfo

COALESCED_BYTES = 128  # a subgroup's load covering this many contiguous bytes uses whole cache lines
CONTIGUOUS_ALONG = ("k", "rows", "other")  # the loop along which the read input is contiguous


def reduction_config_columns(
    candidates: CandidateSet, gpu: GpuInfo, outputs: int, k: int, in_bytes: int, along: str
) -> dict[str, np.ndarray]:
    """The knob-derived columns; `outputs`: the parallel iterations (rows), `k`: the reduced length, `along`: one of
    `CONTIGUOUS_ALONG`."""
    c = candidates.column
    rows, k_tile, vector, lanes_k = c("rows"), c("k_tile"), c("vector"), c("lanes_k")
    sg_k, sg_r, sg_size = c("sg_k"), c("sg_r"), c("sg_size")
    lanes_r = sg_size // lanes_k
    subgroups = sg_k * sg_r
    threads = subgroups * sg_size
    rows_per_thread = rows // (lanes_r * sg_r)
    k_per_thread = k_tile // (lanes_k * sg_k)
    contiguous = {"k": lanes_k * vector, "rows": lanes_r}.get(along, np.ones_like(rows))
    workgroups = outputs // rows
    resident = np.maximum(MAX_SUBGROUPS_PER_CU // subgroups, 1)
    per_cu = np.minimum(workgroups / gpu.cores, resident)
    return {
        "load_bytes": vector * in_bytes,
        "coalesced_bytes": np.minimum(contiguous * in_bytes, 4 * COALESCED_BYTES),
        "lanes_k": lanes_k,
        "lanes_r": lanes_r,
        "subgroups_k": sg_k,
        "subgroups_r": sg_r,
        "threads": threads,
        "log2_rows": np.log2(rows),
        "rows_per_thread": rows_per_thread,
        "k_per_thread": k_per_thread,
        "thread_tile_bytes": rows_per_thread * k_per_thread * in_bytes,
        "log2_k_tile": np.log2(k_tile),
        "k_steps": k // k_tile,
        "workgroups": workgroups,
        "busy_cus": np.minimum(1.0, workgroups / gpu.cores),
        "resident_workgroups": resident,
        "waves": workgroups / (gpu.cores * resident),
        "wave_inefficiency": wave_inefficiency(workgroups, gpu.cores * resident),
        "bytes_in_flight_per_cu": per_cu * threads * rows_per_thread * k_per_thread * in_bytes,
        "shuffle_steps": np.log2(lanes_k),
        "subgroup_reduction": sg_k > 1,
        "sg_size": sg_size,
    }
