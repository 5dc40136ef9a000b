"""Each operand's tensor type, rebuilt from a `Problem`: what a spec matches an op by when IREE has no matcher for it
(a masked attention, a reduction)."""

from __future__ import annotations

import re
from typing import Sequence

from mltune.frontend.problem import Problem


def operand_loops(problem: Problem) -> list[tuple[int, ...]]:
    """The loop each dimension of each operand walks, read from its indexing map (`(d0, d3)`; a strided read
    `d1 * 2` walks loop 1)."""
    results = [re.search(r"-> \(([^)]*)\)", amap).group(1) for amap in problem.indexing_maps]
    return [tuple(int(d) for d in re.findall(r"d(\d+)", dims)) for dims in results]


def operand_shapes(problem: Problem) -> list[tuple[int, ...]]:
    """Each operand's shape: as recorded where a strided map does not give it, else the sizes of its loops."""
    if problem.operand_shapes:
        return list(problem.operand_shapes)
    return [tuple(problem.bounds[loop] for loop in loops) for loops in operand_loops(problem)]


def tensor_type(shape: Sequence[int], element: str) -> str:
    return f"tensor<{'x'.join(map(str, (*shape, element)))}>"


def operand_type_checks(types: Sequence[tuple[int, str]]) -> list[str]:
    """Transform lines that match the op's operand `index` against each (index, tensor type)."""
    lines = []
    for index, text in types:
        lines += [
            f"    %operand{index} = transform.get_operand %op[{index}] : (!transform.any_op) -> !transform.any_value",
            f"    transform.iree.match.cast_compatible_type %operand{index} = {text} : !transform.any_value",
        ]
    return lines
