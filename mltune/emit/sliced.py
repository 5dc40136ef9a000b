"""The form IREE gives a strided multi-loop contraction in a dispatch's dumped benchmark, for the specs timed on one
(a screen's, a dispatch benchmark's).

Compiling a dump runs IREE's global optimisation over the executable's own function, where
`iree-global-opt-convert-strided-contraction-to-contraction` reads each strided input through a
`tensor.extract_slice` of step 2 and leaves a contraction without steps (on ResNet-50's 28x28x512x256 projection:
`tensor<256x56x56xf32>` read as `(d3, d1 * 2, d2 * 2)` became `tensor<256x28x28xf32>` read as `(d3, d1, d2)`), before
specs are applied. A model's own compile still holds the strided op then. The loops, and so the configuration, are
the same in both forms; a candidate's spec on a dump matches either form (`sliced_form`), a model's spec (and every
result written) the strided one only: there the sliced form could be another problem, a 1x1 projection without
steps of the same sizes.
"""

from __future__ import annotations

import re
from dataclasses import replace

from mltune.frontend.problem import MULTI_LOOP_CONTRACTION, Problem

_STEP = re.compile(r"(d\d+) \* \d+")


def sliced_form(problem: Problem) -> Problem | None:
    """`problem` as IREE leaves it once every strided input is sliced: its maps without steps, each operand the
    size of the loops it walks; None for a problem without strided reads (or of a kind IREE does not slice: a
    convolution's window sums `d1 * 2 + d5` stay as they are)."""
    if problem.op_kind != MULTI_LOOP_CONTRACTION or not problem.strides:
        return None
    return replace(problem, indexing_maps=tuple(_STEP.sub(r"\1", amap) for amap in problem.indexing_maps),
                   strides=(), operand_shapes=())
