"""The fourth stage of a run: each allocated problem's candidates searched (screened on a small module first where
that pays, the finalists timed in the model), every measurement recorded, each winner's numerics checked."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial
from typing import Any

from iree.compiler import ir
from iree.compiler import version as compiler_version

from mltune.emit.apply import Applier, make_applier
from mltune.execution.choose import make_executor
from mltune.execution.kernel_timing import MeasuredBuilds, measured_builds
from mltune.frontend.problem import Problem
from mltune.whole_model.budget import Allocation
from mltune.whole_model.in_model_finals import ProfiledFinals
from mltune.whole_model.in_model_timer import InModelTimer
from mltune.whole_model.profile import DispatchProfile
from mltune.whole_model.winner_numerics import WinnerCheck
from mltune.rankers.base import for_one_problem
from mltune.rankers.near_incumbent import near_default, near_default_share
from mltune.rankers.seeded import SeededRanker, known_fast_by_problem
from mltune.records.dataset import device_id
from mltune.search.loop import SearchTask, TuningLoop
from mltune.search.results import DispatchResult
from mltune.search.resume import earlier_trials
from mltune.search.screen import ScreenStage, screen_kind
from mltune.system.progress import display
from mltune.targets.stored import facts_to_record
from mltune.tuning.collaborators import Baselines, Collaborators
from mltune.tuning.prepare import PreparedRun
from mltune.tuning.run_records import RunRecords
from mltune.tuning.time_shares import named_dispatches


@dataclass(frozen=True)
class Searched:
    """What the search found, and what the later checks build and time with."""

    results: list[DispatchResult]
    applier: Applier
    measured: MeasuredBuilds  # the builds trials were timed as (whole model, or the kernel alone)
    in_model: InModelTimer | None  # the timer that timed the finalists inside the model, if one did
    tool_seconds: float  # in compiler and benchmark processes

    @property
    def measured_any(self) -> bool:
        """Whether any candidate ran to a measurement (a run with no problem to search has nothing to measure)."""
        return not self.results or any(
            t.measurement and t.measurement.status == "ok" for r in self.results for t in r.trials
        )


def record_fields(run: PreparedRun) -> dict[str, Any]:
    """What every record of the run carries besides its measurement."""
    facts, request = run.facts, run.request
    return {
        "arch": facts.arch,
        "device": device_id(",".join(request.devices), facts.cores),
        "target": facts_to_record(facts),
        "run_id": request.run_dir.name,
        "level": run.level,
    }


def _tasks(
    run: PreparedRun, tools: Collaborators, allocations: list[Allocation], measured: MeasuredBuilds, records: RunRecords
) -> list[SearchTask]:
    """One search per allocation (identical problems are one: one spec matches them all), its ranker starting near
    IREE's default and from configs earlier runs found fast."""
    request = run.request
    device = record_fields(run)["device"]
    priors = known_fast_by_problem(request.dataset_dir / run.facts.arch, exclude_run=request.run_dir.name)
    near_share = near_default_share(tools.ranker, request.near_default)
    tasks = []
    for allocation in allocations:
        dispatch, configurator = run.configured[allocation.problem.key]
        problem = dispatch.problem
        assert isinstance(problem, Problem)
        earlier = partial(
            earlier_trials,
            records.earlier,
            problem,
            configurator=configurator,
            compiler=compiler_version.VERSION,
            device=device,
            vmfb_of=partial(measured.builder.candidate_vmfb, dispatch.name),
        )
        near = near_default(
            for_one_problem(tools.ranker), configurator, dispatch.default_config, near_share, request.seed
        )
        ranker = SeededRanker(near, priors.get(problem.key, []))
        tasks.append(
            SearchTask(
                dispatch.name,
                problem,
                configurator,
                ranker,
                allocation.budget,
                earlier,
                default_sha256=measured.baseline.sha256,
            )
        )
    return tasks


def nothing_measured(
    results: list[DispatchResult],
    out_of_time: dict[str, float] | None = None,
    time_budget: float = 0.0,
    search_share: float = 1.0,
) -> str:
    """Why a run measured nothing: the run's `--time-budget` was spent before the search started a candidate, or
    before any screened one was timed as a finalist (`out_of_time`: the stages before it, with their seconds); every
    candidate failed, the first failure names the reason; or no space held a candidate (a loop size that no tile of
    the space divides)."""
    trials = [t for r in results for t in r.trials]
    if not trials and out_of_time is not None:
        spent = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in out_of_time.items())
        screened = sum(r.screened for r in results)
        when = (
            f"after its screen timed {screened} candidates and before any was timed as a finalist"
            if screened
            else "before the search started a candidate"
        )
        return (
            f"nothing could be measured: the --time-budget of {time_budget:.0f} s was spent {when} ({spent}); "
            f"candidates start only in its first {search_share:.0%}, the rest is kept for the checks in the model: "
            "give a larger --time-budget"
        )
    if not trials:
        empty = ", ".join(f"{r.name} ({r.problem.key})" for r in results if r.candidates == 0)
        return (
            f"nothing could be measured: the space of {empty} holds no candidate (no configuration of mltune's "
            "space fits its sizes on this target)"
        )
    first = next((t.measurement.detail if t.measurement else t.build.detail for t in trials), "")
    return f"nothing could be measured: all {len(trials)} candidates failed" + (f" (first: {first})" if first else "")


