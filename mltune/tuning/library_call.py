"""A tuning run from a library call (`mltune.api.tune`, which `mltune tune` calls): the arguments checked as the
command line checks them, in the same order and with the same messages; the run directory made, marked
(running, interrupted, failed, finished) and removed when a refused input left nothing in it; and the result.
"""

from __future__ import annotations

import os
import shutil
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from mltune.errors import UserError
from mltune.input.call import ModelCall, model_call
from mltune.input.checks import check_input_file, check_jobs, check_output_file, check_output_folder
from mltune.rankers import make_ranker
from mltune.system.paths import user_datasets, user_runs
from mltune.tuning.option_forms import check_options
from mltune.tuning.options import TuneOptions

if TYPE_CHECKING:
    from mltune.runs.report import TuneReport
    from mltune.tuning.request import TuneRequest


@dataclass(frozen=True)
class DispatchVerdict:
    """What tuning found for one problem (a dispatch, or several identical ones that one config matches).

    Attributes:
        dispatch: The dispatch's name.
        problem: The problem's key, as records name it.
        candidates: Candidates in its space.
        benchmarked: Candidates measured.
        kept: Whether a config was kept: its median speedup over IREE's default reached `min_speedup` and the
            interval of its speedup lies above 1.
        speedup: The kept config's median speedup; with none kept, the best finalist's; None when no candidate
            screened faster than IREE's default.
        low: The lower end of the speedup's confidence interval (None without `speedup`).
        high: Its upper end.
        knobs: The kept config's knobs (else the best finalist's, or None).
        numerics: The kept config's numerics verdict, when it was checked.
        stop_reason: Why the search stopped (budget spent, time budget spent, ...).
    """

    dispatch: str
    problem: str
    candidates: int
    benchmarked: int
    kept: bool
    speedup: float | None
    low: float | None
    high: float | None
    knobs: dict[str, int] | None
    numerics: str | None
    stop_reason: str

    def describe(self) -> str:
        """One line: the problem and what was found."""
        from mltune.runs.report_text import knob_text

        if self.speedup is None:
            found = "not kept: no candidate ran faster than IREE's default in screening"
        else:
            found = (
                f"{'kept' if self.kept else 'not kept; best finalist'} {self.speedup:.2f}x "
                f"({self.low:.2f}-{self.high:.2f}x) {knob_text(self.knobs)}"
            )
        return f"{self.dispatch} {self.problem}: {found} ({self.benchmarked} of {self.candidates} measured)"

    @staticmethod
    def from_summary(dispatch: dict[str, Any]) -> DispatchVerdict:
        """A dispatch's entry of `summary.json` as a verdict."""
        best = dispatch["winner"] or (dispatch["finalists"][0] if dispatch["finalists"] else None)
        return DispatchVerdict(
            dispatch["dispatch"],
            dispatch["problem"],
            dispatch["candidates"],
            dispatch["benchmarked"],
            dispatch["winner"] is not None,
            best["speedup"] if best else None,
            best["low"] if best else None,
            best["high"] if best else None,
            best["knobs"] if best else None,
            dispatch["numerics"],
            dispatch["stop_reason"],
        )


@dataclass(frozen=True)
class TuneResult:
    """What `mltune.api.tune` found and wrote.

    Attributes:
        run_dir: The run directory (state, logs, `summary.json`, every candidate's build).
        spec_path: The tuning spec written (`output`); None when nothing beat IREE's default, and with
            `compile_only`. On CUDA it is the input annotated with the winners' configurations.
        spec_text: The spec's text ("" when none was written).
        verdicts: Per problem tuned, what was found.
        records: This run's records: one dict per candidate tried (`mltune.records.dataset.Record`'s fields).
        records_path: The dataset file they were appended to (None with `compile_only`).
        compile_command: For a model, the iree-compile command that builds it as tuned ("" when nothing is
            recommended).
        refused: Why a model-level result was refused ("" when it was not): no spec is written then.
        summary: The run's `summary.json`, as plain data.
        report: What the command line prints (internal: its fields may change).
        compile_checks: With `compile_only`: per dispatch and pipeline, how many of the candidates tried compiled.
        untunable: With `compile_only`: (dispatch, why) of each dispatch left out.
    """

    run_dir: Path
    spec_path: Path | None = None
    spec_text: str = ""
    verdicts: tuple[DispatchVerdict, ...] = ()
    records: tuple[dict[str, Any], ...] = ()
    records_path: Path | None = None
    compile_command: str = ""
    refused: str = ""
    summary: dict[str, Any] = field(default_factory=dict)
    report: TuneReport | None = field(default=None, repr=False)
    compile_checks: tuple[Any, ...] = ()
    untunable: tuple[Any, ...] = ()


