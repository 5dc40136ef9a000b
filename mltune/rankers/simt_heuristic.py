"""A handwritten GPU ranking for candidates without MMA (`gpu_simt_contraction`, `gpu_simt_convolution`, both read
as a GEMM): the first-order time
estimate (`mltune.features.gpu_simt`) in quarter-octave buckets, after three costs it does not price, then the larger
thread block (more FMAs per operand read), staged operands, and seeded random order. Nothing in it is fitted to
measured problems; `docs/evaluation/sm_90/simt_f32/replay.txt` replays it on the candidates measured on an H100."""

from __future__ import annotations

import numpy as np

from mltune.features.gpu_simt import simt_estimate, simt_gemm
from mltune.rankers.base import RankingInput
from mltune.rankers.estimate_buckets import estimate_buckets

REGISTER_LIMIT = 255  # 32-bit registers per NVIDIA thread: beyond it the accumulators spill
# the estimate's registers leave out each staged load's address and each masked element's predicate: within a
# quarter of the limit, ptxas may spill or serialise the loads
REGISTER_HEADROOM = 0.75


def simt_heuristic_order(ranking_input: RankingInput, seed: int) -> np.ndarray:
    problem, target, candidates = ranking_input.problem, ranking_input.target, ranking_input.candidates
    estimate = simt_estimate(problem, target, candidates)
    g = simt_gemm(problem, candidates)
    keys = [
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
        np.random.default_rng(seed).random(len(candidates)),
    ]
    return np.lexsort(keys[::-1])
