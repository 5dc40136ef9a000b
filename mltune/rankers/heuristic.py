"""A handwritten ranking: a few physical rules, applied as sort keys in order of importance, one order per op kind on
llvm-cpu (`CPU_ORDERS`; attention: `cpu_attention_heuristic`; GPU targets: `gpu_heuristic`)."""

from __future__ import annotations

import numpy as np

from mltune.features.base import FeatureMatrix
from mltune.features.cpu import cpu_contraction_features
from mltune.features.cpu_convolution import cpu_convolution_features
from mltune.rankers.base import RankingInput, StaticRanker
from mltune.rankers.cpu_attention_heuristic import cpu_attention_heuristic_order
from mltune.rankers.cpu_multi_loop_heuristic import cpu_multi_loop_heuristic_order
from mltune.rankers.cpu_reduction_heuristic import cpu_reduction_heuristic_order

PACK_BYTES_PER_FLOP_LIMIT = 0.5  # above it, packing the operands costs more than data tiling can win back


def promote_data_tiled(order: np.ndarray, f: FeatureMatrix) -> np.ndarray:
    """IREE's own data-tiled build (its default flags, with the microkernel: the first data-tiled candidate) moved
    to second place, so that the first batch measures both lowerings. The keys above cannot weigh a hand-scheduled
    microkernel against tiles: it can win over IREE's default by far or lose by far, and it lost where packing the
    operands costs much per flop (`docs/cpu-blas.md`); so not where packing costs more than
    `PACK_BYTES_PER_FLOP_LIMIT`. Features without the lowering's (other op kinds, GPUs) leave the order as it is."""
    if "data_tiled" not in f.names:
        return order
    tiled = f["data_tiled"].astype(bool) & (f["pack_bytes_per_flop"] <= PACK_BYTES_PER_FLOP_LIMIT)
    if not tiled.any():
        return order
    first = int(np.flatnonzero(tiled)[0])
    rest = order[order != first]
    return np.insert(rest, min(1, len(rest)), first)


def contraction_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    f = cpu_contraction_features(ranking_input.problem, ranking_input.target, ranking_input.candidates)
    keys = [
        # Accumulators spilling out of the vector register file cost a load/store per FMA.
        f["register_overflow"] > 0,
        # Whole SIMD vectors along N: a partial vector wastes lanes on every FMA
        # (the strongest single predictor in the measured CPU records).
        -np.round(f["vector_lane_fill"], 1),
        # More FMAs per loaded element keep the FMA units fed (buckets of 2).
        -np.floor(f["fma_per_load"] / 2),
        # Every core should get work in the last wave of workgroups.
        np.round(f["wave_inefficiency"], 1),
        # Partial workgroup tiles compute padding; partial vector tiles run remainder loops.
        np.round(f["padding_waste_m"] + f["padding_waste_n"] + f["vector_remainder"], 1),
        # Power-of-two K vector tiles avoid remainder iterations.
        ~f["tile_k_pow2"].astype(bool),
        # Of two data-tiled builds alike so far, the microkernel's hand-scheduled inner loop first.
        f["data_tiled"].astype(bool) & ~f["ukernel"].astype(bool),
        # Ties in random (seeded) order, not solver order: the first batches then spread over
        # the whole tie group instead of one corner of it (e.g. only the smallest workgroups).
        np.random.default_rng(seed).random(len(ranking_input.candidates)),
    ]
    return promote_data_tiled(np.lexsort(keys[::-1]), f)  # np.lexsort sorts by the last key first


def convolution_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    """The contraction's keys, read on the conv's implicit GEMM (pixels x OC x taps*IC; a depthwise conv's
    without IC); decomposing
    along H (the default) before W, whose 1-D conv strides over rows."""
    f = cpu_convolution_features(ranking_input.problem, ranking_input.target, ranking_input.candidates)
    keys = [
        f["register_overflow"] > 0,
        -np.round(f["vector_lane_fill"], 1),
        -np.floor(f["fma_per_load"] / 2),
        np.round(f["wave_inefficiency"], 1),
        np.round(f["padding_waste_pixels"] + f["padding_waste_oc"] + f["vector_remainder"] + f["padding_waste_ic"], 1),
        f["decompose_width"],
        np.random.default_rng(seed).random(f.values.shape[0]),
    ]
    return np.lexsort(keys[::-1])


# The llvm-cpu order of each op kind that has a CPU space (`mltune.spaces.configure`).
CPU_ORDERS = {
    "contraction": contraction_order,
    "convolution": convolution_order,
    "depthwise_convolution": convolution_order,
    "attention": cpu_attention_heuristic_order,
    "reduction": cpu_reduction_heuristic_order,
    "multi_loop_contraction": cpu_multi_loop_heuristic_order,
}


class Heuristic(StaticRanker):
    """Orders llvm-cpu candidates by named features (most important key first), by the op kind's `CPU_ORDERS`."""

    name = "heuristic"

    def order(self, ranking_input: RankingInput) -> np.ndarray:
        if ranking_input.target.kind != "cpu":
            from mltune.rankers.gpu_heuristic import gpu_heuristic_order

            return gpu_heuristic_order(ranking_input, self.seed)
        return CPU_ORDERS[ranking_input.problem.op_kind](ranking_input, self.seed)
