"""What the GPU spaces without an MMA intrinsic share (`gpu_simt_contraction`, `gpu_simt_convolution`): IREE's
`TileAndFuse` with thread blocks of scalar FMAs, written as a `compilation_info`, and their candidates seen as a
GEMM (`SimtGemm`), which is how the features and the heuristic read them whatever the op."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from iree.compiler import ir
from iree.compiler.dialects import iree_codegen, iree_gpu

from mltune.frontend.problem import Problem
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.gpu_compilation_info import i64_array
from mltune.spaces.iree_constraints import EmittedConstraints
from mltune.spaces.space import Space
from mltune.targets.gpu import GpuInfo

PIPELINE = "TileAndFuseSIMT"  # the records' name: IREE's TileAndFuse, told apart from its MMA configurations
MAX_UNROLLED = 4096  # FMAs per thread and reduction step, which IREE unrolls (larger ones take minutes to compile)
CUDA_STATIC_SHARED_BYTES = 48 * 1024


def shared_limit(gpu: GpuInfo) -> int:
    """Shared memory a workgroup may use: on CUDA the 48 KiB a kernel gets without opting in to more."""
    return min(gpu.shared_memory_bytes, CUDA_STATIC_SHARED_BYTES) if gpu.api == "cuda" else gpu.shared_memory_bytes


def tile_and_fuse_info(
    context: ir.Context,
    lists: dict[str, list[int]],
    workgroup_size: list[int],
    subgroup_size: int,
    pipeline_options: bool,
) -> str:
    """A `#iree_codegen.compilation_info` of IREE's `TileAndFuse` without MMA, built with IREE's attribute bindings:
    the lowering config's `lists`, and, with `pipeline_options`, IREE's pipeline options with their defaults (as its
    own configs write them where operands are staged)."""
    with context:
        lowering = iree_gpu.LoweringConfigAttr.get(ir.DictAttr.get({name: i64_array(v) for name, v in lists.items()}))
        options = iree_gpu.PipelineOptionsAttr.get(
            no_reduce_shared_memory_bank_conflicts=False, use_igemm_convolution=False
        )
        translation = iree_codegen.TranslationInfoAttr.get(
            iree_gpu.PipelineAttr.get(iree_gpu.LoweringPipeline.TileAndFuse),
            None,
            workgroup_size,
            subgroup_size,
            ir.DictAttr.get({"gpu_pipeline_options": options}) if pipeline_options else None,
        )
        return str(iree_codegen.CompilationInfoAttr.get(lowering, translation))


def is_simt(candidates: CandidateSet) -> bool:
    """Whether a problem's candidates are a SIMT space's: thread blocks (`th_*` knobs), no intrinsic."""
    return any(name.startswith("th_") for name in candidates.names)


@dataclass(frozen=True)
class SimtGemm:
    """SIMT candidates as a GEMM: each workgroup computes a `wg_m x wg_n` output tile, each thread a `th_m x th_n`
    block, `red_k` reduction elements per step; the threads of a warp lie along N first (the output's fastest loop).
    Sizes are the problem's; the rest per candidate: `partial_m`/`partial_n`, a tile of some loop of that side does
    not divide it (masked); `lanes_fastest`, a workgroup's threads along the output's fastest loop, whose size is
    `fastest` (N itself for a contraction, the image width of an NCHW convolution)."""

    batch: int
    m: int
    n: int
    k: int
    wg_m: np.ndarray
    wg_n: np.ndarray
    th_m: np.ndarray
    th_n: np.ndarray
    red_k: np.ndarray
    promote: np.ndarray
    workgroups: np.ndarray
    threads: np.ndarray
    partial_m: np.ndarray
    partial_n: np.ndarray
    fastest: int
    lanes_fastest: np.ndarray


class SimtConfigurator:
    """A `Configurator` over TileAndFuse thread blocks: subclasses give the space and IREE's lists of a point."""

    def __init__(self, problem: Problem, gpu: GpuInfo, context: ir.Context, emitted: Sequence[EmittedConstraints] = ()):
        self.problem, self.gpu, self.context = problem, gpu, context
        self.sg_size = gpu.subgroup_sizes[0]
        self.space = self._space()

    def _space(self) -> Space:
        raise NotImplementedError

    def levels(self, knobs: dict[str, int]) -> dict[str, list[int]]:
        """IREE's `workgroup`, `thread` and `reduction` lists of a point."""
        raise NotImplementedError

    def workgroup_size(self, knobs: dict[str, int]) -> int:
        raise NotImplementedError

    def candidates(self) -> CandidateSet:
        return CandidateSet(tuple(knob.name for knob in self.space.knobs), self.space.enumerate())

    def pipeline_of(self, knobs: dict[str, int]) -> str:
        return PIPELINE

    def compilation_info(self, knobs: dict[str, int]) -> str:
        """The `#iree_codegen.compilation_info` of one point."""
        lists = self.levels(knobs) | ({"promote_operands": [0, 1]} if knobs["promote"] else {})
        return tile_and_fuse_info(self.context, lists, [self.workgroup_size(knobs), 1, 1], self.sg_size, True)
