"""`mltune tune`: from an input file to a tuning spec, a run directory and dataset records, as a composition of
stages with one job each (docs/architecture.md, "A run's stages"):

1. `prepare`: the input dumped and made ready to build, its dispatches read, each problem's space configured;
2. `build_baselines`: IREE's default build, which every candidate is measured against;
3. `profile_and_allocate`: each dispatch's share of the model's time, and the budget split by it;
4. `search`: each problem's candidates ranked, built, screened and timed, every measurement recorded;
5. `finish` and `emit`: the winners checked together as the user builds the model, the result written.

The builder, runner and ranker are made once by `make_collaborators` and handed to the stages.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from iree.compiler import ir

from mltune.errors import RunFailure
from mltune.whole_model.host_reference import HostBuild
from mltune.whole_model.winner_numerics import WinnerCheck
from mltune.runs.report import TuneReport
from mltune.runs.summary import baseline_us, summary
from mltune.search.settings import LoopSettings, passed
from mltune.tuning.collaborators import Baselines, Collaborators, build_baselines, default_collaborators
from mltune.tuning.finish_stage import emit, finish
from mltune.tuning.prepare import PreparedRun, prepare
from mltune.tuning.request import TuneRequest
from mltune.tuning.run_records import RunRecords
from mltune.tuning.search_stage import nothing_measured, search
from mltune.tuning.shapes import shape_note
from mltune.tuning.time_shares import profile_and_allocate

# the share of `--time-budget` the search may start candidates in: the rest is the checks' in the model
SEARCH_SHARE = {"model": 0.6, "dispatch": 0.85}


def with_deadline(settings: LoopSettings, run_started: float, level: str) -> LoopSettings:
    """The run's `--time-budget` as the search's deadline (`time.monotonic()`), counted from the run's start."""
    if settings.time_budget_s is None:
        return settings
    return replace(settings, time_budget_s=None, deadline=run_started + SEARCH_SHARE[level] * settings.time_budget_s)


class StageClock:
    """Each stage's wall seconds, in the order they ran, for the report's "Stages:" line."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.started_monotonic = time.monotonic()
        self.seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = time.perf_counter() - started


def _winner_check(run: PreparedRun, baselines: Baselines, context: ir.Context) -> WinnerCheck:
    """Checks each winner's numerics against IREE's default build, started now so that the default's outputs (and
    on a GPU, the host's) are ready when the first winner is."""
    request = run.request
    check = WinnerCheck(
        run.builds,
        baselines.default.vmfb,
        request.devices[0],
        request.target,
        context,
        request.run_dir,
        request.jobs,
        request.seed,
    )
    check.start(
        None
        if request.target.kind == "cpu"
        # a GPU's default is held against the host's
        else HostBuild(request.input_path, run.given.invocation, request.compile_flags)
    )
    return check


def tune(
    request: TuneRequest,
    context: ir.Context,
    make_collaborators: Callable[[PreparedRun], Collaborators] = default_collaborators,
) -> TuneReport:
    """Tune `request`'s input; the report is also written to the run folder as `summary.json`."""
    clock = StageClock()
    with clock.stage("prepare the input"):  # mostly the compiles that dump the dispatches and move the weights
        run = prepare(request, context)
    with clock.stage("IREE's default build"):
        tools = make_collaborators(run)
        baselines = build_baselines(run, tools.builder)
        winner_check = _winner_check(run, baselines, context)
    time_budget = run.request.settings.time_budget_s  # the whole run's
    run = replace(
        run,
        request=replace(run.request, settings=with_deadline(run.request.settings, clock.started_monotonic, run.level)),
    )
    with clock.stage("profile"):
        profiles, allocations = profile_and_allocate(
            run.builds, run.dispatches, run.request, baselines.default.vmfb, run.level == "model"
        )
    records = RunRecords(run.request.dataset_dir, run.facts.arch, run.request.run_dir)
    reused = records.reused()
    if reused:
        print(reused)
    with clock.stage("search (screen, finalists)"):
        searched = search(run, tools, baselines, profiles, allocations, records, winner_check, context)
    if not searched.measured_any:
        out_of_time = passed(run.request.settings.deadline)
        raise RunFailure(
            nothing_measured(
                searched.results, clock.seconds if out_of_time else None, time_budget or 0.0, SEARCH_SHARE[run.level]
            )
        )
    with clock.stage("checks in the model and the result"):
        deadline = None if time_budget is None else clock.started_monotonic + time_budget
        finished = finish(run, tools, baselines, searched, winner_check, context, deadline)
        emitted = emit(run, finished)
    seconds = clock.seconds
    tool_seconds = (
        seconds["prepare the input"]
        + baselines.seconds
        + seconds["profile"]
        + searched.tool_seconds
        + seconds["checks in the model and the result"]
    )
    model = finished.model
    whole = searched.in_model is None and not searched.measured.kernel_level  # trials' baselines: the input's time
    report = TuneReport(
        run.level,
        baseline_us=baseline_us(
            searched.results if whole else [], model.timing if model else None, model.as_built if model else None
        ),
        dispatches=run.dispatches,
        results=searched.results,
        spec_path=emitted.path,
        requested_output=run.request.output,
        wall_seconds=time.perf_counter() - clock.started,
        tool_seconds=tool_seconds,
        records_path=records.path,
        output_kind=emitted.kind,
        profiles=profiles,
        allocations=allocations,
        flags=finished.flags,
        model=model,
        command=emitted.command,
        kernel_timing=searched.measured.timing if searched.measured.kernel_level else None,
        numerics=winner_check.verdicts,
        attempts=list(finished.attempts),
        arguments=(*run.builds.arguments, *shape_note(run.specialised)),
        parameters=run.given.invocation.parameters,  # the user's, not the split's
        host=winner_check.host,
        stage_seconds=seconds,
        time_budget=time_budget,
    )
    (run.request.run_dir / "summary.json").write_text(json.dumps(summary(report), indent=2))
    return report
