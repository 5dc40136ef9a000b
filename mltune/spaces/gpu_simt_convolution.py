"""The GPU spaces for convolutions no MMA intrinsic of the target fits (f32 on CUDA), over IREE's `TileAndFuse`
without `mma_kind` and without the implicit GEMM: each thread computes a block of outputs with scalar FMAs, on the
op's own loops. Three ops, as batch-1 PyTorch ResNet-50 and MobileNet-V2 dispatch them:

- a convolution (`GpuSimtConvolution`), e.g. a 3x3 with 64 channels on a 56 x 56 image, folded to `(ic, oh + kh,
  ow + kw) x (oc, ic, kh, kw) -> (oc, oh, ow)`: IREE 3.13's own config on sm_90 is `workgroup = [1, 4, 8, 0, 0, 0]`,
  `thread = [1, 1, 1, 0, 0, 0]`, `reduction = [0, 0, 0, 1, 3, 3]`, 32 threads (one output per thread, one input
  channel per step);
- a depthwise convolution (`GpuSimtConvolution` too, on every GPU target: no MMA intrinsic computes one), e.g.
  MobileNet-V2's stride-2 3x3 over 96 channels, `(c, oh * 2 + kh, ow * 2 + kw) x (c, kh, kw) -> (c, oh, ow)`:
  IREE's config on sm_90 is `workgroup = [1, 1, 32, 0, 0]` over `(oh, ow, c, kh, kw)`, 32 threads along the
  channels (the slowest dimension of an NCHW image), one output each, the whole window per step; its channel takes
  `oc`'s place and it has no `ic` (`red_ic` is 1, each output channel reading its own input channel);
- a 1x1 convolution read as a multi-loop contraction (`GpuSimtPointwise`), `(ic, oh, ow) x (oc, ic) -> (oc, oh,
  ow)`: IREE's config is `workgroup = [1, 32, 128, 1]`, `thread = [1, 1, 16, 0]`, `reduction = [0, 0, 0, 32]`, 256
  threads, whatever the image (a 7 x 7 one fills 49 of the tile's 4096 outputs). A strided one (`oh * 2`) IREE
  gives its VectorDistribute reduction config, one output per 32-thread workgroup; the same TileAndFuse lists
  compile for it too.

A `compilation_info` with such lists is honoured as written, `promote_operands = [0, 1]` too (the tests compile
sampled points and read the configuration back).

Knobs (IREE's lists in brackets), over the output loops `oc`, `oh`, `ow` (a batch loop is tiled 1):
- `wg_oc`, `wg_oh`, `wg_ow`: the workgroup's output tile [`workgroup`], powers of two up to the size's next power of
  two and the size's divisors (a partial tile is masked), up to the space's limits;
- `th_oc`, `th_oh`, `th_ow`: each thread's output block [`thread`];
- `red_ic`: input channels per step [`reduction`], powers of two dividing the channels, or all of them;
- `red_kh` (convolutions): filter rows per step, 1 or all of them (a step always takes the filter's whole width,
  as IREE's does);
- `promote`: both operands' tiles staged in shared memory [`promote_operands`] (1) or read by every thread (0).
Derived: one thread per thread block of the tile, a multiple of the subgroup size within the target's threads per
workgroup. Limits as in the contraction's SIMT space (`gpu_simt_contraction`): FMAs unrolled per step, and shared
memory of the promoted tiles (an input tile holds the window's halo: `(tile - 1) * stride + filter` rows and columns).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from iree.compiler import ir

from mltune.frontend.conv_loops import conv_loops, output_loops
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.iree_constraints import EmittedConstraints
from mltune.spaces.simt import MAX_UNROLLED, SimtConfigurator, SimtGemm, shared_limit
from mltune.spaces.space import Knob, Space
from mltune.targets.gpu import GpuInfo

OUTPUT_LOOPS = ("oc", "oh", "ow")


def _tiles(size: int, cap: int, beyond_size: bool) -> tuple[int, ...]:
    """Powers of two up to the size's next power of two (`beyond_size`: up to `cap` whatever the size), and the
    size's divisors, up to `cap`."""
    limit = cap if beyond_size else min(cap, 1 << max(size - 1, 0).bit_length())
    powers = {1 << i for i in range(limit.bit_length()) if 1 << i <= limit}
    return tuple(sorted(powers | {d for d in range(1, min(size, cap) + 1) if size % d == 0}))


