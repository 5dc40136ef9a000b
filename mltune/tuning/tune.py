"""`mltune tune`: from an input file to a tuning spec, a run directory and dataset records."""

from __future__ import annotations

import json
import time
from contextlib import nullcontext
from dataclasses import replace
from functools import partial

from iree.compiler import ir
from iree.compiler import version as compiler_version

from mltune.emit.apply import Applied, make_applier
from mltune.errors import RunFailure, UserError
from mltune.execution.build import Builder, BuildResult
from mltune.execution.choose import make_executor
from mltune.execution.devices import RunnerPool, make_runner
from mltune.execution.kernel_timing import measured_builds
from mltune.execution.run import Runner, TimingPlan
from mltune.frontend.problem import Problem
from mltune.input.model import dumped_build
from mltune.model.budget import problem_shares, select, split_budget
from mltune.model.fallback import finish_with_fallbacks, winners
from mltune.model.as_built import AsBuilt
from mltune.model.finish import FinalChecks, ModelOutcome, numerics_check
from mltune.model.flags import FlagChoice, compare_tuned, compile_command
from mltune.model.merge import StarterSpec, merge_configs
from mltune.model.in_model_finals import ProfiledFinals
from mltune.model.in_model_timer import InModelTimer
from mltune.model.profile_table import profile_lines
from mltune.model.verify import VERIFY_MAX_ROUNDS, VERIFY_ROUNDS
from mltune.model.host_reference import HostBuild
from mltune.model.winner_numerics import WinnerCheck
from mltune.rankers import make_ranker
from mltune.rankers.base import for_one_problem
from mltune.rankers.near_incumbent import near_default, near_default_share
from mltune.rankers.seeded import SeededRanker, known_fast_by_problem
from mltune.records.dataset import FINALS_SUFFIX, Record, RecordWriter, device_id
from mltune.runs.directory import RESULTS_FILE
from mltune.runs.report import TuneReport
from mltune.runs.summary import baseline_us, summary
from mltune.search.loop import LoopSettings, SearchTask, TuningLoop
from mltune.search.results import DispatchResult
from mltune.search.resume import earlier_trials, reconcile
from mltune.search.screen import ScreenStage, screen_kind
from mltune.system.progress import display
from mltune.targets.stored import facts_to_record
from mltune.tuning.prepare import prepare
from mltune.tuning.request import TuneRequest
from mltune.tuning.shapes import shape_note
from mltune.tuning.time_shares import cached_shares, named_dispatches


def _tuned_variants(request: TuneRequest, model: ModelOutcome, builder: Builder, runner: Runner | RunnerPool,
                    default_build: BuildResult, starter: StarterSpec | None, cores: int,
                    plan: TimingPlan) -> tuple[ModelOutcome, FlagChoice]:
    """The tuned model against its data-tiled variant, tuned in its own knobs, both timed against IREE's default
    build; a data-tiled winner replaces the result (its flags, with the starter spec) once its numerics pass."""
    tuned = builder.compile(0, model.result, "tuned_default") if model.result is not None else default_build
    choice = compare_tuned(builder, runner, default_build.vmfb, (tuned if tuned.status == "ok" else default_build).vmfb,
                           request.settings.screening, plan, request.settings.min_speedup, cores,
                           starter.applied if starter else None)
    if not choice.flags:
        return model, choice
    result = Applied("spec", starter.text if starter else "", choice.flags)
    build = builder.compile(0, result, "flag_variant_chosen")
    numerics_dir = request.run_dir / "flag_variant_numerics"
    numerics_dir.mkdir(parents=True, exist_ok=True)
    numerics = numerics_check(default_build, build, builder, request.devices[0], numerics_dir)
    if build.status != "ok" or not numerics.ok:
        return model, replace(choice, flags=(), name="default", failed={**choice.failed, choice.name: numerics.detail})
    return replace(model, result=result, numerics=numerics, refused="", withdrawn=""), choice


