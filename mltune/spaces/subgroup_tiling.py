"""The quantities of a GPU contraction tiling that follow from its knobs.

Both GPU contraction pipelines (TileAndFuse and VectorDistribute) state their rules over the same derived
quantities, so they live apart from either pipeline's space.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import z3


@dataclass(frozen=True)
class Derived:
    """Expressions over the knobs for quantities that are not knobs."""

    mma_m: z3.ArithRef
    mma_n: z3.ArithRef
    mma_k: z3.ArithRef
    count_m: z3.ArithRef
    count_n: z3.ArithRef
    workgroup_size: z3.ArithRef


# Subgroups per workgroup. IREE emits "sg_num <= 10" for every GPU, a ROCm register budget (ten waves of a
# SIMD); a CUDA SM runs up to 32 warps of a workgroup, and IREE 3.13 compiles 16 and 32 warps for sm_90 alike.
# 16 warps (512 threads) is where an H100 GEMM keeps enough registers per thread for its accumulators.
MAX_SUBGROUPS = {"rocm": 10, "cuda": 16}
IREE_SUBGROUP_CAP = 10


def max_subgroups(api: str) -> int:
    return MAX_SUBGROUPS[api]


Filter = Callable[[z3.BoolRef, set[str]], bool]


def caps_subgroups(api: str, *also: Filter) -> Filter:
    """A filter for IREE's emitted assertions: on an API whose cap is above IREE's, "sg_num <= 10" (an
    upper bound of 10 on the subgroup counts' product) is left out, with whatever the filters `also` leave out."""
    def unwanted(assertion: z3.BoolRef, variables: set[str]) -> bool:
        if any(other(assertion, variables) for other in also):
            return True
        if MAX_SUBGROUPS[api] <= IREE_SUBGROUP_CAP or not z3.is_le(assertion):
            return False
        bound = assertion.arg(1)
        return variables == {"sg_m_cnt", "sg_n_cnt"} and z3.is_int_value(bound) and bound.as_long() == IREE_SUBGROUP_CAP
    return unwanted
