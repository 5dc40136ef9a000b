"""The GPU space for convolutions no MMA intrinsic of the target fits (f32 on CUDA), over IREE's `TileAndFuse`
without `mma_kind` and without the implicit GEMM: each thread computes a block of outputs with scalar FMAs, on the
convolution's own loops.

This is how IREE 3.13 configures such a convolution itself: on sm_90 a batch-1 PyTorch 3x3 with 64 channels on a
56 x 56 image, folded to `(ic, oh + kh, ow + kw) x (oc, ic, kh, kw) -> (oc, oh, ow)`, gets `workgroup = [1, 4, 8,
0, 0, 0]`, `thread = [1, 1, 1, 0, 0, 0]`, `reduction = [0, 0, 0, 1, 3, 3]` and 32 threads: one output per thread,
one input channel per step. A `compilation_info` with such lists is honoured as written, `promote_operands = [0, 1]`
too (the tests compile sampled points and read the configuration back).

Knobs (IREE's lists in brackets), over the output loops `oc`, `oh`, `ow` (a batch loop is tiled 1):
- `wg_oc`, `wg_oh`, `wg_ow`: the workgroup's output tile [`workgroup`], powers of two up to the size's next power of
  two and the size's divisors (a partial tile is masked), up to `MAX_TILE` (`MAX_ROWS_TILE` output rows);
- `th_oc`, `th_oh`, `th_ow`: each thread's output block [`thread`], at most `MAX_THREAD_ELEMENTS` accumulators;
- `red_ic`: input channels per step [`reduction`], powers of two dividing the channels, or all of them;
- `red_kh`: filter rows per step, 1 or all of them (a step always takes the filter's whole width, as IREE's does);
- `promote`: both operands' tiles staged in shared memory [`promote_operands`] (1) or read by every thread (0).
Derived: one thread per thread block of the tile, a multiple of the subgroup size within the target's threads per
workgroup. Limits as in the contraction's SIMT space (`gpu_simt_contraction`): FMAs unrolled per step, and shared
memory of the promoted tiles (an input tile holds the window's halo: `(tile - 1) * stride + filter` rows and columns).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from iree.compiler import ir

from mltune.frontend.conv_loops import conv_loops
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.iree_constraints import EmittedConstraints
from mltune.spaces.simt import MAX_UNROLLED, SimtConfigurator, SimtGemm, shared_limit
from mltune.spaces.space import Knob, Space
from mltune.targets.gpu import GpuInfo

OUTPUT_LOOPS = ("oc", "oh", "ow")
MAX_TILE = 128
MAX_ROWS_TILE = 8  # output rows per workgroup: the image's rows are read with their halo
THREAD_TILES = (1, 2, 4, 8)
MAX_THREAD_ELEMENTS = 32  # accumulators per thread
CHANNEL_TILES = (1, 2, 4, 8, 16, 32)


def _tiles(size: int, cap: int) -> tuple[int, ...]:
    """Powers of two up to the size's next power of two, and the size's divisors, up to `cap`."""
    limit = min(cap, 1 << max(size - 1, 0).bit_length())
    powers = {1 << i for i in range(limit.bit_length()) if 1 << i <= limit}
    return tuple(sorted(powers | {d for d in range(1, min(size, cap) + 1) if size % d == 0}))


class GpuSimtConvolution(SimtConfigurator):
    """The `Configurator` of a convolution on a GPU without a fitting MMA intrinsic: TileAndFuse with thread blocks
    over the output's loops."""

    def __init__(self, problem: Problem, gpu: GpuInfo, context: ir.Context, emitted: Sequence[EmittedConstraints] = ()):
        self.loops = conv_loops(problem)
        if "ic" not in self.loops:
            raise ValueError("depthwise convolutions have no GPU space without an MMA intrinsic yet")
        super().__init__(problem, gpu, context)

    def size(self, loop: str) -> int:
        return self.problem.bounds[self.loops[loop]]

    def _space(self) -> Space:
        p, gpu = self.problem, self.gpu
        kh, kw, ic = (self.size(loop) for loop in ("kh", "kw", "ic"))
        stride_h, stride_w = (p.strides or (1, 1))[:2]
        knobs = [
            Knob("wg_oc", _tiles(self.size("oc"), MAX_TILE)),
            Knob("wg_oh", _tiles(self.size("oh"), MAX_ROWS_TILE)),
            Knob("wg_ow", _tiles(self.size("ow"), MAX_TILE)),
            *(Knob(f"th_{loop}", THREAD_TILES) for loop in OUTPUT_LOOPS),
            Knob("red_ic", tuple(sorted({t for t in CHANNEL_TILES if ic % t == 0} | ({ic} if ic < 8 else set())))),
            Knob("red_kh", tuple(sorted({1, kh}))),
            Knob("promote", (0, 1)),
        ]
        space = Space(knobs, [])
        v = space.var
        accumulators = v("th_oc") * v("th_oh") * v("th_ow")
        threads = (v("wg_oc") / v("th_oc")) * (v("wg_oh") / v("th_oh")) * (v("wg_ow") / v("th_ow"))
        image = v("red_ic") * ((v("wg_oh") - 1) * stride_h + v("red_kh")) * ((v("wg_ow") - 1) * stride_w + kw)
        shared = element_bytes(p.lhs_type) * (image + v("wg_oc") * v("red_ic") * v("red_kh") * kw)
        space.constraints = (
            *(v(f"wg_{loop}") % v(f"th_{loop}") == 0 for loop in OUTPUT_LOOPS),
            accumulators <= MAX_THREAD_ELEMENTS,
            threads % self.sg_size == 0, threads <= gpu.max_threads,
            accumulators * v("red_ic") * v("red_kh") * kw <= MAX_UNROLLED,
            v("promote") * shared <= shared_limit(gpu),
        )
        return space

    def levels(self, knobs: dict[str, int]) -> dict[str, list[int]]:
        """IREE's `workgroup`, `thread` and `reduction` lists over the op's loops: a batch loop tiled 1."""
        workgroup, thread, reduction = ([0] * len(self.problem.bounds) for _ in range(3))
        if "n" in self.loops:
            workgroup[self.loops["n"]] = thread[self.loops["n"]] = 1
        for loop in OUTPUT_LOOPS:
            workgroup[self.loops[loop]], thread[self.loops[loop]] = knobs[f"wg_{loop}"], knobs[f"th_{loop}"]
        reduction[self.loops["ic"]], reduction[self.loops["kh"]] = knobs["red_ic"], knobs["red_kh"]
        reduction[self.loops["kw"]] = self.size("kw")
        return {"workgroup": workgroup, "thread": thread, "reduction": reduction}

    def workgroup_size(self, knobs: dict[str, int]) -> int:
        return int(np.prod([knobs[f"wg_{loop}"] // knobs[f"th_{loop}"] for loop in OUTPUT_LOOPS]))


def convolution_gemm(problem: Problem, candidates: CandidateSet) -> SimtGemm:
    """A SIMT convolution's candidates as the GEMM the estimate reads: K is the filter window times the input
    channels; N is the side of the output's fastest loop (along which a warp's threads lie): the image for an NCHW
    output, whose width is fastest, the output channels for a channel-last one; M the other side."""
    loops = conv_loops(problem)
    size = {loop: problem.bounds[position] for loop, position in loops.items()}
    sides = {"m": ("oc",), "n": ("oh", "ow")} if problem.layout.startswith("nchw") else {"m": ("oh", "ow"), "n": ("oc",)}
    wg = {loop: candidates.column(f"wg_{loop}") for loop in OUTPUT_LOOPS}
    th = {loop: candidates.column(f"th_{loop}") for loop in OUTPUT_LOOPS}
    workgroups = np.prod([-(-size[loop] // wg[loop]) for loop in OUTPUT_LOOPS], axis=0) * size.get("n", 1)
    threads = np.prod([wg[loop] // th[loop] for loop in OUTPUT_LOOPS], axis=0)

    def side(values: dict, axis: str):
        return np.prod([values[loop] for loop in sides[axis]], axis=0)

    def partial(axis: str) -> np.ndarray:
        return np.logical_or.reduce([size[loop] % wg[loop] > 0 for loop in sides[axis]])

    return SimtGemm(size.get("n", 1), int(side(size, "m")), int(side(size, "n")), size["kh"] * size["kw"] * size["ic"],
                    side(wg, "m"), side(wg, "n"), side(th, "m"), side(th, "n"),
                    candidates.column("red_ic") * candidates.column("red_kh") * size["kw"], candidates.column("promote"),
                    workgroups=workgroups, threads=threads, partial_m=partial("m"), partial_n=partial("n"))
