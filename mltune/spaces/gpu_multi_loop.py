"""The GPU space for a multi-loop contraction that is a 1x1 convolution without its unit batch: out[oc, oh, ow] =
sum_ic W[oc, ic] * in[ic, oh, ow], as a batch-1 PyTorch ResNet's 1x1 layers dispatch on GPU targets.

IREE 3.13 configures such an op with MMA `TileAndFuse` on the op itself (`use_igemm_convolution = false`): the image
loops are the GEMM's M, the output channel its N, the input channel K, each list in the op's loop order (for a
64x56x56x256 one on gfx942: workgroup [64, 1, 64, 0], subgroup [2, 1, 2, 0], reduction [0, 0, 0, 16]). Those are
the lists and rules of the batchless convolution space (`gpu_convolution.py`, whose loops are tiled in the output's
order, then K) over a filter of one tap, so this space is that one less the implicit GEMM, with TileAndFuse's own
prefetch (IREE's emitted TileAndFuse constraints, conjoined, pin it to 2). Only ops whose loops are the output's,
in its order, then one K loop, two image loops and one channel loop are taken. A strided one (a stride-2 1x1
projection) IREE configures as a reduction (`lane_basis`, `partial_reduction`), not with MMA: it is refused here
(`ConfiguredWithoutMma`), and `configure` gives it the scalar-thread space, whose TileAndFuse lists compile for it.
"""

from __future__ import annotations

from typing import Sequence

from iree.compiler import ir

from mltune.frontend.conv_loops import conv_loops, output_loops
from mltune.frontend.problem import Problem
from mltune.spaces.gpu_contraction import PIPELINE, TILE_AND_FUSE_PREFETCH, usable_mmas
from mltune.spaces.gpu_convolution import GpuConvolution, is_igemm_tile_and_fuse
from mltune.spaces.iree_constraints import EmittedConstraints
from mltune.targets.gpu import GpuInfo


class ConfiguredWithoutMma(ValueError):
    """IREE configures the op without MMA (a strided 1x1 convolution: as a reduction)."""


def _shape_refusal(problem: Problem) -> str:
    """Why the space cannot describe the op ("" where it can)."""
    shaped = not problem.batch and (len(problem.m), len(problem.n), problem.k) == (2, 1, (len(problem.bounds) - 1,))
    if not shaped or [conv_loops(problem)[name] for name in output_loops(problem)] != list(range(problem.k[0])):
        return (
            "only a multi-loop contraction over two image loops and one channel loop, stored in loop order, "
            "then one K loop (a 1x1 convolution without its batch) has a GPU space yet"
        )
    return ""


class GpuMultiLoopContraction(GpuConvolution):
    """The `Configurator` for a batchless 1x1 convolution read as a multi-loop contraction: MMA `TileAndFuse`."""

    igemm = False
    prefetch_stages = (TILE_AND_FUSE_PREFETCH,)

    def __init__(self, problem: Problem, gpu: GpuInfo, context: ir.Context, emitted: Sequence[EmittedConstraints]):
        if usable_mmas(problem, gpu):  # without one, IREE configures none with MMA: `GpuSimtPointwise`
            if problem.strides:
                raise ConfiguredWithoutMma(
                    "a strided multi-loop contraction: IREE configures it as a reduction, not with MMA"
                )
            refusal = _shape_refusal(problem)
            if refusal:
                raise ValueError(refusal)
        super().__init__(problem, gpu, context, emitted)

    @staticmethod
    def is_own_tile_and_fuse(emitted: EmittedConstraints) -> bool:
        """The emitted op for plain (not implicit-GEMM) TileAndFuse."""
        return emitted.pipeline == PIPELINE and not is_igemm_tile_and_fuse(emitted)
