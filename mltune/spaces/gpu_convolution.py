"""The GPU space for 2-D channel-last convolutions over IREE's two MMA pipelines, a knob as in the contraction
space (`vector_distribute`): `TileAndFuse` as an implicit GEMM (IGEMM, IREE's default) and `VectorDistribute`
on the convolution itself.

IGEMM tiles the output's loops in the output's order, then K (K = filter h x filter w x input channels):
[batch, out_h, out_w, out_channel, K] for NHWC x HWCF; [out_channel, out_h, out_w, K] for the batchless NCHW x FCHW
convolutions IREE dispatches for a batch-1 PyTorch model on GPU targets (it folds the unit batch away, and
configures and honours the batchless op: there is no batch to put back, unlike llvm-cpu's `rebatch.py`). The output
image loops are the GEMM's M, the output channel its N, whatever the layout. Knobs: `mma`, the workgroup tile of
each parallel loop (`wg_b`, `wg_oh`, `wg_ow`, `wg_oc`; a batchless convolution keeps `wg_b = 1`, batch 1 implied),
MMA tiles per subgroup along out_h, out_w and out_channel (`sg_oh`, `sg_ow`, `sg_oc`; batch keeps 1), the K tile
`red_k` in MMA-K units, and the pipeline options of the contraction space. VectorDistribute tiles only the output
width, the output channels and the input channels (IREE emits its constraints so, and its own VectorDistribute
convolution configuration, read with `--iree-codegen-llvmgpu-use-igemm=false`, is such a point): its candidates
have `wg_b = wg_oh = sg_oh = 1`; its rules read operands as channel-last, so NCHW convolutions get IGEMM only.

The model mirrors IREE's emitted IGEMM TileAndFuse constraints (read from the compiler's output:
the innermost M loop and N carry the MMA alignment; the K tile divides the MMA-aligned input
channels; the subgroup counts are prod(wg_m) / (prod(sg_m) * mma_m) and wg_oc / (sg_oc * mma_n)),
and the emitted constraints themselves are conjoined (the compiler emits them for ROCm and CUDA);
without the IGEMM ones a convolution is not tuned, without the VectorDistribute ones it has no such points.
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np
import z3
from iree.compiler import ir

from mltune.frontend.conv_loops import output_loops
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.gpu_contraction import (
    MAX_SUBGROUP_COUNT,
    MAX_SUBGROUPS,
    MAX_TILE,
    PIPELINE,
    REDUCTION_TILES,
    SUBGROUP_TILES,
    WAVES_PER_EU,
    MmaConfigurator,
    NoMmaIntrinsic,
    aligned_divides,
    by_pipeline_knob,
    lookup,
    substitute_emitted,
    tile_values,
    usable_mmas,
    vector_distribute_constraints,
)
from mltune.spaces.iree_constraints import EmittedConstraints, pins_prefetch, variables_of
from mltune.spaces.space import Knob, Space
from mltune.spaces.subgroup_tiling import Derived
from mltune.spaces.vector_distribute import PIPELINE as VECTOR_DISTRIBUTE
from mltune.targets.gpu import GpuInfo

# IREE's emitted constraint says "prefetch_num_stages == 0 (use_igemm_convolution=true)", yet its own default
# IGEMM configuration uses 2 (and compiles): both are kept, and that one assertion is not conjoined.
IGEMM_PREFETCH_STAGES = (0, 2)  # also VectorDistribute's on ROCm (its rules pin 0 on CUDA)
VD_NAMES = {"wg_m": "wg_ow", "wg_n": "wg_oc"}  # the contraction space's knob names VectorDistribute's rules use
OUTER_SUBGROUP_TILES = (1, 2)
# An 8-wide output-channel tile (one NV_MMA_SYNC n-tile) crashes NVPTX instruction selection ("Cannot select:
# v2i16 = umul_lohi"), where the wider ones compile (docs/whole-models.md).
MIN_CHANNEL_TILE = 16
KNOB_OF_LOOP = {"n": "b", "oh": "oh", "ow": "ow", "oc": "oc"}  # a parallel loop's knob suffix (wg_b, sg_oh, ...)
VD_LAYOUTS = ("nhwc_hwcf",)  # VectorDistribute's operand rules (`vector_distribute.py`) read channel-last operands
# IGEMM's reduction list: a 0 per parallel loop, then the K tile (the direct TileAndFuse one tiles the filter too)
_IGEMM_REDUCTION = re.compile(r'reduction = \[(?:0, )+#iree_codegen\.smt\.int_knob<"red_\d+">\]')


def is_igemm_tile_and_fuse(emitted: EmittedConstraints) -> bool:
    """The emitted op for TileAndFuse with `use_igemm_convolution` (an IGEMM reduction list)."""
    return (
        emitted.pipeline == PIPELINE
        and "use_igemm_convolution = #iree_codegen.smt.one_of_knob" in emitted.knobs_text
        and _IGEMM_REDUCTION.search(emitted.knobs_text) is not None
    )


def _divisors(size: int, cap: int) -> tuple[int, ...]:
    return tuple(d for d in range(1, min(size, cap) + 1) if size % d == 0)


def divides_filter_k(assertion: z3.BoolRef, variables: set[str]) -> bool:
    """IREE's "aligned inner k dim ... must be divisible by red * mma_k", over the unpadded filter K (kh x kw x ic):
    IREE's own default breaks it where the input channels are not MMA-aligned (a 7x7 stem's 3 channels: K = 147,
    K tile 4 with `padding`); the space's own rule, the K tile divides the aligned channels, implies it otherwise."""
    if not (z3.is_eq(assertion) and z3.is_mod(assertion.arg(0))):
        return False
    dividend, tile = assertion.arg(0).arg(0), assertion.arg(0).arg(1)
    return all(name.startswith("problem_dim_") for name in variables_of(dividend)) and any(
        name.startswith("red_") for name in variables_of(tile)
    )