def _screen_stage(
    run: PreparedRun, dispatches: int, fields: dict[str, Any], records: RunRecords, context: ir.Context
) -> ScreenStage | None:
    """The screen a model's candidates are first timed on (`mltune.search.screen`), or None where none is."""
    request = run.request
    kind = screen_kind(request.screen, run.builds.invocation.dispatch_level, dispatches, run.data_tiling)
    if kind is None:
        return None
    return ScreenStage(
        kind,
        request.screen_finalists,
        request.target,
        run.facts,
        request.settings,
        context,
        records.write,
        fields,
        request.run_dir / "screen",
        {d.name: d.bench for d in run.dispatches},
        records.earlier,
        fields["device"],
        request.devices,
        request.jobs,
        request.seed,
        request.compile_flags,
    )


def _in_model_finals(
    run: PreparedRun,
    measured: MeasuredBuilds,
    applier: Applier,
    fields: dict[str, Any],
    records: RunRecords,
    tasks: list[SearchTask],
    profiles: list[DispatchProfile],
    stage: ScreenStage | None,
) -> ProfiledFinals | None:
    """Where a screen chose every task's finalists and each dispatch is timed in the model: a few builds that time
    every finalist there (`mltune.whole_model.in_model_finals`); else None, and the loop times them one by one."""
    request = run.request
    if not (
        stage is not None
        and request.cluster is None
        and tasks
        and all(t.finalists_only for t in tasks)
        and all(p.timed_in == "model" for p in profiles)
    ):
        return None
    timer = InModelTimer(
        run.builds.invocation,
        request.devices[0],
        named_dispatches(run.builds, run.dispatches),
        request.run_dir / "in_model",
    )
    return ProfiledFinals(
        measured.builder,
        applier,
        run.facts,
        timer,
        measured.baseline.vmfb,
        request.settings,
        records.write,
        fields,
        request.run_dir / "in_model",
    )


def _refused(
    searched: DispatchResult, task: SearchTask, run: PreparedRun, winner_check: WinnerCheck, fields: dict[str, Any]
) -> list[dict[str, Any]]:
    """The records of a dispatch's winners that its numerics check refused."""
    with display().phase(f"numerics of {task.name}'s winner") if searched.winner else nullcontext():
        return winner_check.verify(
            searched,
            run.configured[task.problem.key][0].facts,
            task.configurator.pipeline_of,
            task.ranker.name,
            fields,
        )


def search(
    run: PreparedRun,
    tools: Collaborators,
    baselines: Baselines,
    profiles: list[DispatchProfile],
    allocations: list[Allocation],
    records: RunRecords,
    winner_check: WinnerCheck,
    context: ir.Context,
) -> Searched:
    """Stage four: search every allocation, recording each trial as it is measured."""
    request, builds, facts = run.request, run.builds, run.facts
    fields = record_fields(run)
    applier = make_applier(request.target.kind, builds.source, context)
    measured = measured_builds(
        request.timing if run.level == "model" else "call",
        request.target.kind != "cpu",
        tools.builder,
        tools.runner,
        baselines.default,
        request.run_dir,
    )
    runner_seconds_before = tools.runner.seconds_in_children
    tasks = _tasks(run, tools, allocations, measured, records)
    results: list[DispatchResult] = []
    executor, in_model, stage = None, None, None
    try:
        stage = _screen_stage(run, len(profiles), fields, records, context)
        screens = stage.workloads(tasks) if stage and request.cluster else {}  # a cluster screens beside the model
        tasks = stage.run(tasks) if stage and not request.cluster else tasks
        executor = make_executor(
            request.cluster,
            request.shared_fs,
            measured.builder,
            tools.runner,
            measured.baseline.vmfb,
            builds.invocation,
            request.devices,
            request.target.kind != "cpu",
            request.settings.batch_size,
            screens,
        )
        loop = TuningLoop(
            executor, facts, applier, request.settings, context, records.write, fields, records.write_finalist
        )
        in_model = _in_model_finals(run, measured, applier, fields, records, tasks, profiles, stage)
        searches: Iterator = (
            stage.stream(tasks, loop)
            if stage is not None and request.cluster
            else zip(tasks, in_model.run(tasks) if in_model else loop.tune_all(tasks))
        )
        for task, searched in searches:
            if stage is not None:
                stage.describe(searched)
            if task.budget > searched.candidates:
                print(
                    f"note: --budget capped at the {searched.candidates} candidates in the space of {task.problem.key}"
                )
            for record in _refused(searched, task, run, winner_check, fields):
                records.write(record)
            results.append(searched)
    finally:
        if executor is not None:
            executor.close()
        records.close()
    tool_seconds = (
        executor.tool_seconds
        + tools.runner.seconds_in_children
        - runner_seconds_before
        + (in_model.tool_seconds if in_model else 0.0)
        + (stage.tool_seconds if stage else 0.0)
    )
    return Searched(results, applier, measured, in_model.timer if in_model else None, tool_seconds)
