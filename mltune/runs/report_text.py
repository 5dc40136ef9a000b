"""`mltune tune` as text: where a run reads and writes (said once, at the start), and the final report: per problem
the finalists and the verdict, then the model's checks, the spec written and where everything went."""

from __future__ import annotations

from pathlib import Path
from statistics import median

from mltune.execution.build import NOT_APPLIED
from mltune.frontend.problem import Untunable
from mltune.whole_model.fallback import MAX_FALLBACKS, Attempt
from mltune.whole_model.finish import RECOMMENDED
from mltune.rankers import LEARNED
from mltune.runs.report import TuneReport
from mltune.search.results import DispatchResult
from mltune.spaces.cpu_data_tiling import applicable_knobs
from mltune.system.paths import describe_search_path, model_search_path


def print_paths(run_dir: Path, dataset_dir: Path, output: Path, ranker: str, model_dir: Path | None) -> None:
    """Where this run writes (and, for a learned ranker, where it looks for models), before any work."""
    print(f"Run folder: {run_dir}")
    print(f"Records:    {dataset_dir}/ARCH/{run_dir.name}.jsonl (ARCH: the target's, read from the dispatches)")
    if ranker in LEARNED:
        print(f"Models:     {describe_search_path(model_search_path(model_dir))} (the first that has one)")
    replaced = "  (exists: a spec found by this run replaces it)" if output.exists() else ""
    print(f"Spec:       {output}{replaced}", flush=True)


def _print_arguments(report: TuneReport) -> None:
    """What the model ran on: every timing and the numerics check used these same arguments."""
    if report.arguments:
        print("The model ran on these arguments (every timing and the numerics check alike):")
        for argument in report.arguments:
            print(f"  {argument}")
    for archive in report.parameters:
        print(f"  weights: {archive.flag}")
    if report.host:
        print(report.host.line)


def print_report(report: TuneReport) -> None:
    """The final report: how it was timed, each dispatch's finalists and verdict, the model's checks, what was
    written (one headline: the emitted speedup) or why nothing was, and where the time went."""
    level = "model-level (the whole input, timed call by call against IREE's default)"
    if report.input_level == "dispatch":
        level = (
            "dispatch-level (a dumped dispatch benchmark reads never-written buffers and can run 2x off the "
            "same dispatch in the model: docs/dispatch-benchmarks-vs-model.md)"
        )
    print(f"\nTimes are {level}.")
    if report.kernel_timing is not None:
        print(f"Candidates and the end-to-end check were timed {report.kernel_timing.describe()}.")
    _print_arguments(report)
    _print_profile(report)
    for dispatch in report.dispatches:
        if isinstance(dispatch.problem, Untunable):
            print(f"  not tuned: {dispatch.name} ({dispatch.problem.op_name}): {dispatch.problem.reason}")
    for result in report.results:
        _print_dispatch(report, result)
    _print_model(report)
    _print_written(report)
    print(f"Records: {report.records_path}")
    _print_stages(report)
    print(
        f"Wall time {report.wall_seconds:.0f} s; tuner overhead {100 * report.overhead_fraction:.1f} % "
        "(time outside compiler and benchmark processes)"
    )


def _print_dispatch(report: TuneReport, result: DispatchResult) -> None:
    """One dispatch's search: what was compiled and measured, its finalists re-measured, and its verdict."""
    compiled = sum(1 for t in result.trials if t.build.status in ("ok", NOT_APPLIED))
    same = sum(1 for t in result.trials if t.build.status == NOT_APPLIED)
    default = f" ({same} built to IREE's default)" if same else ""
    print(
        f"\n{result.name}  {result.problem.key}  ({result.candidates} candidates in the space; "
        f"compiled {compiled}/{len(result.trials)}{default}, "
        f"benchmarked {result.benchmarked}; {result.stop_reason})"
    )
    print(
        f"  finalists, each re-measured against IREE's default, {result.timed}, in rounds (default: median of "
        "rounds; speedup: median of the rounds' ratios, with its interval; tuned: default / speedup):"
    )
    print(f"  {'rank':>4} {'default us':>11} {'tuned us':>10} {'speedup':>8}  {'interval':<28} config")
    for rank, (trial, measurement) in enumerate(result.finals, 1):
        print(f"  {rank:>4} {_row(measurement)}  {knob_text(trial.knobs)}")
    if result.name in report.numerics:
        print(f"  {report.numerics[result.name]}")
    if result.winner:
        faster = any(m.ratio < result.winner[1].ratio for _, m in result.finals)
        tied = " (within the fastest's interval, and ranked first by the screen)" if faster else ""
        print(f"  kept: {result.winner[1].estimate.describe()}{tied}{_load_note(result.winner[1])}")
    elif result.name in report.numerics:  # the winner was refused
        print("  no config emitted for this dispatch")
    elif result.finals:
        best = result.finals[0][1]
        print(
            f"  not kept: the best finalist measured {best.estimate.describe()}, not surely "
            f"{result.min_speedup:.2f}x or more{_load_note(best)}"
        )
    else:
        print("  not kept: no candidate ran faster than IREE's default in screening")


