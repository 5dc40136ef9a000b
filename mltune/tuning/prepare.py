"""The first stage of a run: the input made ready to build (specialised to the requested shapes, dumped, lowered to
the form candidates annotate, its weights moved out of every build), its dispatches read and checked against the
target, and every distinct problem given its configurator (its space)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from iree.compiler import ir

from mltune.emit.apply import annotatable_keys, annotates_source, match_key
from mltune.errors import UserError
from mltune.frontend.problem import Problem, Untunable
from mltune.input.dispatches import Dispatch, read_checked_dispatches
from mltune.input.tuning_input import TuningInput, prepare_input
from mltune.input.specialize import Specialised
from mltune.whole_model.input_form import in_input_form
from mltune.whole_model.merge import StarterSpec, read_starter_spec
from mltune.whole_model.weights import start_split, without_weights
from mltune.spaces.candidate import Configurator
from mltune.spaces.configure import make_configurator
from mltune.system.progress import display
from mltune.targets import TargetFacts
from mltune.tuning.request import TuneRequest
from mltune.tuning.shapes import specialised_request

NOT_IN_SOURCE = (
    "on CUDA a candidate is written onto the source's op, and no op of the source is this problem (IREE "
    "forms it from other ops: a linalg.softmax, a transposed or reshaped operand): tune its dumped "
    "dispatch"
)


@dataclass(frozen=True)
class PreparedRun:
    """What the later stages start from. `request` is the one tuned (specialised where `--shape` asked);
    `given` the input as the user builds it, `builds` the input every candidate compiles from."""

    request: TuneRequest
    specialised: Specialised | None  # the shapes the model was specialised to
    given: TuningInput
    builds: TuningInput
    starter: StarterSpec | None
    dispatches: list[Dispatch]  # every dispatch, an unconfigurable problem listed as untunable
    configured: dict[str, tuple[Dispatch, Configurator]]  # by problem key
    facts: TargetFacts
    search_flags: bool  # compile-flag variants measured on the whole model
    data_tiling: bool  # a contraction's data-tiled lowering is part of its space

    @property
    def level(self) -> str:
        return "dispatch" if self.builds.invocation.dispatch_level else "model"


def prepared_input(request: TuneRequest, context: ir.Context) -> tuple[TuningInput, TuningInput]:
    """The input as given, dumped, and the input every build compiles from. The weights' split is a compile of the
    same file with the same flags, so it runs beside the dump's compile rather than after it."""
    weights_dir = request.run_dir / "weights"
    with (
        display().phase(
            "dump the input's dispatches and move the model's weights out of every build (iree-compile, side by side)"
        ),
        ThreadPoolExecutor(max_workers=1) as pool,
    ):
        started = start_split(request.input_path, request.target, request.compile_flags, context, weights_dir, pool)
        prepared = prepare_input(
            request.input_path,
            request.target,
            request.run_dir,
            context,
            request.function,
            request.seed,
            request.compile_flags,
            request.call_inputs,
        )
        if started is not None:
            started.result()  # made beside the dump: `without_weights` finds it
        return prepared, without_weights(
            in_input_form(prepared, request.target.kind, request.run_dir), request.target.kind, weights_dir
        )


def configurators(
    tunable: list[Dispatch], context: ir.Context, work_dir: Path, data_tiling: bool = False, source: Path | None = None
) -> Iterator[tuple[Dispatch, Configurator | Untunable]]:
    """Each distinct problem once (one spec matches every op equal to it), with its configurator; `data_tiling`:
    CPU contractions hold their data-tiled lowering too (compile flags, so only where one problem is tuned);
    `source`: what CUDA candidates annotate, where the problem must be found (IREE's dispatch may hold an op the
    source does not)."""
    seen: set[str] = set()
    in_source: set[str] | None = None
    for dispatch in tunable:
        problem = dispatch.problem
        assert isinstance(problem, Problem)
        if problem.key in seen:
            continue
        seen.add(problem.key)
        configurator = make_configurator(problem, dispatch.facts, context, dispatch.bench, work_dir, data_tiling)
        if not isinstance(configurator, Untunable) and source is not None and annotates_source(dispatch.facts.kind):
            in_source = annotatable_keys(source, context) if in_source is None else in_source
            if match_key(problem) not in in_source:
                configurator = Untunable(problem.op_name, NOT_IN_SOURCE)
        yield dispatch, configurator


