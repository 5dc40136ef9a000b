"""A handwritten GPU ranking for candidates without MMA (`gpu_simt_contraction`, `gpu_simt_convolution`, both read
as a GEMM). Contractions: the first-order time estimate (`mltune.features.gpu_simt`) in quarter-octave buckets,
after three costs it does not price, then the larger thread block (more FMAs per operand read), staged operands, and
seeded random order; `benchmarks/results/sm_90/simt_f32/replay.txt` replays it on the candidates measured on an H100.
Convolutions: two costs, then seeded random order (`_convolution_keys` says why). Nothing in it is fitted to
measured problems."""

from __future__ import annotations

import numpy as np

from mltune.features.gpu_simt import SimtEstimate, simt_estimate, simt_gemm
from mltune.rankers.base import RankingInput
from mltune.rankers.estimate_buckets import estimate_buckets
from mltune.spaces.simt import SimtGemm
from mltune.targets.gpu import GpuInfo

REGISTER_LIMIT = 255  # 32-bit registers per NVIDIA thread: beyond it the accumulators spill
# the estimate's registers leave out each staged load's address and each masked element's predicate: within a
# quarter of the limit, ptxas may spill or serialise the loads
REGISTER_HEADROOM = 0.75
FILLED_WARPS = 8  # warps per SM in flight that a convolution's candidates need to fill an SM (4 sub-partitions x 2)


def _contraction_keys(g: SimtGemm, estimate: SimtEstimate, gpu: GpuInfo) -> list[np.ndarray]:
    return [
        estimate.registers > REGISTER_LIMIT,
        # A workgroup tile that does not divide M or N is masked: staged in shared memory, its masked copy stalls
        # the whole workgroup at the barrier every K tile; unstaged threads mask only their own reads.
        (g.partial_m | g.partial_n) & (g.promote > 0),
        # On a partial tile IREE 3.13 walks a thread's block in a loop of scalar accesses, one row or column at a
        # time, and zero-fills it with masked vector stores (its LLVM IR for sm_90). Along N, the contiguous
        # dimension of the right operand and the result, a warp's loads of one column then stride by `th_n`
        # elements instead of reading one contiguous vector per thread; along M the rows stay contiguous.
        np.where(g.partial_n, g.th_n, 1),
        estimate.registers > REGISTER_HEADROOM * REGISTER_LIMIT,
        estimate_buckets(estimate.cycles),
        -(g.th_m * g.th_n) / (g.th_m + g.th_n),
        -g.promote,
    ]


def _convolution_keys(g: SimtGemm, estimate: SimtEstimate, gpu: GpuInfo) -> list[np.ndarray]:
    """Two costs that held on every f32 convolution measured on an H100 (`docs/gpu-simt-convolutions.md`), then
    seeded random order: what ran fastest otherwise (accumulators, reduction step, staging) went opposite ways on
    small and large images, and keys read from the shapes at hand lost to shuffle on the next ones. First, a warp's
    lanes along the output's fastest loop (NCHW: the image width): fewer than 32 where the width has them split its
    loads over several rows. Then warps: fewer than `FILLED_WARPS` per SM leave it idle where other candidates fill
    the GPU (on a small image none do: there the most warps come first)."""
    warps_per_sm = g.workgroups * g.threads / (gpu.subgroup_sizes[0] * gpu.cores)
    lanes = np.minimum(g.lanes_fastest, gpu.subgroup_sizes[0])
    return [
        estimate.registers > REGISTER_LIMIT,
        np.maximum(0.0, np.log2(min(g.fastest, gpu.subgroup_sizes[0]) / lanes)),
        np.ceil(np.maximum(0.0, FILLED_WARPS - warps_per_sm)),
    ]


KEYS = {
    "contraction": _contraction_keys,
    "convolution": _convolution_keys,
    "depthwise_convolution": _convolution_keys,
    "multi_loop_contraction": _contraction_keys,
}


def simt_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    problem, target, candidates = ranking_input.problem, ranking_input.target, ranking_input.candidates
    keys = KEYS[problem.op_kind](simt_gemm(problem, candidates), simt_estimate(problem, target, candidates), target)
    keys.append(np.random.default_rng(seed).random(len(candidates)))
    return np.lexsort(keys[::-1])