def window_loops(problem: Problem) -> dict[str, int]:
    """The position of each named loop: the output's (`n` where there is a batch, `oc`, `oh`, `ow`), the input
    channel `ic`, and the filter's `kh`, `kw` (none for a 1x1 convolution read as a multi-loop contraction)."""
    loops = conv_loops(problem)
    if problem.filter_loops:
        return loops
    return {name: loops[name] for name in ("n", *OUTPUT_LOOPS) if name in loops} | {"ic": problem.k[-1]}


def _steps(problem: Problem, loops: dict[str, int]) -> tuple[int, int]:
    """The image's step along its rows and columns (a multi-loop contraction's `strides` are per loop)."""
    if problem.filter_loops:
        return tuple((problem.strides or (1, 1))[:2])
    steps = problem.strides or (1,) * len(problem.bounds)
    return steps[loops["oh"]], steps[loops["ow"]]


class GpuSimtConvolution(SimtConfigurator):
    """The `Configurator` of a convolution on a GPU without a fitting MMA intrinsic: TileAndFuse with thread blocks
    over the output's loops, the whole filter width (and all or one of its rows) per step."""

    max_tile = 128
    max_rows_tile = 8  # output rows per workgroup: the image's rows are read with their halo
    thread_tiles = (1, 2, 4, 8)
    max_thread_elements = 32  # accumulators per thread
    channel_tiles = (1, 2, 4, 8, 16, 32)
    beyond_size = False

    def __init__(self, problem: Problem, gpu: GpuInfo, context: ir.Context, emitted: Sequence[EmittedConstraints] = ()):
        self.loops = window_loops(problem)
        self.depthwise = "ic" not in self.loops
        super().__init__(problem, gpu, context)

    def size(self, loop: str) -> int:
        """A named loop's trip count (1 for a filter loop the op does not have)."""
        return self.problem.bounds[self.loops[loop]] if loop in self.loops else 1

    def _space(self) -> Space:
        p, gpu = self.problem, self.gpu
        kh, kw, ic = (self.size(loop) for loop in ("kh", "kw", "ic"))
        stride_h, stride_w = _steps(p, self.loops)
        knobs = [
            Knob("wg_oc", _tiles(self.size("oc"), self.max_tile, self.beyond_size)),
            Knob("wg_oh", _tiles(self.size("oh"), self.max_rows_tile, self.beyond_size)),
            Knob("wg_ow", _tiles(self.size("ow"), self.max_tile, self.beyond_size)),
            *(Knob(f"th_{loop}", self.thread_tiles) for loop in OUTPUT_LOOPS),
            Knob("red_ic", tuple(sorted({t for t in self.channel_tiles if ic % t == 0} | ({ic} if ic < 8 else set())))),
            Knob("red_kh", tuple(sorted({1, kh}))),
            Knob("promote", (0, 1)),
        ]
        space = Space(knobs, [])
        v = space.var
        accumulators = v("th_oc") * v("th_oh") * v("th_ow")
        threads = (v("wg_oc") / v("th_oc")) * (v("wg_oh") / v("th_oh")) * (v("wg_ow") / v("th_ow"))
        image_channels = v("wg_oc") if self.depthwise else v("red_ic")  # a depthwise output channel reads its own
        image = image_channels * ((v("wg_oh") - 1) * stride_h + v("red_kh")) * ((v("wg_ow") - 1) * stride_w + kw)
        shared = element_bytes(p.lhs_type) * (image + v("wg_oc") * v("red_ic") * v("red_kh") * kw)
        space.constraints = (
            *(v(f"wg_{loop}") % v(f"th_{loop}") == 0 for loop in OUTPUT_LOOPS),
            accumulators <= self.max_thread_elements,
            threads % self.sg_size == 0,
            threads <= gpu.max_threads,
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
        if not self.depthwise:
            reduction[self.loops["ic"]] = knobs["red_ic"]
        if "kh" in self.loops:
            reduction[self.loops["kh"]], reduction[self.loops["kw"]] = knobs["red_kh"], self.size("kw")
        return {"workgroup": workgroup, "thread": thread, "reduction": reduction}

    def workgroup_size(self, knobs: dict[str, int]) -> int:
        return int(np.prod([knobs[f"wg_{loop}"] // knobs[f"th_{loop}"] for loop in OUTPUT_LOOPS]))


class GpuSimtPointwise(GpuSimtConvolution):
    """The `Configurator` of a 1x1 convolution read as a multi-loop contraction (`(ic, oh, ow) x (oc, ic) -> (oc, oh,
    ow)`, strided or not) without a fitting MMA intrinsic. A thread's outputs along the image share each filter
    element, as a GEMM's do, so blocks reach as far as the contraction's SIMT space, and tiles as far as IREE's
    default (its 32 x 128 image tile, whatever the image)."""

    max_rows_tile = 32
    thread_tiles = (1, 2, 4, 8, 16)
    max_thread_elements = 64
    channel_tiles = (1, 2, 4, 8, 16, 32, 64)
    beyond_size = True

    def __init__(self, problem: Problem, gpu: GpuInfo, context: ir.Context, emitted: Sequence[EmittedConstraints] = ()):
        shaped = not problem.batch and (len(problem.m), len(problem.n), len(problem.k)) == (2, 1, 1)
        if not shaped:
            raise ValueError(
                "only a multi-loop contraction over two image loops, one channel loop and one K loop (a "
                "1x1 convolution without its batch) has a GPU space without an MMA intrinsic yet"
            )
        super().__init__(problem, gpu, context, emitted)


def convolution_gemm(problem: Problem, candidates: CandidateSet) -> SimtGemm:
    """A SIMT convolution's candidates as the GEMM the estimate reads: K is the filter window times the input
    channels; N is the side of the output's fastest loop (along which a warp's threads lie): the image for an NCHW
    output, whose width is fastest, the output channels for a channel-last one; M the other side."""
    loops = window_loops(problem)
    size = {loop: problem.bounds[position] for loop, position in loops.items()}
    kh, kw = size.get("kh", 1), size.get("kw", 1)
    fastest = output_loops(problem)[-1]
    sides = {"m": ("oh", "ow"), "n": ("oc",)} if fastest == "oc" else {"m": ("oc",), "n": ("oh", "ow")}
    wg = {loop: candidates.column(f"wg_{loop}") for loop in OUTPUT_LOOPS}
    th = {loop: candidates.column(f"th_{loop}") for loop in OUTPUT_LOOPS}
    workgroups = np.prod([-(-size[loop] // wg[loop]) for loop in OUTPUT_LOOPS], axis=0) * size.get("n", 1)
    threads = np.prod([wg[loop] // th[loop] for loop in OUTPUT_LOOPS], axis=0)

    def side(values: dict, axis: str):
        return np.prod([values[loop] for loop in sides[axis]], axis=0)

    def partial(axis: str) -> np.ndarray:
        return np.logical_or.reduce([size[loop] % wg[loop] > 0 for loop in sides[axis]])

    return SimtGemm(
        size.get("n", 1),
        int(side(size, "m")),
        int(side(size, "n")),
        kh * kw * size.get("ic", 1),
        side(wg, "m"),
        side(wg, "n"),
        side(th, "m"),
        side(th, "n"),
        candidates.column("red_ic") * candidates.column("red_kh") * kw,
        candidates.column("promote"),
        workgroups=workgroups,
        threads=threads,
        partial_m=partial("m"),
        partial_n=partial("n"),
        fastest=size[fastest],
        lanes_fastest=wg[fastest] // th[fastest],
    )