def _print_written(report: TuneReport) -> None:
    """What the run wrote and the one headline number (the emitted speedup), or why it wrote nothing."""
    if report.spec_path and report.output_kind == "source":
        print(
            f"\nAnnotated input: {report.spec_path}  (IREE ignores tuning specs on CUDA: compile this file, "
            f"iree-compile {report.spec_path} ...)"
        )
    elif report.spec_path:
        print(
            f"\nTuning spec: {report.spec_path}  (iree-compile ... --iree-codegen-tuning-spec-path={report.spec_path})"
        )
    if report.spec_path and report.model is not None and report.model.as_built is not None:
        print(
            f"Emitted: model-level speedup {report.model.as_built.estimate.describe()} over IREE's default, "
            "both built as you will build them (the model with its weights)"
        )
    elif report.spec_path and report.model is not None and report.model.timing is not None:
        print(
            f"Emitted: model-level speedup {report.model.timing.estimate('recommended').describe()} over IREE's default"
            f"{' (kernel level)' if report.kernel_timing else ''}"
        )
    if report.spec_path and report.host and report.host.default_is_wrong:
        print(
            "  over a build that computes wrong outputs: IREE's default differs from the same file built for "
            "llvm-cpu (above); the numerics line says how far the tuned build is from the host's outputs"
        )
    if report.model is not None and report.model.per_call is not None:
        print(f"Per call, as it will run (no dispatch repeats): {_row(report.model.per_call).strip()}")
    if not report.spec_path:
        refused = report.model is not None and report.model.refused
        withdrawn = report.model.withdrawn if report.model is not None else ""
        why = (
            "the result was refused (see below)"
            if refused
            else f"nothing is recommended: {withdrawn}"
            if withdrawn
            else "the recommended flags alone are the best found"
            if report.command
            else _nothing_faster(report)
        )
        print(f"\nNo tuning spec written: {why}.")
        if report.requested_output.exists():
            print(f"({report.requested_output} is from an earlier run and was left as it was.)")


def _print_stages(report: TuneReport) -> None:
    """Where the wall time went, stage by stage, and the candidates measured per minute of it."""
    if not report.stage_seconds:
        return
    stages = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in report.stage_seconds.items())
    screened, timed = sum(r.screened for r in report.results), sum(r.benchmarked for r in report.results)
    measured = screened + timed
    what = f"{screened} screened and {timed} timed in the {report.input_level}" if screened else f"{timed} measured"
    rate = (
        f"; {what}: {60 * measured / report.wall_seconds:.1f} candidates per minute of the run"
        if report.wall_seconds
        else ""
    )
    budget = f" (--time-budget {report.time_budget:.0f} s)" if report.time_budget is not None else ""
    print(f"Stages: {stages}{rate}{budget}")


def _nothing_faster(report: TuneReport) -> str:
    """Why no config was kept when none was refused: an inconclusive finalist (its interval reaches both sides of
    what it had to reach) is not the same verdict as IREE's default measuring fastest."""
    finals = [(result, m) for result in report.results for _, m in result.finals[:1] if m.estimate.rounds]
    open_ = [(r, m) for r, m in finals if m.estimate.high >= r.min_speedup and not m.estimate.faster(r.min_speedup)]
    if open_:
        result, best = max(open_, key=lambda pair: pair[1].estimate.speedup)
        return (
            f"inconclusive: the best finalist ({result.name}) measured {best.estimate.describe()}, an interval "
            f"that reaches both below and above the {result.min_speedup:.2f}x it had to reach; more rounds or a "
            "quieter machine would decide it"
        )
    if finals:
        result, best = max(finals, key=lambda pair: pair[1].estimate.speedup)
        return (
            f"no finalist was surely faster than IREE's default (the best, {result.name}, measured "
            f"{best.estimate.describe()})"
        )
    return "no candidate ran faster than IREE's default in screening: its configuration is the best found"


def _row(measurement) -> str:
    """The default's time, the speedup and its interval (one estimator: the median of the rounds' ratios), and
    the tuned time that speedup gives."""
    if not measurement.time_us:
        return f"{'-':>11} {'-':>10} {'-':>8}  {measurement.status} {measurement.detail}"[:80]
    default, estimate = median(measurement.baseline_us), measurement.estimate
    interval = f"{estimate.low:.2f}-{estimate.high:.2f}x ({100 * estimate.confidence:.0f} %, {estimate.rounds} rounds)"
    return f"{default:11.1f} {default / estimate.speedup:10.1f} {estimate.speedup:7.2f}x  {interval:<28}"


def knob_text(knobs: dict[str, int]) -> str:
    """A config as `name=value` pairs, only the knobs that apply to its lowering."""
    return " ".join(f"{k}={v}" for k, v in applicable_knobs(knobs).items())


def _load_note(measurement) -> str:
    load = measurement.load
    return f"; other processes kept {load:.1f} cores busy meanwhile" if load == load and load >= 0.25 else ""


