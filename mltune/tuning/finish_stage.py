"""The last stages of a run: on a model, the winners checked together inside the model (numerics, the build as
the user makes it, fallbacks where one does not hold) and, for CPU targets, compile-flag variants; on a dispatch,
the winners merged into one spec. Then the result written: the spec (or annotated source) and the command that
applies it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from iree.compiler import ir

from mltune.emit.apply import Applied
from mltune.input.tuning_input import dumped_build
from mltune.execution.build import Builder
from mltune.execution.devices import make_runner
from mltune.whole_model.as_built import AsBuilt
from mltune.whole_model.fallback import Attempt, finish_with_fallbacks, winners
from mltune.whole_model.finish import FinalChecks, ModelOutcome, numerics_check
from mltune.whole_model.flags import FlagChoice, compare_tuned, compile_command
from mltune.whole_model.merge import merge_configs
from mltune.whole_model.verify import VERIFY_MAX_ROUNDS, VERIFY_ROUNDS
from mltune.whole_model.winner_numerics import WinnerCheck
from mltune.tuning.collaborators import Baselines, Collaborators
from mltune.tuning.prepare import PreparedRun
from mltune.tuning.search_stage import Searched


@dataclass(frozen=True)
class Finished:
    """The run's result: what to hand back (None: nothing), and on a model how it was checked."""

    result: Applied | None
    model: ModelOutcome | None = None
    attempts: tuple[Attempt, ...] = ()
    flags: FlagChoice | None = None


@dataclass(frozen=True)
class Emitted:
    """What was written: the spec or annotated source (None: nothing), its kind, and the command that builds it."""

    path: Path | None
    kind: str
    command: str


def _tuned_variants(
    run: PreparedRun, tools: Collaborators, baselines: Baselines, model: ModelOutcome, plan
) -> tuple[ModelOutcome, FlagChoice]:
    """The tuned model against its data-tiled variant, tuned in its own knobs, both timed against IREE's default
    build; a data-tiled winner replaces the result (its flags, with the starter spec) once its numerics pass."""
    request, builder, default, starter = run.request, tools.builder, baselines.default, run.starter
    tuned = builder.compile(0, model.result, "tuned_default") if model.result is not None else default
    choice = compare_tuned(
        builder,
        tools.runner,
        default.vmfb,
        (tuned if tuned.status == "ok" else default).vmfb,
        request.settings.screening,
        plan,
        request.settings.min_speedup,
        run.facts.cores,
        starter.applied if starter else None,
    )
    if not choice.flags:
        return model, choice
    result = Applied("spec", starter.text if starter else "", choice.flags)
    build = builder.compile(0, result, "flag_variant_chosen")
    numerics_dir = request.run_dir / "flag_variant_numerics"
    numerics_dir.mkdir(parents=True, exist_ok=True)
    numerics = numerics_check(default, build, builder, request.devices[0], numerics_dir)
    if build.status != "ok" or not numerics.ok:
        return model, replace(choice, flags=(), name="default", failed={**choice.failed, choice.name: numerics.detail})
    return replace(model, result=result, numerics=numerics, refused="", withdrawn=""), choice


def finish(
    run: PreparedRun,
    tools: Collaborators,
    baselines: Baselines,
    searched: Searched,
    winner_check: WinnerCheck,
    context: ir.Context,
    deadline: float | None = None,
) -> Finished:
    """Stage five: the winners made one result, checked as the user will build it where the input is a model;
    past `deadline` (the run's `--time-budget`, `time.monotonic()`) the checks run their shortest plan and no
    fallback is tried."""
    request, picks = run.request, winners(searched.results)
    if run.level != "model":
        return Finished(
            merge_configs([p.config for p in picks], run.starter, searched.applier, context, request.run_dir)
        )
    plan = replace(
        request.settings.final,
        rounds=max(request.settings.final.rounds, VERIFY_ROUNDS),
        max_rounds=max(request.settings.final.max_rounds, VERIFY_MAX_ROUNDS),
    )
    as_built = (
        None
        if run.builds is run.given
        else AsBuilt(  # built without its weights: time it with them
            Builder(run.given, request.run_dir / "as_built", request.jobs),
            make_runner(run.given.invocation, request.devices, request.run_dir / "as_built"),
            dumped_build(request.run_dir),
        )
    )
    checks = FinalChecks(
        run.starter,
        searched.measured,
        baselines.default,
        tools.builder,
        tools.runner,
        searched.applier,
        plan,
        context,
        request.run_dir,
        request.devices[0],  # numerics on the tuning device: CPU or GPU alike
        searched.in_model,
        as_built,
        winner_check.judge,
        deadline,
    )
    attempts = finish_with_fallbacks(picks, checks.run, out_of_time=checks.out_of_time)
    model, flags = attempts[-1].outcome, None
    if run.search_flags:
        model, flags = _tuned_variants(run, tools, baselines, model, plan)
    return Finished(model.result, model, tuple(attempts), flags)


def emit(run: PreparedRun, finished: Finished) -> Emitted:
    """Write the result to `-o` and the run folder, and on a model the `iree-compile` command that applies it."""
    request, result, model = run.request, finished.result, finished.model
    path, kind = None, "spec"
    result_flags = result.flags if result is not None else ()  # a data-tiled winner is compile flags
    if result is not None and result.text:
        for out in (
            request.output,
            request.run_dir / ("best_spec.mlir" if result.kind == "spec" else "annotated.mlir"),
        ):
            out.write_text(result.text)
        path, kind = request.output, result.kind
    command = ""
    flags = finished.flags
    if run.level == "model" and model and model.recommends and ((flags and flags.flags) or path or result_flags):
        compile_flags = (*run.given.compile_flags, *result_flags)  # the user's model, weights and all
        command = (
            compile_command(path, compile_flags, None)
            if kind == "source"
            else compile_command(request.input_path, compile_flags, path)
        )
        (request.run_dir / "compile_command.txt").write_text(command + "\n")
    return Emitted(path, kind, command)
