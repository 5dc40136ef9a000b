"""A handwritten GPU ranking for candidates without MMA (`gpu_simt_contraction`, `gpu_simt_convolution`, both read
as a GEMM). Contractions: the first-order time estimate (`mltune.features.gpu_simt`) in quarter-octave buckets,
after three costs it does not price, then the larger thread block (more FMAs per operand read), staged operands, and
seeded random order; `docs/evaluation/sm_90/simt_f32/replay.txt` replays it on the candidates measured on an H100.
Convolutions: unstaged operands and small thread blocks before the estimate (`_convolution_keys` says why). Nothing
in it is fitted to measured problems."""

from __future__ import annotations

import numpy as np

from mltune.features.gpu_simt import SimtEstimate, simt_estimate, simt_gemm
from mltune.rankers.base import RankingInput
from mltune.rankers.estimate_buckets import estimate_buckets
from mltune.spaces.simt import SimtGemm

REGISTER_LIMIT = 255  # 32-bit registers per NVIDIA thread: beyond it the accumulators spill
# the estimate's registers leave out each staged load's address and each masked element's predicate: within a
# quarter of the limit, ptxas may spill or serialise the loads
REGISTER_HEADROOM = 0.75


def _contraction_keys(g: SimtGemm, estimate: SimtEstimate) -> list[np.ndarray]:
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


def _convolution_keys(g: SimtGemm, estimate: SimtEstimate) -> list[np.ndarray]:
    """Measured on four of ResNet-50's convolutions on an H100 (`docs/evaluation/sm_90/gpu_kinds/`): unlike a
    GEMM's, a direct convolution's thread block reuses no operand in registers (each output reads its own window),
    so a larger block only serialises a thread's work: the median candidate with one accumulator ran 1.0-2.8x
    faster than one with eight. Staging the window's image tile (with its halo) and filter in shared memory cost
    more than it saved on all four (medians 1.1-3.1x slower than unstaged)."""
    return [
        estimate.registers > REGISTER_LIMIT,
        g.promote,
        g.th_m * g.th_n,
        estimate_buckets(estimate.cycles),
        -g.red_k,
    ]


# a 1x1 convolution's thread block reuses each filter element along the image, as a GEMM's does
KEYS = {"contraction": _contraction_keys, "convolution": _convolution_keys, "multi_loop_contraction": _contraction_keys}


def simt_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    problem, target, candidates = ranking_input.problem, ranking_input.target, ranking_input.candidates
    keys = KEYS[problem.op_kind](simt_gemm(problem, candidates), simt_estimate(problem, target, candidates))
    keys.append(np.random.default_rng(seed).random(len(candidates)))
    return np.lexsort(keys[::-1])
