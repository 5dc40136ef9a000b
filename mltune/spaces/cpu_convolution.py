"""The llvm-cpu `ConvTileAndDecomposeExpert` space for 2-D convolutions: NHWC x HWCF, NCHW x FCHW and depthwise
NHWC x HWC, any batch size and stride.

IREE 3.13 gives such a convolution (loops N, OH, OW, OC, KH, KW, IC; a depthwise one has its channel C in OC's
place and no IC) three tiling levels:
`distribution` over N, OH, OW, OC; `vector_common_parallel` over the same loops; `vector_reduction`
over KH, KW, IC. After tiling, the pipeline decomposes the conv into a 1-D conv, which its verifier
allows only when OH and KH, or OW and KW, are both tiled to 1 ("can't decompose the conv op"
otherwise). Knobs: workgroup tiles of OH, OW, OC; vector tiles of OH, OW, OC; reduction tiles of
KH, KW (1 or the whole window) and IC. N keeps tile 1, as IREE's own default does (e.g.
`distribution = [1, 2, 8, 16, 0, 0, 0]`, `vector_common_parallel = [1, 1, 8, 16, 0, 0, 0]`,
`vector_reduction = [0, 0, 0, 0, 1, 1, 8]` for a 2x8x8x8 -> 16 3x3 conv on AVX-512); a batch-1 conv's
distribution tile of N is 0, as IREE's default has it (docs/cpu-convolutions.md: how its spec reaches the op).
Rules, so that candidates compile:
- a vector tile is at most its workgroup tile; tiles need not divide (the verifier only needs the
  removed pair at 1, and every sampled candidate compiled: docs/cpu-convolutions.md);
- the product of all vector and reduction tiles times the accumulator's bytes stays under
  `native_vector_size` x 512 bytes, the limit the contraction space uses too, and the filter slice
  (`FILTER_SLICE_SHARE`) under half of it.
"""

from __future__ import annotations

from mltune.frontend.conv_loops import conv_loops, reduction_loops
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.cpu_contraction import (
    VECTOR_BYTES_LIMIT_FACTOR,
    CpuContraction,
    vector_tile_values,
    workgroup_tile_values,
)
from mltune.spaces.space import Knob, Space
from mltune.targets.cpu import CpuInfo

PIPELINE = "ConvTileAndDecomposeExpert"
MAX_WORKGROUP_TILE = {"oh": 64, "ow": 128, "oc": 256}
MAX_VECTOR_TILE = {"oh": 8, "ow": 32, "oc": 64, "ic": 64}
PARALLEL = ("oh", "ow", "oc")
# The filter slice a vector tile reads (KH x KW x IC x OC tiles) takes at most this share of the vector limit: a
# 24 KiB slice (3 x 32 x 64 f32, strided NCHW 3x3 on AVX-512) compiled and crashed at run time; 16 and 18 KiB ran.
FILTER_SLICE_SHARE = 2


def cpu_convolution_space(problem: Problem, cpu: CpuInfo) -> Space:
    size = {name: problem.bounds[loop] for name, loop in conv_loops(problem).items()}
    knobs = [Knob(f"wg_{d}", workgroup_tile_values(size[d], MAX_WORKGROUP_TILE[d])) for d in PARALLEL]
    knobs += [Knob(f"vec_{d}", vector_tile_values(size[d], MAX_VECTOR_TILE[d])) for d in PARALLEL]
    knobs += [Knob("red_kh", tuple(sorted({1, size["kh"]}))), Knob("red_kw", tuple(sorted({1, size["kw"]})))]
    if "ic" in size:
        knobs.append(Knob("red_ic", vector_tile_values(size["ic"], MAX_VECTOR_TILE["ic"])))
    space = Space(knobs, [])
    v = space.var
    vector_limit = cpu.native_vector_bytes * VECTOR_BYTES_LIMIT_FACTOR
    filter_slice = v("vec_oc")
    for loop in reduction_loops(problem):
        filter_slice = filter_slice * v(f"red_{loop}")
    volume = v("vec_oh") * v("vec_ow") * filter_slice
    constraints = [v(f"vec_{d}") <= v(f"wg_{d}") for d in PARALLEL]
    constraints += [
        ((v("vec_oh") == 1) & (v("red_kh") == 1)) | ((v("vec_ow") == 1) & (v("red_kw") == 1)),  # decomposable
        volume * element_bytes(problem.out_type) < vector_limit,
        filter_slice * element_bytes(problem.rhs_type) <= vector_limit // FILTER_SLICE_SHARE,
    ]
    space.constraints = tuple(constraints)
    return space


def tile_lists(problem: Problem, knobs: dict[str, int]) -> dict[str, list[int]]:
    """The three tiling levels, one entry per loop of the op."""
    loops = conv_loops(problem)
    levels = {
        name: [0] * len(problem.bounds) for name in ("distribution", "vector_common_parallel", "vector_reduction")
    }
    for n in problem.batch:  # batch 1: distribution tile 0, as IREE's default
        levels["distribution"][n] = min(1, problem.bounds[n] - 1)
        levels["vector_common_parallel"][n] = 1
    for d in PARALLEL:
        levels["distribution"][loops[d]] = knobs[f"wg_{d}"]
        levels["vector_common_parallel"][loops[d]] = knobs[f"vec_{d}"]
    for d in reduction_loops(problem):
        levels["vector_reduction"][loops[d]] = knobs[f"red_{d}"]
    return levels


def knobs_of_levels(problem: Problem, levels: dict[str, list[int]]) -> dict[str, int]:
    """The knobs that describe a lowering config's tiling levels (the inverse of `tile_lists`)."""
    loops = conv_loops(problem)
    knobs = {f"wg_{d}": levels["distribution"][loops[d]] for d in PARALLEL}
    knobs |= {f"vec_{d}": levels["vector_common_parallel"][loops[d]] for d in PARALLEL}
    return knobs | {f"red_{d}": levels["vector_reduction"][loops[d]] for d in reduction_loops(problem)}


class CpuConvolution(CpuContraction):
    """The `Configurator` for a 2-D convolution (depthwise too) on llvm-cpu with `ConvTileAndDecomposeExpert`."""

    pipeline = PIPELINE
    has_data_tiled_lowering = False

    build_space = staticmethod(cpu_convolution_space)  # (problem, cpu) -> Space
    levels = staticmethod(tile_lists)  # (problem, knobs) -> tiling levels