def _request(model: Path, arguments: TuneOptions) -> tuple[TuneRequest, ModelCall, bool]:
    """The checked request, how it calls the model, and whether its run directory is new (a refused run removes
    only what it created)."""
    from mltune.execution.devices import parse_devices
    from mltune.runs.directory import new_run_dir
    from mltune.search.settings import LoopSettings, final_plan
    from mltune.system.progress import make_display, use_display
    from mltune.targets import parse_target
    from mltune.tuning.request import TuneRequest

    check_options(arguments)
    make_ranker(arguments.ranker, model_dir=arguments.model_dir)  # an unknown name or a damaged model fails now
    check_input_file(model, "input file")
    if arguments.starter_spec is not None:
        check_input_file(arguments.starter_spec, "--starter-spec")
    call = model_call(
        arguments.inputs,
        arguments.parameters,
        arguments.int_range,
        arguments.function,
        arguments.compile_flags_file,
        arguments.benchmark_flags_file,
        arguments.shape,
    )
    if arguments.output is not None:
        check_output_file(arguments.output, "-o")
    dataset_dir = arguments.dataset_dir if arguments.dataset_dir is not None else user_datasets()
    check_output_folder(dataset_dir, "--dataset-dir")
    jobs = check_jobs(arguments.jobs)
    target = parse_target(arguments.target)
    devices = parse_devices(arguments.devices, target)
    if arguments.starter_spec is not None and target.kind == "cuda":
        raise UserError("--starter-spec: IREE ignores tuning specs on CUDA (docs/cuda-tuning-specs.md)")
    if not arguments.compile_only:
        from mltune.execution.devices import check_device

        for device in devices:
            try:
                check_device(device)
            except UserError as err:
                hint = "; use --compile-only to check candidates compile" if target.kind != "cpu" else ""
                raise UserError(f"{err}{hint}") from None
    new_run = arguments.run_dir is None or not arguments.run_dir.exists()
    run_dir = (
        check_output_folder(arguments.run_dir, "--run-dir")
        if arguments.run_dir
        else new_run_dir(check_output_folder(user_runs(), "--run-dir"), model.stem)
    )
    use_display(make_display(arguments.progress == "quiet", arguments.progress == "verbose"))
    settings = LoopSettings(
        budget=arguments.budget,
        time_budget_s=arguments.time_budget,
        min_speedup=arguments.min_speedup,
        batch_size=arguments.batch,
        final=final_plan(target.kind),
    )
    request = TuneRequest(
        input_path=model,
        target=target,
        ranker=arguments.ranker,
        settings=settings,
        output=arguments.output or run_dir / "best_spec.mlir",
        run_dir=run_dir,
        dataset_dir=dataset_dir,
        function=call.function,
        seed=arguments.seed,
        jobs=jobs,
        devices=devices,
        top=arguments.top,
        starter_spec=arguments.starter_spec,
        flag_search=arguments.flag_search,
        compile_flags=(*arguments.iree_flags, *call.compile_flags),
        timing=arguments.timing,
        model_dir=arguments.model_dir,
        cluster=arguments.cluster,
        shared_fs=arguments.shared_fs,
        call_inputs=call.inputs,
        screen=arguments.screen,
        screen_finalists=arguments.screen_finalists,
        near_default=arguments.near_default,
    )
    return request, call, new_run


def _compile_only(request: TuneRequest, new_run: bool) -> TuneResult:
    from mltune.frontend.mlir import new_context
    from mltune.tuning.compile_only import compile_only

    try:
        checks, untunable = compile_only(request, new_context())
    except UserError:
        if new_run:  # refused input: no run to keep
            shutil.rmtree(request.run_dir, ignore_errors=True)
        raise
    return TuneResult(request.run_dir, compile_checks=tuple(checks), untunable=tuple(untunable))


def _result(report: TuneReport, run_dir: Path) -> TuneResult:
    from mltune.records.dataset import read_records
    from mltune.runs.summary import summary

    plain = summary(report)
    spec = report.spec_path
    return TuneResult(
        run_dir,
        spec,
        spec.read_text() if spec is not None else "",
        tuple(DispatchVerdict.from_summary(d) for d in plain["dispatches"]),
        tuple(read_records(report.records_path)) if report.records_path.exists() else (),
        report.records_path,
        report.command,
        report.model.refused if report.model else "",
        plain,
        report,
    )


@contextmanager
def _removed_if_refused(folder: Path) -> Iterator[None]:
    """A folder the call creates (the datasets' folder) is removed again when the call is refused before writing
    anything into it, so that a refused run leaves nothing behind."""
    existed = folder.exists()
    try:
        yield
    except UserError:
        if not existed and folder.is_dir() and not any(path.is_file() for path in folder.rglob("*")):
            shutil.rmtree(folder, ignore_errors=True)
        raise


def run(model: Path, arguments: TuneOptions, argv: list[str], show_paths: bool) -> TuneResult:
    """Check the options, then tune `model` (or only compile) in a run directory marked as it goes."""
    with _removed_if_refused(arguments.dataset_dir if arguments.dataset_dir is not None else user_datasets()):
        return _checked_run(model, arguments, argv, show_paths)


def _checked_run(model: Path, arguments: TuneOptions, argv: list[str], show_paths: bool) -> TuneResult:
    from mltune.frontend.mlir import new_context
    from mltune.runs import directory as runs
    from mltune.runs.report_text import print_paths
    from mltune.tuning.tune import tune

    request, call, new_run = _request(model, arguments)
    if arguments.compile_only:
        return _compile_only(request, new_run)
    if request.cluster is not None:
        from mltune.execution.ray_cluster import connect

        connect(request.cluster)
    run_dir = request.run_dir
    if show_paths:
        print_paths(run_dir, request.dataset_dir, request.output, request.ranker, request.model_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    if arguments.output is None:  # a resumed run writes where this one does, not the command line's default
        argv = [*argv, "-o", os.path.abspath(request.output)]
    state = runs.start(run_dir, argv, request.input_path)
    try:
        runs.check_same_call(run_dir, call.record())
        report = tune(request, new_context())
    except KeyboardInterrupt as stop:
        runs.mark(run_dir, state, "interrupted", "stopped by Ctrl-C or SIGTERM")
        stop.resume_hint = f"continue with: mltune tune --resume {run_dir}"
        raise
    except UserError:
        if new_run and not runs.has_records(run_dir):  # refused input: no run to keep
            shutil.rmtree(run_dir, ignore_errors=True)
        else:
            runs.mark(run_dir, state, "failed", str(sys.exc_info()[1])[:300])
        raise
    except BaseException as err:
        runs.mark(run_dir, state, "failed", str(err)[:300])
        raise
    runs.mark(run_dir, state, "finished")
    return _result(report, run_dir)