class GpuConvolution(MmaConfigurator):
    """The `Configurator` for an NHWC x HWCF convolution on a GPU with IGEMM `TileAndFuse` or `VectorDistribute`
    (where `vector_distribute`, IREE's emitted VectorDistribute constraints for the dispatch, is given)."""

    vd_tile_knobs = (VD_NAMES["wg_m"], VD_NAMES["wg_n"])
    igemm = True
    vd_thread_promotion = False  # IREE's own VectorDistribute convolution config promotes without it
    prefetch_stages = IGEMM_PREFETCH_STAGES

    def __init__(self, problem: Problem, gpu: GpuInfo, context: ir.Context, emitted: Sequence[EmittedConstraints]):
        self.problem, self.gpu, self.context = problem, gpu, context
        igemm = next((c for c in emitted if self.is_own_tile_and_fuse(c)), None)
        self.mmas = usable_mmas(problem, gpu, igemm)
        if not self.mmas:
            raise NoMmaIntrinsic(
                f"{gpu.arch} has no MMA intrinsic for {problem.lhs_type} x {problem.rhs_type} -> "
                f"{problem.out_type} {problem.op_kind}s (IREE lowers them with scalar TileAndFuse "
                "threads)"
            )
        if igemm is None:
            raise ValueError(
                f"IREE emits no {'IGEMM ' if self.igemm else ''}TileAndFuse constraints for this "
                f"{problem.op_kind} on {gpu.arch}"
            )
        vd_emitted = next((c for c in emitted if c.pipeline == VECTOR_DISTRIBUTE), None)
        self.space, self.derived = self._space(igemm, vd_emitted if problem.layout in VD_LAYOUTS else None)

    @staticmethod
    def is_own_tile_and_fuse(emitted: EmittedConstraints) -> bool:
        """The emitted TileAndFuse op this space conjoins: IGEMM's."""
        return is_igemm_tile_and_fuse(emitted)

    def _space(self, emitted: EmittedConstraints, vd_emitted: EmittedConstraints | None) -> tuple[Space, Derived]:
        p, gpu, mmas = self.problem, self.gpu, self.mmas
        b, (oh, ow), (oc,) = int(np.prod(p.sizes(p.batch))), p.sizes(p.m), p.sizes(p.n)
        channels = p.bounds[p.k[-1]]
        knobs = [
            Knob("mma", tuple(range(len(mmas)))),
            Knob("wg_b", _divisors(b, 4)),
            Knob("wg_oh", _divisors(oh, 8)),
            Knob("wg_ow", tile_values(ow, {x.m for x in mmas})),
            Knob("wg_oc", tile_values(oc, {x.n for x in mmas})),
            Knob("sg_oh", OUTER_SUBGROUP_TILES),
            Knob("sg_ow", SUBGROUP_TILES),
            Knob("sg_oc", SUBGROUP_TILES),
            Knob("red_k", REDUCTION_TILES),
            Knob("sg_size", gpu.subgroup_sizes),
            Knob("prefetch", self.prefetch_stages),
            Knob("no_bank_fix", (0, 1)),
            Knob("waves_per_eu", WAVES_PER_EU if gpu.api == "rocm" else (0,)),
            Knob("vector_distribute", (0, 1) if vd_emitted else (0,)),
        ]
        space = Space(knobs, [])
        v = space.var
        mma_m, mma_n, mma_k = (lookup(v("mma"), [getattr(x, axis) for x in mmas]) for axis in "mnk")
        wg_m = v("wg_b") * v("wg_oh") * v("wg_ow")
        count_m = wg_m / (v("sg_oh") * v("sg_ow") * mma_m)
        count_n = v("wg_oc") / (v("sg_oc") * mma_n)
        derived = Derived(mma_m, mma_n, mma_k, count_m, count_n, count_m * count_n * v("sg_size"))
        k_tile = v("red_k") * mma_k
        own = [
            v("wg_oh") % v("sg_oh") == 0,
            aligned_divides(ow, mma_m, v("wg_ow")),
            v("wg_ow") % (v("sg_ow") * mma_m) == 0,
            aligned_divides(oc, mma_n, v("wg_oc")),
            v("wg_oc") % (v("sg_oc") * mma_n) == 0,
            wg_m <= MAX_TILE,
            v("wg_oc") <= MAX_TILE,
            v("wg_oc") >= MIN_CHANNEL_TILE,
            wg_m % (v("sg_oh") * v("sg_ow") * mma_m) == 0,
            count_m <= MAX_SUBGROUP_COUNT,
            count_n <= MAX_SUBGROUP_COUNT,
            count_m * count_n <= MAX_SUBGROUPS,
            aligned_divides(channels, mma_k, k_tile),
            k_tile <= MAX_TILE,
            derived.workgroup_size <= gpu.max_threads,
            v("sg_size") == gpu.subgroup_sizes[0],
            element_bytes(p.lhs_type) * (wg_m + v("wg_oc")) * k_tile <= gpu.shared_memory_bytes,
        ]
        vector_distribute = [v("wg_b") == 1, v("wg_oh") == 1, v("sg_oh") == 1]
        if vd_emitted:
            vector_distribute += vector_distribute_constraints(
                p, gpu, space, derived, lambda name: v(VD_NAMES.get(name, name)), mmas, vd_emitted
            )
        space.constraints = (*own, *by_pipeline_knob(space, self._rename(emitted, space, derived), vector_distribute))
        return space, derived

    def _rename(self, emitted: EmittedConstraints, space: Space, derived: Derived) -> list[z3.BoolRef]:
        """IREE's IGEMM assertions over mltune's knobs: wg_<i> / sg_<i> are the IGEMM loops (`output_loops`), red_<c>
        the channel loop. IREE's prefetch and filter-K assertions are left out (IGEMM_PREFETCH_STAGES and
        `divides_filter_k` say why)."""
        v = space.var
        names = {"use_igemm_idx": z3.IntVal(1), f"red_{self.problem.k[-1]}": v("red_k")}
        for i, loop in enumerate(output_loops(self.problem)):
            names |= {
                f"wg_{i}": v(f"wg_{KNOB_OF_LOOP[loop]}"),
                f"sg_{i}": z3.IntVal(1) if loop == "n" else v(f"sg_{KNOB_OF_LOOP[loop]}"),
            }
        kept = emitted.without(
            lambda assertion, variables: pins_prefetch(assertion, variables) or divides_filter_k(assertion, variables)
        )
        return substitute_emitted(kept, self.problem, space, derived, names)

    def tile_lists(self, knobs: dict[str, int]) -> dict[str, list[int]]:
        """IREE's IGEMM lists over the output's loops then K (e.g. [batch, out_h, out_w, out_channel, K])."""
        loops = output_loops(self.problem)
        return {
            "workgroup": [knobs[f"wg_{KNOB_OF_LOOP[loop]}"] for loop in loops] + [0],
            "subgroup": [1 if loop == "n" else knobs[f"sg_{KNOB_OF_LOOP[loop]}"] for loop in loops] + [0],
            "reduction": [0] * len(loops) + [knobs["red_k"]],
        }

    def padding(self, knobs: dict[str, int]) -> list[int] | None:
        """IREE's `padding` list (IGEMM loops, K in elements) when the output width, the output channels or the
        input channels are not multiples of their tiles (e.g. a 32-wide MMA on a 16-wide image); without it
        such candidates fail to compile (`tensor.expand_shape` ... `expected dimension 3 ...`)."""
        p = self.problem
        k_tile = knobs["red_k"] * self.mmas[knobs["mma"]].k
        (_, ow), (oc,), channels = p.sizes(p.m), p.sizes(p.n), p.bounds[p.k[-1]]
        if ow % knobs["wg_ow"] == 0 and oc % knobs["wg_oc"] == 0 and channels % k_tile == 0:
            return None
        return [*self.tile_lists(knobs)["workgroup"][:-1], k_tile]
