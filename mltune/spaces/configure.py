"""Which space a dispatch gets: by target kind and op kind, or the reason it gets none."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from iree.compiler import ir

from mltune.frontend.problem import Problem, Untunable
from mltune.input.model import strip_configuration
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
from mltune.spaces.gpu_matvec import GpuMatvec
from mltune.spaces.gpu_multi_loop import GpuMultiLoopContraction
from mltune.spaces.gpu_reduction import GpuReduction
from mltune.spaces.gpu_simt_contraction import GpuSimtContraction
from mltune.spaces.gpu_simt_convolution import GpuSimtConvolution, GpuSimtPointwise
from mltune.spaces.iree_constraints import emit_constraints
from mltune.targets import CpuInfo, GpuInfo, TargetFacts

# The GPU space of each op kind; each picks the compiler's emitted constraints it needs for the dispatch.
_GPU_SPACES = {"contraction": GpuContraction, "matvec": GpuMatvec, "convolution": GpuConvolution,
               "attention": GpuAttention, "reduction": GpuReduction,
               "multi_loop_contraction": GpuMultiLoopContraction}
# The space of an op kind when the target has no MMA intrinsic for its operand types (scalar FMAs per thread).
_GPU_SPACES_WITHOUT_MMA = {"contraction": GpuSimtContraction, "convolution": GpuSimtConvolution,
                           "multi_loop_contraction": GpuSimtPointwise}
_GPU_CONVOLUTION_LAYOUTS = ("nhwc_hwcf", "nchw_fchw")  # the GPU convolution space's (`gpu_convolution.py`)

# Problems a model-level candidate cannot reach on a GPU API, and why (a dumped dispatch compiled as it is can be tuned).
_MODEL_LEVEL_UNREACHABLE: dict[str, tuple[Callable[[Problem], bool], str]] = {
    "cuda": (lambda problem: problem.op_kind in ("convolution", "multi_loop_contraction") and not problem.batch,
             "a batch-1 convolution on CUDA (a 1x1 one reads as a multi-loop contraction): IREE 3.13 ignores tuning "
             "specs there and folds the unit batch into a new op, dropping a config annotated on the model's op "
             "(docs/whole-models.md); its dumped dispatch can be tuned"),
}

CpuSpaceMaker = Callable[[Problem, CpuInfo, ir.Context, bool], "Configurator | Untunable"]


# The llvm-cpu space of each op kind (called with the `data_tiling` wish, which only contractions can honour).
_CPU_SPACES: dict[str, CpuSpaceMaker] = {
    "contraction": CpuContraction,
    "convolution": CpuConvolution,
    "depthwise_convolution": CpuConvolution,
    "attention": lambda problem, cpu, context, data_tiling: CpuAttention(problem, cpu, context),
    "reduction": CpuReduction,
    "multi_loop_contraction": CpuMultiLoopContraction,
}


OTHER_LOOP_NEST = ("IREE configures this dumped dispatch as another loop nest than the model does (a unit batch split "
                   "into unit M and K loops), which no spec for the dispatch's op matches: tune the model it came from")


def make_configurator(problem: Problem, facts: TargetFacts, context: ir.Context, bench: Path,
                      work_dir: Path, data_tiling: bool = False, dispatch_level: bool = False) -> Configurator | Untunable:
    """The configurator of a root op; GPU spaces are conjoined with the compiler's own constraints
    for the dispatch (`bench`, a dumped benchmark file) where it emits them, in the problem's loops. `data_tiling`: a CPU contraction's
    space holds its data-tiled lowering too. `dispatch_level`: candidates are compiled from the dumped benchmark
    itself, where the compiler configures the loop nest it emitted constraints for, so a problem whose constraints
    had to be renumbered is refused there, and one a model-level candidate cannot reach is refused elsewhere."""
    if isinstance(facts, CpuInfo):
        if problem.op_kind not in _CPU_SPACES:
            return Untunable(problem.op_name, f"{problem.op_kind}s are tuned on GPU targets only (llvm-cpu: not yet)")
        return _CPU_SPACES[problem.op_kind](problem, facts, context, data_tiling)
    assert isinstance(facts, GpuInfo)
    found = _gpu_configurator(problem, facts, context, bench, work_dir, dispatch_level)
    unreachable, why = _MODEL_LEVEL_UNREACHABLE.get(facts.api, (lambda _: False, ""))
    if not dispatch_level and not isinstance(found, Untunable) and unreachable(problem):
        return Untunable(problem.op_name, why)
    return found


def _gpu_configurator(problem: Problem, facts: GpuInfo, context: ir.Context, bench: Path, work_dir: Path,
                      dispatch_level: bool) -> Configurator | Untunable:
    """`make_configurator` on a GPU target: the op kind's space over the dispatch's emitted constraints."""
    if problem.op_kind not in _GPU_SPACES or (problem.op_kind == "convolution"
                                               and problem.layout not in _GPU_CONVOLUTION_LAYOUTS):
        return Untunable(problem.op_name, f"{problem.op_kind} ({problem.layout}) has no GPU space yet")
    work_dir.mkdir(parents=True, exist_ok=True)
    stripped = work_dir / f"{bench.stem}.stripped.mlir"
    strip_configuration(bench, stripped)
    space = CudaAttention if problem.op_kind == "attention" and facts.api == "cuda" else _GPU_SPACES[problem.op_kind]
    try:
        raw = emit_constraints(stripped, work_dir, context)
        emitted = [in_problem_loops(c, problem) for c in raw]
        if dispatch_level and any(new is not old for new, old in zip(emitted, raw)):
            return Untunable(problem.op_name, OTHER_LOOP_NEST)
        try:
            return space(problem, facts, context, emitted)
        except NoMmaIntrinsic:
            if problem.op_kind not in _GPU_SPACES_WITHOUT_MMA:
                raise
            return _GPU_SPACES_WITHOUT_MMA[problem.op_kind](problem, facts, context, emitted)
    except ValueError as err:
        return Untunable(problem.op_name, str(err))