def configure(
    dispatches: list[Dispatch],
    context: ir.Context,
    work_dir: Path,
    data_tiling: bool = False,
    source: Path | None = None,
) -> tuple[list[Dispatch], dict[str, tuple[Dispatch, Configurator]]]:
    """Every distinct problem's configurator, by problem key; a problem its target cannot configure
    (e.g. a convolution on llvm-cpu) is listed as untunable, so that it takes no share of the budget."""
    configured: dict[str, tuple[Dispatch, Configurator]] = {}
    untunable: dict[str, Untunable] = {}
    for dispatch, configurator in configurators(
        [d for d in dispatches if isinstance(d.problem, Problem)], context, work_dir, data_tiling, source
    ):
        assert isinstance(dispatch.problem, Problem)
        if isinstance(configurator, Untunable):
            untunable[dispatch.problem.key] = configurator
        else:
            configured[dispatch.problem.key] = (dispatch, configurator)
    listed = [
        replace(d, problem=untunable[d.problem.key])
        if isinstance(d.problem, Problem) and d.problem.key in untunable
        else d
        for d in dispatches
    ]
    return listed, configured


def lowering_is_tunable(tuning_input: TuningInput, dispatches: list[Dispatch]) -> bool:
    """A contraction's lowering (data tiling: compile flags, for the whole model) is tuned as part of its space when
    the input is a model whose dispatches hold one problem, not already data-tiled."""
    problems = {d.problem.key for d in dispatches if isinstance(d.problem, Problem)}
    return (
        not tuning_input.invocation.dispatch_level
        and len(problems) == 1
        and "--iree-opt-data-tiling" not in tuning_input.compile_flags
    )


def nothing_tunable(request: TuneRequest, dispatches: list[Dispatch]) -> UserError:
    reasons = "; ".join(f"{d.name}: {d.problem.reason}" for d in dispatches) or "no dispatches"
    return UserError(f"nothing tunable in {request.input_path} ({reasons})")


def check_writable(path: Path) -> None:
    """Fail before any work if the spec cannot be written; leave no empty file behind."""
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a"):
            pass
    except OSError as err:
        raise UserError(f"cannot write {path}: {err.strerror}") from None
    if not existed:
        path.unlink()


def prepare(request: TuneRequest, context: ir.Context) -> PreparedRun:
    """Stage one: everything the search needs that depends on the input alone, or a one-line error saying why
    nothing can be tuned."""
    check_writable(request.output)
    starter = read_starter_spec(request.starter_spec, context) if request.starter_spec else None
    request.run_dir.mkdir(parents=True, exist_ok=True)
    request, specialised = specialised_request(request, context)
    given, builds = prepared_input(request, context)
    dispatches = read_checked_dispatches(builds, request.target, context)
    tunable = [d for d in dispatches if isinstance(d.problem, Problem)]
    # flag variants are measured on a whole model, for CPU targets only (`--iree-opt-data-tiling` is a CPU flag)
    search_flags = not builds.invocation.dispatch_level and request.flag_search and request.target.kind == "cpu"
    if not dispatches or not (tunable or search_flags):
        raise nothing_tunable(request, dispatches)
    facts = (tunable or dispatches)[0].facts
    data_tiling = lowering_is_tunable(builds, dispatches) and not search_flags  # else tuned as a whole by flags
    dispatches, configured = configure(dispatches, context, request.run_dir / "spaces", data_tiling, builds.source)
    if not configured and not search_flags:
        raise nothing_tunable(request, dispatches)
    return PreparedRun(
        request, specialised, given, builds, starter, dispatches, configured, facts, search_flags, data_tiling
    )