def nothing_measured(results: list[DispatchResult]) -> str:
    """Why a run measured nothing: every candidate failed, the first failure names the reason; or no space held a
    candidate (a loop size that no tile of the space divides)."""
    trials = [t for r in results for t in r.trials]
    if not trials:
        empty = ", ".join(f"{r.name} ({r.problem.key})" for r in results if r.candidates == 0)
        return (f"nothing could be measured: the space of {empty} holds no candidate (no configuration of mltune's "
                "space fits its sizes on this target)")
    first = next((t.measurement.detail if t.measurement else t.build.detail for t in trials), "")
    return f"nothing could be measured: all {len(trials)} candidates failed" + (f" (first: {first})" if first else "")


# the share of `--time-budget` the search may start candidates in: the rest is the checks' in the model
SEARCH_SHARE = {"model": 0.6, "dispatch": 0.85}


def with_deadline(settings: LoopSettings, run_started: float, level: str) -> LoopSettings:
    """The run's `--time-budget` as the search's deadline (`time.monotonic()`), counted from the run's start."""
    if settings.time_budget_s is None:
        return settings
    return replace(settings, time_budget_s=None, deadline=run_started + SEARCH_SHARE[level] * settings.time_budget_s)


def tune(request: TuneRequest, context: ir.Context) -> TuneReport:
    started = time.perf_counter()
    run_started = time.monotonic()
    run = prepare(request, context)
    request, tuning_input, prepared, starter = run.request, run.builds, run.given, run.starter
    dispatches, configured, facts, level = run.dispatches, run.configured, run.facts, run.level
    dump_seconds = time.perf_counter() - started  # mostly the compiles that dump the dispatches and move the weights
    # a ranker missing its model for this target stops here; each problem gets its own copy (the forest's
    # models are loaded once, shared by the copies)
    inner_ranker = make_ranker(request.ranker, request.seed, facts, request.model_dir, request.dataset_dir)
    near_share = near_default_share(inner_ranker, request.near_default)
    builder = Builder(tuning_input, request.run_dir / "candidates", request.jobs)
    with display().phase("baseline: compile IREE's default build"):
        default_build = builder.compile(-1, None, "baseline")
    if default_build.status != "ok":
        raise UserError(f"the input does not compile without a spec: {default_build.detail}")
    stages = {"prepare the input": dump_seconds, "IREE's default build": time.perf_counter() - started - dump_seconds}
    starter_build = builder.compile(-1, starter.applied, "starter_baseline") if starter else default_build
    if starter and starter_build.status != "ok":
        raise UserError(f"the input does not compile with --starter-spec {starter.path}: {starter_build.detail}")
    runner = make_runner(tuning_input.invocation, request.devices, request.run_dir)
    winner_check = WinnerCheck(tuning_input, default_build.vmfb, request.devices[0], request.target, context,
                               request.run_dir, request.jobs, request.seed)
    winner_check.start(None if request.target.kind == "cpu" else  # a GPU's default is held against the host's
                       HostBuild(request.input_path, prepared.invocation, request.compile_flags))
    tool_started = time.perf_counter()  # flag variants and profiling: compiler and benchmark runs throughout
    flags: FlagChoice | None = None
    baseline = default_build
    search_flags, data_tiling = run.search_flags, run.data_tiling
    time_budget = request.settings.time_budget_s  # the whole run's
    request = replace(request, settings=with_deadline(request.settings, run_started, level))
    with display().phase("profile: time each dispatch"):
        profiles = cached_shares(tuning_input, dispatches, request.devices, request.run_dir, request.jobs,
                                 default_build.vmfb)
    allocations = split_budget(select(problem_shares(profiles), request.top), request.settings.budget)
    display().table(profile_lines(profiles, allocations, level == "model"))
    search_started = time.perf_counter()
    stages["profile"] = search_started - started - sum(stages.values())
    tool_seconds = (time.perf_counter() - tool_started + dump_seconds + default_build.seconds
                    + (starter_build.seconds if starter else 0.0))
    runner_seconds_before_loop = runner.seconds_in_children
    run_id = request.run_dir.name
    priors = known_fast_by_problem(request.dataset_dir / facts.arch, exclude_run=run_id)  # earlier runs' fast configs
    record_files = [request.dataset_dir / facts.arch / f"{run_id}.jsonl", request.run_dir / RESULTS_FILE]
    recorded = reconcile(record_files)  # an interrupted run's trials, in both files
    writers = [RecordWriter(path) for path in record_files]
    finals = RecordWriter(request.dataset_dir / facts.arch / f"{run_id}{FINALS_SUFFIX}.jsonl")  # finalists re-measured

    def write(record: Record) -> None:
        for writer in writers:
            writer.append(record)

    device = device_id(",".join(request.devices), facts.cores)
    record_fields = {"arch": facts.arch, "device": device,
                     "target": facts_to_record(facts), "run_id": run_id, "level": level}
    applier = make_applier(request.target.kind, tuning_input.source, context)
    measured = measured_builds(request.timing if level == "model" else "call", request.target.kind != "cpu", builder,
                               runner, baseline, request.run_dir)
    tasks = []
    for allocation in allocations:  # identical problems are one allocation: one spec matches them all
        dispatch, configurator = configured[allocation.problem.key]
        problem = dispatch.problem
        assert isinstance(problem, Problem)
        earlier = partial(earlier_trials, recorded, problem, configurator=configurator,
                          compiler=compiler_version.VERSION, device=device,
                          vmfb_of=partial(measured.builder.candidate_vmfb, dispatch.name))
        near = near_default(for_one_problem(inner_ranker), configurator, dispatch.default_config, near_share,
                            request.seed)
        ranker = SeededRanker(near, priors.get(problem.key, []))
        tasks.append(SearchTask(dispatch.name, problem, configurator, ranker, allocation.budget, earlier,
                                default_sha256=measured.baseline.sha256))
    results: list[DispatchResult] = []
    executor, in_model = None, None
    try:
        kind = screen_kind(request.screen, tuning_input.invocation.dispatch_level, len(profiles), data_tiling)
        stage, screens = None, {}
        if kind is not None:
            stage = ScreenStage(kind, request.screen_finalists, request.target, facts, request.settings, context, write,
                                record_fields, request.run_dir / "screen", {d.name: d.bench for d in dispatches},
                                recorded, device, request.devices, request.jobs, request.seed, request.compile_flags)
            screens = stage.workloads(tasks) if request.cluster else {}  # a cluster screens beside the model stage
            tasks = tasks if request.cluster else stage.run(tasks)
        executor = make_executor(request.cluster, request.shared_fs, measured.builder, runner, measured.baseline.vmfb,
                                 tuning_input.invocation, request.devices, request.target.kind != "cpu",
                                 request.settings.batch_size, screens)
        loop = TuningLoop(executor, facts, applier, request.settings, context, write, record_fields, finals.append)
        if (stage is not None and request.cluster is None and tasks and all(t.finalists_only for t in tasks)
                and all(p.timed_in == "model" for p in profiles)):  # a few builds time every finalist in the model
            timer = InModelTimer(tuning_input.invocation, request.devices[0],
                                 named_dispatches(tuning_input, dispatches), request.run_dir / "in_model")
            in_model = ProfiledFinals(measured.builder, applier, facts, timer, measured.baseline.vmfb,
                                      request.settings, write, record_fields, request.run_dir / "in_model")
        searches = (stage.stream(tasks, loop) if stage is not None and request.cluster else
                    zip(tasks, in_model.run(tasks) if in_model else loop.tune_all(tasks)))
        for task, searched in searches:
            if stage is not None:
                stage.describe(searched)
            if task.budget > searched.candidates:
                print(f"note: --budget capped at the {searched.candidates} candidates in the space of "
                      f"{task.problem.key}")
            with display().phase(f"numerics of {task.name}'s winner") if searched.winner else nullcontext():
                refused = winner_check.verify(searched, configured[task.problem.key][0].facts,
                                              task.configurator.pipeline_of, task.ranker.name, record_fields)
            for record in refused:
                write(record)
            results.append(searched)
    finally:
        if executor is not None:
            executor.close()
        for writer in (*writers, finals):
            writer.close()
    if results and not any(t.measurement and t.measurement.status == "ok" for r in results for t in r.trials):
        raise RunFailure(nothing_measured(results))
    picks = winners(results)
    tool_seconds += (executor.tool_seconds + runner.seconds_in_children - runner_seconds_before_loop
                     + (in_model.tool_seconds if in_model else 0.0) + (stage.tool_seconds if stage else 0.0))
    finish_started = time.perf_counter()  # the configs' check, numerics and the end-to-end timing: tool runs too
    stages["search (screen, finalists)"] = finish_started - search_started
    model, attempts = None, []
    if level == "model":
        plan = replace(request.settings.final, rounds=max(request.settings.final.rounds, VERIFY_ROUNDS),
                       max_rounds=max(request.settings.final.max_rounds, VERIFY_MAX_ROUNDS))
        as_built = None if tuning_input is prepared else AsBuilt(  # built without its weights: time it with them
            Builder(prepared, request.run_dir / "as_built", request.jobs),
            make_runner(prepared.invocation, request.devices, request.run_dir / "as_built"),
            dumped_build(request.run_dir))
        checks = FinalChecks(starter, measured, default_build, builder, runner, applier, plan, context,
                             request.run_dir, request.devices[0],  # numerics on the tuning device: CPU or GPU alike
                             in_model.timer if in_model else None, as_built, winner_check.judge)
        attempts = finish_with_fallbacks(picks, checks.run)
        model = attempts[-1].outcome
        if search_flags:
            model, flags = _tuned_variants(request, model, builder, runner, default_build, starter, facts.cores, plan)
        result = model.result
    else:
        result = merge_configs([p.config for p in picks], starter, applier, context, request.run_dir)
    tool_seconds += time.perf_counter() - finish_started
    spec_path, output_kind = None, "spec"
    result_flags = result.flags if result is not None else ()  # a data-tiled winner is compile flags
    if result is not None and result.text:
        for path in (request.output, request.run_dir / ("best_spec.mlir" if result.kind == "spec" else "annotated.mlir")):
            path.write_text(result.text)
        spec_path, output_kind = request.output, result.kind
    command = ""
    if level == "model" and model and model.recommends and ((flags and flags.flags) or spec_path or result_flags):
        compile_flags = (*prepared.compile_flags, *result_flags)  # the user's model, weights and all
        command = (compile_command(spec_path, compile_flags, None) if output_kind == "source" else
                   compile_command(request.input_path, compile_flags, spec_path))
        (request.run_dir / "compile_command.txt").write_text(command + "\n")
    wall = time.perf_counter() - started
    stages["checks in the model and the result"] = wall - sum(stages.values())
    whole = in_model is None and not measured.kernel_level  # the trials' baselines are the input's own time
    report = TuneReport(level, baseline_us=baseline_us(results if whole else [], model.timing if model else None,
                                                       model.as_built if model else None),
                        dispatches=dispatches, results=results,
                        spec_path=spec_path, requested_output=request.output, wall_seconds=wall,
                        tool_seconds=tool_seconds, records_path=writers[0].path, output_kind=output_kind,
                        profiles=profiles, allocations=allocations, flags=flags, model=model, command=command,
                        kernel_timing=measured.timing if measured.kernel_level else None,
                        numerics=winner_check.verdicts, attempts=attempts,
                        arguments=(*tuning_input.arguments, *shape_note(run.specialised)),
                        parameters=prepared.invocation.parameters,  # the user's, not the split's
                        host=winner_check.host, stage_seconds=stages, time_budget=time_budget)
    (request.run_dir / "summary.json").write_text(json.dumps(summary(report), indent=2))
    return report
