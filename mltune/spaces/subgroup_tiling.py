"""The quantities of a GPU contraction tiling that follow from its knobs.

Both GPU contraction pipelines (TileAndFuse and VectorDistribute) state their rules over the same derived
quantities, so they live apart from either pipeline's space.
"""

from __future__ import annotations

from dataclasses import dataclass

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
