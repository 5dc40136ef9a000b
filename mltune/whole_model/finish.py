"""The last steps of a whole-model run: keep the configs that pay off (`mltune.whole_model.verify`), merge them with the
starter spec, refuse a result that changes the model's outputs, and time the result end to end.

The result is whatever the target's applier makes of the configs (a tuning spec, or on CUDA the
annotated source). The numerics check runs both builds on the tuning device, CPU or GPU."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from iree.compiler import ir

from mltune.emit.apply import Applied, Applier
from mltune.execution.build import Builder, BuildResult
from mltune.execution.devices import RunnerPool
from mltune.execution.kernel_timing import MeasuredBuilds, call_level
from mltune.execution.measurement import Measurement, TimingPlan
from mltune.execution.runner import Runner
from mltune.search.settings import passed
from mltune.system.progress import display
from mltune.whole_model.as_built import AsBuilt
from mltune.whole_model.in_model_check import InModelCheck
from mltune.whole_model.in_model_timer import InModelTimer
from mltune.whole_model.merge import StarterSpec, merge_configs
from mltune.whole_model.numerics import Comparison, Judge, compare, run_outputs
from mltune.whole_model.verify import CheckConfigs, Config, ConfigCheck, EndToEnd, LeaveOneOut, end_to_end

RECOMMENDED = "recommended"  # the label of the final build: spec and flags as recommended
EVERY_CONFIG = "every config"  # where the check dropped some: the build with all of them, timed beside its choice
CHECK_CHOICE = "check's choice"  # the label of the check's choice once every config beat it


@dataclass(frozen=True)
class ModelOutcome:
    """What the checks kept: the merged result (None: nothing to emit) and the evidence for it."""

    result: Applied | None
    check: ConfigCheck
    numerics: Comparison | None
    timing: EndToEnd | None
    refused: str = ""  # why nothing is emitted although configs were found (an error: exit code 1)
    withdrawn: str = ""  # why nothing is recommended: the final measurement found no gain
    per_call: Measurement | None = None  # kernel-level runs: the result timed call by call, as it will run
    overruled: bool = False  # every config ran faster end to end than the check's choice, so all were kept
    as_built: Measurement | None = None  # the result built into the user's model, weights and all (`as_built`)

    @property
    def recommends(self) -> bool:
        return not (self.refused or self.withdrawn)


def finish_model(
    configs: Sequence[Config],
    starter: StarterSpec | None,
    flags_baseline: BuildResult,
    default_build: BuildResult,
    builder: Builder,
    runner: Runner | RunnerPool,
    applier: Applier,
    plan: TimingPlan,
    context: ir.Context,
    work_dir: Path,
    numerics_device: str | None,
    check_configs: CheckConfigs | None = None,
    timed_as_built: bool = False,
    judge: Judge = compare,
) -> ModelOutcome:
    """The configs' check (leave-one-out unless `check_configs` says otherwise), merge, numerics against IREE's
    default build, then the end-to-end timing; a result that is not faster than IREE's default build in that last
    measurement is withdrawn. `timed_as_built`: the caller times the result once more, built as the user builds it,
    and that timing decides; the end-to-end timing here is then skipped where it would compare nothing else (no
    flags-only, starter-spec or every-config build beside the recommended one).

    `builder` compiles with the chosen flags; `flags_baseline` is its build without a spec and
    `default_build` IREE's own build (no spec, no extra flags), the reference for both numerics and speed.
    `numerics_device` runs both builds for the numerics check (None: not checked), `judge` compares them.
    """

    def merged(kept: Sequence[Config]) -> Applied | None:
        return merge_configs(kept, starter, applier, context, work_dir)

    check = (check_configs or LeaveOneOut(builder, runner, plan))(configs, merged)
    result = merged(check.kept)
    if result is None:
        final = flags_baseline
    elif check.full_build is not None and check.full_build.status == "ok" and not check.dropped:
        final = check.full_build  # the spec the check started from, already compiled
    else:
        final = builder.compile(0, result, "final")
    if final.status != "ok":
        return ModelOutcome(None, check, None, None, f"the merged spec does not compile: {final.detail}")
    if final.vmfb == default_build.vmfb:
        return ModelOutcome(None, check, None, None)
    numerics = None
    if numerics_device is not None:
        with display().phase("numerics: the tuned model's outputs against IREE's default build"):
            numerics = numerics_check(default_build, final, builder, numerics_device, work_dir, judge)
    if numerics is not None and not numerics.ok:
        return ModelOutcome(None, check, numerics, None, f"the tuned model changes the results: {numerics.detail}")
    builds: list[tuple[str, Path]] = []
    if flags_baseline.vmfb not in (default_build.vmfb, final.vmfb):
        builds.append(("flags only", flags_baseline.vmfb))
    if starter is not None:
        starter_build = builder.compile(0, starter.applied, "starter_only")
        if starter_build.status == "ok":
            builds.append(("starter spec", starter_build.vmfb))
    builds.append((RECOMMENDED, final.vmfb))
    everything = check.full_build if check.dropped else None  # dropped: `final` was built without some
    if everything is not None:
        builds.append((EVERY_CONFIG, everything.vmfb))
    if timed_as_built and result is not None and len(builds) == 1:
        return ModelOutcome(result, check, numerics, None)
    with display().phase(f"end to end: {', '.join(label for label, _ in builds)} interleaved with IREE's default"):
        timing = end_to_end(default_build.vmfb, builds, runner, plan)
    overruled = everything is not None and every_config_faster(timing)
    if overruled:  # the check's single comparisons against one build of all were outweighed end to end
        every_numerics = (
            numerics_check(default_build, everything, builder, numerics_device, work_dir, judge)
            if numerics_device is not None
            else None
        )
        overruled = every_numerics is None or every_numerics.ok
        if overruled:
            result, numerics, check = merged(configs), every_numerics or numerics, replace(check, kept=list(configs))
            timing = timing.relabelled({RECOMMENDED: CHECK_CHOICE, EVERY_CONFIG: RECOMMENDED})
    estimate = timing.estimate(RECOMMENDED)
    # Only mltune's own part is withdrawn: a starter spec with nothing added is the user's choice, kept as given.
    adds_something = bool(check.kept) or flags_baseline.vmfb != default_build.vmfb
    if adds_something and not estimate.faster(1.0):  # every step won alone; the whole is not surely faster
        return ModelOutcome(
            None,
            check,
            numerics,
            timing,
            withdrawn=f"in the final end-to-end measurement the recommended build's speedup over "
            f"IREE's default was {estimate.describe()}: not surely above 1",
        )
    return ModelOutcome(result, check, numerics, timing, overruled=overruled)


def every_config_faster(timing: EndToEnd) -> bool:
    """Whether the build with every config ran faster than the check's choice against IREE's default (median
    speedups of one interleaved run). Each leave-one-out comparison is against the one build of all, so a slow
    reading of that build drops config after config, and its choice can run slower than every config together
    (`docs/whole-model-tuning.md`, re-timed with `benchmarks/whole_models/retime_builds.py`)."""
    every, chosen = timing.estimate(EVERY_CONFIG), timing.estimate(RECOMMENDED)
    return every.rounds > 0 and chosen.rounds > 0 and every.speedup > chosen.speedup


SHORT_ROUNDS = 5  # the checks' rounds once the run's --time-budget is spent


@dataclass(frozen=True)
class FinalChecks:
    """The model's final checks and what they measure with: `finish_model`, then, where candidates were timed at
    kernel level, the result built as the user will build it and timed call by call against IREE's default, which
    withdraws a result that is surely slower per call (faster kernels, yet slower calls); where the run built the
    model without its weights, the result built into the user's model and timed there (`as_built`), which withdraws
    a result not surely faster so."""

    starter: StarterSpec | None
    measured: MeasuredBuilds  # the builder and IREE's default build the candidates were timed with
    default_build: BuildResult  # IREE's own build: no spec, no extra flags, no kernel repeats
    builder: Builder  # builds as the user will (no kernel repeats)
    runner: Runner | RunnerPool
    applier: Applier
    plan: TimingPlan
    context: ir.Context
    work_dir: Path
    numerics_device: str | None
    in_model: InModelTimer | None = None  # the device times each dispatch in the model: configs checked there
    as_built: AsBuilt | None = None  # the user's model with its weights, where the candidates were built without
    judge: Judge = compare  # the numerics rule (`WinnerCheck.judge`: against the host where IREE's default is wrong)
    deadline: float | None = None  # `time.monotonic()` at which the run's --time-budget is spent

    def out_of_time(self) -> bool:
        return passed(self.deadline)

    def _plan(self) -> TimingPlan:
        """The checks' plan; once the run's `--time-budget` is spent, its shortest (`SHORT_ROUNDS` rounds, never
        extended): a wider interval rather than a run past the budget."""
        if not self.out_of_time():
            return self.plan
        rounds = min(self.plan.rounds, SHORT_ROUNDS)
        print(
            f"note: the --time-budget is spent: this result's checks in the model run {rounds} rounds each, "
            "not extended (wider intervals)"
        )
        return replace(self.plan, rounds=rounds, max_rounds=0)

    def run(self, configs: Sequence[Config], attempt: int = 0) -> ModelOutcome:
        """Check the model tuned with `configs`; a later `attempt` builds and writes into folders of its own, so
        that an earlier attempt's builds stay as they were checked."""
        measured, builder, work_dir, plan = self.measured, self.builder, self.work_dir, self._plan()
        if attempt:
            name = f"fallback_{attempt}"
            measured = replace(measured, builder=replace(measured.builder, work_dir=measured.builder.work_dir / name))
            builder, work_dir = replace(builder, work_dir=builder.work_dir / name), work_dir / name
            work_dir.mkdir(parents=True, exist_ok=True)
        kernel = measured.kernel_level
        check: CheckConfigs = LeaveOneOut(measured.builder, self.runner, plan)
        if self.in_model is not None and not kernel:
            check = InModelCheck(
                replace(self.in_model, work_dir=work_dir / "in_model_check"), measured.builder, measured.baseline.vmfb
            )
        outcome = finish_model(
            configs,
            self.starter,
            measured.baseline,
            measured.baseline if kernel else self.default_build,
            measured.builder,
            self.runner,
            self.applier,
            plan,
            self.context,
            work_dir,
            self.numerics_device,
            check,
            timed_as_built=self.as_built is not None and not kernel,
            judge=self.judge,
        )
        if outcome.result is None:
            return outcome
        if not kernel:
            return self._as_built(outcome, work_dir, plan) if self.as_built is not None else outcome
        with display().phase("per call: the result as it will run, against IREE's default"):
            per_call = call_level(outcome.result, builder, self.runner, self.default_build, plan)
        if per_call is not None and per_call.estimate.slower():
            return replace(
                outcome,
                result=None,
                per_call=per_call,
                withdrawn="per call, as it will run, the result "
                f"was {per_call.estimate.describe()} IREE's default speed",
            )
        return replace(outcome, per_call=per_call)

    def _as_built(self, outcome: ModelOutcome, work_dir: Path, plan: TimingPlan) -> ModelOutcome:
        """`outcome`'s result built into the user's model, weights and all, and timed against IREE's default there."""
        assert self.as_built is not None and outcome.result is not None
        with display().phase("as you will build it: the result in the model with its weights, against IREE's default"):
            return as_built_verdict(
                outcome, self.as_built.in_folder(work_dir / "as_built").measure(outcome.result, plan)
            )