def _print_profile(report: TuneReport) -> None:
    """The profiled dispatches' total against the model's own time (the table itself was shown before tuning)."""
    if report.input_level != "model" or len(report.profiles) <= 1:
        return
    timed = sum(p.total_us for p in report.profiles if p.timed)
    known = report.baseline_us == report.baseline_us  # nan: the model itself was never timed whole
    if all(p.timed_in == "model" for p in report.profiles):
        ran = f"; the model ran in {report.baseline_us:.0f} us in-process" if known else ""
        print(
            f"\nThe dispatches listed took {timed:.0f} us of a profiled model run (IREE default, its own inputs){ran}"
        )
        return
    ran = f"; the model itself ran in {report.baseline_us:.0f} us (in-process, IREE default)" if known else ""
    print(
        f"\nThe dumped dispatches add up to {timed:.0f} us per model run{ran}: dumps rank dispatches, they do not "
        "predict the model"
    )


def _print_model(report: TuneReport) -> None:
    """Flags, the configs' check, numerics and the end-to-end timing of a model run."""
    if report.flags is not None:
        for name, detail in report.flags.failed.items():
            print(f"\nFlag variant {name}: does not compile (with the starter spec, if any): {detail}")
        screened = report.flags.screened
        if screened:
            best = min(screened, key=lambda n: screened[n].ratio)
            print(
                f"\nData-tiled variant: {len(screened)} distinct flag sets screened on the model, fastest {best} "
                f"({screened[best].estimate.describe()} vs IREE's default)"
            )
        for name, m in report.flags.measured.items():
            print(
                f"Flag variant {name}: {m.estimate.describe()} vs IREE's default build: "
                f"{'kept' if report.flags.name == name else 'not kept'}"
            )
    model = report.model
    if model is None:
        return
    _print_attempts(report.attempts)
    check = model.check
    if check.ratios:
        print(f"Each config checked {check.method}, {check.ratio_of}:" + (f" ({check.note})" if check.note else ""))
    for key, ratio in check.ratios.items():
        verdict = "dropped: the model runs faster without it" if key in check.dropped else "kept"
        print(f"  {key}: {ratio:.3f} -> {verdict}")
    if model.overruled:
        print("  end to end, the model with every config ran faster than with the check's choice: all are kept")
    if model.numerics is not None:
        print(f"Numerics vs IREE's default build on the same inputs: {model.numerics.detail}")
    if model.timing is not None:
        print("End to end, interleaved with IREE's default build (no spec, default flags):")
        print(f"  {'build':<14} {'default us':>11} {'tuned us':>10} {'speedup':>8}  interval")
        for label, m in zip(model.timing.labels, model.timing.measurements):
            print(f"  {label:<14} {_row(m)}{_load_note(m)}")
    if model.as_built is not None:
        print("As you will build it, the model with its weights (the builds above are without them):")
        print(f"  {RECOMMENDED:<14} {_row(model.as_built)}{_load_note(model.as_built)}")
    if report.command:
        print(f"\nCompile the tuned model with:\n  {report.command}")


def _print_attempts(attempts: list[Attempt]) -> None:
    """A result the final checks withdrew (or the configs' check emptied), the finalists that replaced it and what
    became of them; the checks printed after this are the last attempt's."""
    if not attempts or not attempts[0].lost:
        return
    for number, attempt in enumerate(attempts):
        picks = "; ".join(f"{p.result.name} finalist {p.rank + 1} ({knob_text(p.knobs)})" for p in attempt.picks)
        outcome = attempt.outcome
        verdict = (
            f"withdrawn: {outcome.withdrawn}"
            if outcome.withdrawn
            else f"refused: {outcome.refused}"
            if outcome.refused
            else "kept: the checks below are this result's"
            if attempt.kept
            else "the configs' check dropped every config: the model ran faster without each"
        )
        print(f"\n{'The first result' if number == 0 else f'Fallback {number}'}: {picks}\n  {verdict}")
    if attempts[-1].lost:
        print(
            "Every fallback lost too."
            if len(attempts) > MAX_FALLBACKS
            else f"{'Every fallback lost too; no' if len(attempts) > 1 else 'No'} dispatch in the last result has "
            "another finalist that passed the keep rule."
        )
    if len(attempts) > 1 and not attempts[-1].kept:
        print(f"The checks below are fallback {len(attempts) - 1}'s.")


def print_compile_only(checks, untunable, run_dir: Path) -> None:
    for name, problem in untunable:
        print(f"  not tuned: {name} ({problem.op_name}): {problem.reason}")
    print(f"\n{'dispatch':<40} {'pipeline':<18} {'space':>8} {'gen s':>6} {'compiled':>10}")
    for c in checks:
        print(
            f"{c.dispatch[:40]:<40} {c.pipeline:<18} {c.candidates:>8} {c.generation_seconds:6.2f} "
            f"{c.compiled:>4}/{c.tried:<4} {100 * c.fraction:5.1f} %"
        )
        if c.first_error:
            print(f"  first failure: {c.first_error}")
    print(f"\nCompile-only: nothing was benchmarked and no spec was written. Details: {run_dir / 'compile_only.json'}")
