"""Which space a dispatch gets: by target kind and op kind, or the reason it gets none."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from iree.compiler import ir

from mltune.frontend.problem import Problem, Untunable
from mltune.input.tuning_input import strip_configuration
from mltune.spaces.candidate import Configurator
from mltune.spaces.cpu_attention import CpuAttention
from mltune.spaces.cpu_contraction import CpuContraction
from mltune.spaces.cpu_convolution import CpuConvolution
from mltune.spaces.cpu_reduction import CpuMultiLoopContraction, CpuReduction
from mltune.spaces.cuda_attention import CudaAttention
from mltune.spaces.emitted_loops import in_problem_loops
from mltune.spaces.gpu_attention import GpuAttention
from mltune.spaces.gpu_contraction import GpuContraction, NoMmaIntrinsic
from mltune.spaces.gpu_convolution import GpuConvolution
from mltune.spaces.gpu_elementwise import GpuElementwise
from mltune.spaces.gpu_matvec import GpuMatvec
from mltune.spaces.gpu_multi_loop import ConfiguredWithoutMma, GpuMultiLoopContraction
from mltune.spaces.gpu_reduction import GpuReduction
from mltune.spaces.gpu_simt_contraction import GpuSimtContraction
from mltune.spaces.gpu_simt_convolution import GpuSimtConvolution, GpuSimtPointwise
from mltune.spaces.iree_constraints import emit_constraints
from mltune.targets import CpuInfo, GpuInfo, TargetFacts

# The GPU space of each op kind; each picks the compiler's emitted constraints it needs for the dispatch.
GPU_SPACES = {
    "contraction": GpuContraction,
    "matvec": GpuMatvec,
    "convolution": GpuConvolution,
    "attention": GpuAttention,
    "reduction": GpuReduction,
    "multi_loop_contraction": GpuMultiLoopContraction,
    "elementwise": GpuElementwise,
    # no MMA for a depthwise convolution on any target: IREE gives it scalar TileAndFuse threads
    "depthwise_convolution": GpuSimtConvolution,
}
# The space of an op kind on CUDA where CUDA takes one of its own (no spec matcher: the config goes on the source op).
CUDA_SPACES = {"attention": CudaAttention}
# The space of an op kind when the target has no MMA intrinsic for its operand types (scalar FMAs per thread).
GPU_SPACES_WITHOUT_MMA = {
    "contraction": GpuSimtContraction,
    "convolution": GpuSimtConvolution,
    "multi_loop_contraction": GpuSimtPointwise,
}
_GPU_CONVOLUTION_LAYOUTS = ("nhwc_hwcf", "nchw_fchw")  # the GPU convolution space's (`gpu_convolution.py`)
CHANNEL_FIRST_DEPTHWISE = "nchw_chw"

CpuSpaceMaker = Callable[[Problem, CpuInfo, ir.Context, bool], "Configurator | Untunable"]


# The llvm-cpu space of each op kind (called with the `data_tiling` wish, which only contractions can honour).
CPU_SPACES: dict[str, CpuSpaceMaker] = {
    "contraction": CpuContraction,
    "convolution": CpuConvolution,
    "depthwise_convolution": CpuConvolution,
    "attention": CpuAttention,
    "reduction": CpuReduction,
    "multi_loop_contraction": CpuMultiLoopContraction,
}


def make_configurator(
    problem: Problem, facts: TargetFacts, context: ir.Context, bench: Path, work_dir: Path, data_tiling: bool = False
) -> Configurator | Untunable:
    """The configurator of a root op; GPU spaces are conjoined with the compiler's own constraints for the dispatch
    (`bench`, a dumped benchmark file) where it emits them, in the problem's loops. `data_tiling`: a CPU
    contraction's space holds its data-tiled lowering too."""
    if isinstance(facts, CpuInfo):
        if problem.op_kind not in CPU_SPACES or problem.layout == CHANNEL_FIRST_DEPTHWISE:
            kind = "channel-first depthwise convolution" if problem.op_kind in CPU_SPACES else problem.op_kind
            return Untunable(
                problem.op_name, f"{kind.replace('_', ' ')} ops are tuned on GPU targets only (llvm-cpu: not yet)"
            )
        return CPU_SPACES[problem.op_kind](problem, facts, context, data_tiling)
    assert isinstance(facts, GpuInfo)
    return _gpu_configurator(problem, facts, context, bench, work_dir)


def _gpu_configurator(
    problem: Problem, facts: GpuInfo, context: ir.Context, bench: Path, work_dir: Path
) -> Configurator | Untunable:
    """`make_configurator` on a GPU target: the op kind's space over the dispatch's emitted constraints."""
    if problem.op_kind not in GPU_SPACES or (
        problem.op_kind == "convolution" and problem.layout not in _GPU_CONVOLUTION_LAYOUTS
    ):
        return Untunable(problem.op_name, f"{problem.op_kind} ({problem.layout}) has no GPU space yet")
    work_dir.mkdir(parents=True, exist_ok=True)
    stripped = work_dir / f"{bench.stem}.stripped.mlir"
    strip_configuration(bench, stripped)
    space = (CUDA_SPACES if facts.api == "cuda" else {}).get(problem.op_kind, GPU_SPACES[problem.op_kind])
    try:
        emitted = [in_problem_loops(c, problem) for c in emit_constraints(stripped, work_dir, context)]
        try:
            return space(problem, facts, context, emitted)
        except ConfiguredWithoutMma:
            return GpuSimtPointwise(problem, facts, context, emitted)
        except NoMmaIntrinsic:
            if problem.op_kind not in GPU_SPACES_WITHOUT_MMA:
                raise
            return GPU_SPACES_WITHOUT_MMA[problem.op_kind](problem, facts, context, emitted)
    except ValueError as err:
        return Untunable(problem.op_name, str(err))