def as_built_verdict(outcome: ModelOutcome, measured: Measurement | str) -> ModelOutcome:
    """`outcome` with its result timed as the user will build it (`AsBuilt.measure`): refused where it does not
    build so, withdrawn where it is not surely faster so."""
    if isinstance(measured, str):
        return replace(
            outcome, result=None, refused=f"the result does not build into the model with its weights: {measured}"
        )
    if not measured.estimate.faster(1.0):
        return replace(
            outcome,
            result=None,
            as_built=measured,
            withdrawn=(
                f"built as you will build it, with the model's weights, the result ran {measured.estimate.describe()} "
                "against IREE's default: not surely above 1"
            ),
        )
    return replace(outcome, as_built=measured)


def numerics_check(
    default_build: BuildResult,
    final: BuildResult,
    builder: Builder,
    device: str,
    work_dir: Path,
    judge: Judge = compare,
) -> Comparison:
    """The final build's outputs against IREE's default build's, on the same inputs, by `judge` (a build that
    failed: refused)."""
    if final.status != "ok":
        return Comparison(False, f"does not compile: {final.detail}")
    invocation = builder.tuning_input.invocation
    try:
        reference = run_outputs(default_build.vmfb, invocation, device, work_dir / "outputs_default.npz")
        tuned = run_outputs(final.vmfb, invocation, device, work_dir / "outputs_tuned.npz")
        return judge(reference, tuned)
    except RuntimeError as err:
        return Comparison(False, str(err))
