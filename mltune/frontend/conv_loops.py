"""A convolution problem's loops by role (n, oh, ow, oc, kh, kw, ic), shared by the llvm-cpu and GPU spaces.

A convolution has a batch loop `n` unless IREE folded its unit batch away (GPU targets dispatch a batch-1
convolution so); a depthwise one has no `ic` (its channel takes `oc`'s place).
"""

from __future__ import annotations

import re

from mltune.frontend.problem import Problem

REDUCTION = ("kh", "kw", "ic")
_RESULTS = re.compile(r"->\s*\(([^)]*)\)")


def conv_loops(problem: Problem) -> dict[str, int]:
    """The position of each named loop: n (unless batchless), oh, ow, oc, kh, kw, and ic unless depthwise."""
    (oh, ow), (oc,) = problem.m, problem.n
    return dict(zip(("n",), problem.batch)) | {"oh": oh, "ow": ow, "oc": oc} | dict(zip(REDUCTION, problem.k))


def reduction_loops(problem: Problem) -> tuple[str, ...]:
    """The reduction loops a candidate tiles: the filter window, and the input channel unless depthwise."""
    return REDUCTION[: len(problem.k)]


def output_loops(problem: Problem) -> tuple[str, ...]:
    """The parallel loops' names in the order the output stores them (`n, oh, ow, oc` for NHWC, `oc, oh, ow` for a
    batchless NCHW one): the order of IREE's implicit-GEMM tile lists."""
    by_position = {position: name for name, position in conv_loops(problem).items()}
    results = _RESULTS.search(problem.indexing_maps[2]).group(1)
    return tuple(by_position[int(dim)] for dim in re.findall(r"d(\d+)", results))
