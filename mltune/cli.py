"""The `mltune` command: argument checking, exit codes and the final table.

Bad input is reported as one line on stderr with exit code 2; Ctrl-C stops the run with
exit code 130 and SIGTERM with 143, keeping every record already written.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from statistics import median
from typing import Sequence

from mltune.cli_args import (
    arch,
    check_input_file,
    check_jobs,
    check_output_file,
    check_output_folder,
    iree_flag,
    positive_float,
    positive_int,
    seed,
    speedup,
)
from mltune.errors import RunFailure, UserError
from mltune.execution.devices import parse_devices
from mltune.problem import Untunable
from mltune.rankers import RANKERS
from mltune.report import TuneReport
from mltune.search.loop import LoopSettings
from mltune.targets import parse_target
from mltune.tools import kill_running_tools
from mltune.tune import TuneRequest


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line and exit 2, as for every other bad input
        raise UserError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="mltune", description="ML-guided autotuner for IREE dispatches.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    tune = commands.add_parser("tune", help="tune the dispatches of a model or of one dispatch benchmark")
    tune.add_argument("input", type=Path, nargs="?", help="source .mlir of a model, or a dumped dispatch benchmark .mlir")
    tune.add_argument("--resume", type=Path, default=None, metavar="RUN_DIR",
                      help="continue an interrupted run with the arguments it was started with: candidates it "
                           "measured are not measured again (the same --run-dir again does the same)")
    tune.add_argument("--ranker", default="heuristic", help=f"candidate order: {', '.join(RANKERS)} (default heuristic)")
    tune.add_argument("--budget", type=positive_int, default=50, help="candidates to benchmark per dispatch")
    tune.add_argument("--time-budget", type=positive_float, default=None, metavar="SECONDS",
                      help="stop starting new candidates for a dispatch after this many seconds")
    tune.add_argument("--target", default="host",
                      help="host or an LLVM CPU name (llvm-cpu), a ROCm arch or product (gfx942, mi300x, gfx950, "
                           "gfx1100, ...) or a CUDA arch (sm_80, sm_86, sm_89, sm_90); default host")
    tune.add_argument("--devices", default=None,
                      help="comma-separated runtime devices to benchmark on, one benchmark per device at a time "
                           "(default: local-task for CPUs, hip://0 or cuda://0 for GPUs)")
    tune.add_argument("--compile-only", action="store_true",
                      help="compile the first --budget candidates of each dispatch in ranker order and report the "
                           "fraction that compiled, without benchmarking (for targets with no device here)")
    tune.add_argument("--function", default=None, help="public function to benchmark (default: main or the only one)")
    tune.add_argument("-o", "--output", type=Path, default=Path("best_spec.mlir"), help="where to write the tuning spec")
    tune.add_argument("--run-dir", type=Path, default=None, help="run directory (default: mltune-runs/<time>-<input>)")
    tune.add_argument("--dataset-dir", type=Path, default=Path("datasets"), help="root of the per-arch datasets")
    tune.add_argument("--jobs", type=positive_int, default=None, help="parallel compiles (default: CPU cores)")
    tune.add_argument("--batch", type=positive_int, default=LoopSettings.batch_size,
                      help="candidates compiled together and timed by one runtime process; larger batches use more "
                           "cores and start fewer processes, adaptive rankers learn between batches "
                           f"(default {LoopSettings.batch_size})")
    tune.add_argument("--min-speedup", type=speedup, default=1.03,
                      help="a config is kept only if it beats IREE's default by this factor (default 1.03)")
    tune.add_argument("--seed", type=seed, default=0, help="seed for shuffling and input data")
    tune.add_argument("--top", type=positive_int, default=None, metavar="K",
                      help="tune the K problems that take most of a model's time (default: the fewest covering 80 %%)")
    tune.add_argument("--starter-spec", type=Path, default=None, metavar="FILE",
                      help="a tuning spec to merge with the result; mltune's configs win where both match")
    tune.add_argument("--flag-search", action="store_true",
                      help="first measure compile-flag variants (--iree-opt-data-tiling, CPU only) on the untuned "
                           "model and tune under the winner")
    tune.add_argument("--timing", choices=["auto", "call", "kernel"], default="auto",
                      help="compare candidates per call, or per kernel (each dispatch repeated in a call, so the "
                           "call's fixed cost does not hide the kernels; the count is calibrated); auto: kernel on "
                           "GPUs, call on CPUs. What is emitted is also timed per call (default auto)")
    tune.add_argument("--iree-flag", action="append", default=[], metavar="FLAG", dest="iree_flags", type=iree_flag,
                      help="an iree-compile flag for IREE's default and every candidate alike, e.g. "
                           "--iree-flag=--iree-cuda-use-ptxas (repeatable)")
    _add_learning_commands(commands)
    return parser


def _add_arch_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    parser.add_argument("--arch", type=arch, required=required,
                        help="the dataset's arch (a folder under --dataset-dir), e.g. znver4")
    parser.add_argument("--dataset-dir", type=Path, default=Path("datasets"), help="root of the per-arch datasets")
    parser.add_argument("--seed", type=seed, default=0, help="seed for the forest, fold ties and shuffling")


def _add_learning_commands(commands) -> None:
    train = commands.add_parser("train", help="train the random-forest ranker of one arch, or of a family of archs, "
                                "from the datasets")
    _add_arch_arguments(train, required=False)
    train.add_argument("--family", choices=["cpu", "gpu"], default=None,
                       help="train the pooled model of every arch of this family (models/family-FAMILY/) instead")
    train.add_argument("--model-dir", type=Path, default=Path("models"), help="where models/ARCH/ is written")
    train.add_argument("--force", action="store_true",
                       help="write a model even when cross-validation ranks it worse than the heuristic or the "
                            "family model")
    evaluate = commands.add_parser("evaluate", help="replay recorded measurements through every ranker")
    _add_arch_arguments(evaluate)
    evaluate.add_argument("--leave-arch-out", action="store_true",
                          help="also score forests trained on every other arch of the family, never on this one")
    evaluate.add_argument("--out", type=Path, default=None, help="folder for evaluation.json and the plot "
                          "(default: evaluation/ARCH)")
    evaluate.add_argument("--batch", type=positive_int, default=LoopSettings.batch_size,
                          help=f"candidates asked per step, as the tuning loop does (default {LoopSettings.batch_size})")
    evaluate.add_argument("--kind", default=None, metavar="OP_KIND",
                          help="score only the problems of one op kind, e.g. contraction or matvec (default: all)")
    dataset = commands.add_parser("dataset", help="manage dataset records")
    actions = dataset.add_subparsers(dest="action", required=True, parser_class=_Parser)
    importer = actions.add_parser("import", help="import another tuner's measurements as records")
    importer.add_argument("file", type=Path, help="the amdsharktuner candidate-analysis CSV")
    importer.add_argument("--from", dest="source", required=True, choices=["amdsharktuner"], help="the file's tuner")
    importer.add_argument("--arch", type=arch, required=True, help="the arch the CSV was measured on, e.g. gfx942")
    importer.add_argument("--problem", default=None, metavar="MxNxK[:IN[:ACC]]",
                          help="problem sizes (when the CSV has no knob_M/N/K) and element types")
    importer.add_argument("--pipeline", default="unknown", help="the tuned pipeline, recorded as amdsharktuner/NAME")
    importer.add_argument("--dataset-dir", type=Path, default=Path("datasets"), help="root of the per-arch datasets")
    compacter = actions.add_parser("compact", help="compress an arch's finished record files (*.jsonl -> *.jsonl.xz)")
    compacter.add_argument("--arch", type=arch, required=True, help="the arch whose records to compress")
    compacter.add_argument("--dataset-dir", type=Path, default=Path("datasets"), help="root of the per-arch datasets")


def _print_report(report: TuneReport) -> None:
    level = "model-level (the whole input, timed call by call against IREE's default)"
    if report.input_level == "dispatch":
        level = ("dispatch-level (a dumped dispatch benchmark reads never-written buffers and can run 2x off the "
                 "same dispatch in the model: docs/dispatch-benchmarks-vs-model.md)")
    print(f"\nTimes are {level}.")
    if report.kernel_timing is not None:
        print(f"Candidates and the end-to-end check were timed {report.kernel_timing.describe()}.")
    _print_profile(report)
    for dispatch in report.dispatches:
        if isinstance(dispatch.problem, Untunable):
            print(f"  not tuned: {dispatch.name} ({dispatch.problem.op_name}): {dispatch.problem.reason}")
    for result in report.results:
        compiled = sum(1 for t in result.trials if t.build.status == "ok")
        print(f"\n{result.name}  {result.problem.key}  ({result.candidates} candidates in the space; "
              f"compiled {compiled}/{len(result.trials)}, benchmarked {result.benchmarked}; {result.stop_reason})")
        print("  finalists, each re-measured against IREE's default in the same process (times: median of rounds):")
        print(f"  {'rank':>4} {'default us':>11} {'tuned us':>10} {'speedup':>8}  {'interval':<28} config")
        for rank, (trial, measurement) in enumerate(result.finals, 1):
            print(f"  {rank:>4} {_row(measurement)}  {' '.join(f'{k}={v}' for k, v in trial.knobs.items())}")
        if result.name in report.numerics:
            print(f"  {report.numerics[result.name]}")
        if result.winner:
            print(f"  kept: {result.winner[1].estimate.describe()}{_load_note(result.winner[1])}")
        elif result.name in report.numerics:  # the winner was refused
            print("  no config emitted for this dispatch")
        elif result.finals:
            best = result.finals[0][1]
            print(f"  not kept: the best finalist measured {best.estimate.describe()}, not surely "
                  f"{result.min_speedup:.2f}x or more{_load_note(best)}")
        else:
            print("  not kept: no candidate ran faster than IREE's default in screening")
    _print_model(report)
    if report.spec_path and report.output_kind == "source":
        print(f"\nAnnotated input: {report.spec_path}  (IREE ignores tuning specs on CUDA: compile this file, "
              f"iree-compile {report.spec_path} ...)")
    elif report.spec_path:
        print(f"\nTuning spec: {report.spec_path}  (iree-compile ... --iree-codegen-tuning-spec-path={report.spec_path})")
    if report.spec_path and report.model is not None and report.model.timing is not None:
        print(f"Emitted: model-level speedup {report.model.timing.estimate('recommended').describe()} over IREE's default"
              f"{' (kernel level)' if report.kernel_timing else ''}")
    if report.per_call is not None:
        print(f"Per call, as it will run (no dispatch repeats): {_row(report.per_call).strip()}")
    else:
        refused = report.model is not None and report.model.refused
        withdrawn = report.model.withdrawn if report.model is not None else ""
        why = ("the result was refused (see below)" if refused else f"nothing is recommended: {withdrawn}" if withdrawn else
               "the recommended flags alone are the best found" if report.command else
               "IREE's default configuration is already the best found")
        print(f"\nNo tuning spec written: {why}.")
        if report.requested_output.exists():
            print(f"({report.requested_output} is from an earlier run and was left as it was.)")
    print(f"Records: {report.records_path}")
    print(f"Wall time {report.wall_seconds:.0f} s; tuner overhead {100 * report.overhead_fraction:.1f} % "
          "(time outside compiler and benchmark processes)")


def _row(measurement) -> str:
    """Default and tuned time from the same rounds, the speedup they give, and the interval of the speedup."""
    if not measurement.time_us:
        return f"{'-':>11} {'-':>10} {'-':>8}  {measurement.status} {measurement.detail}"[:80]
    default, tuned = median(measurement.baseline_us), median(measurement.time_us)
    estimate = measurement.estimate
    interval = f"{estimate.low:.2f}-{estimate.high:.2f}x ({100 * estimate.confidence:.0f} %, {estimate.rounds} rounds)"
    return f"{default:11.1f} {tuned:10.1f} {default / tuned:7.2f}x  {interval:<28}"


def _load_note(measurement) -> str:
    load = measurement.load
    return f"; other processes kept {load:.1f} cores busy meanwhile" if load == load and load >= 0.25 else ""


def _print_profile(report: TuneReport) -> None:
    """The model's time per dispatch (dumped benchmarks x calls), and what gets tuned with what budget."""
    if report.input_level != "model" or len(report.profiles) <= 1:
        return
    print("\nWhere the model spends its time (dumped dispatch benchmarks, IREE default, x calls per model run):")
    print(f"  {'dispatch':<40} {'op':<22} {'us/call':>9} {'calls':>5} {'share':>6}  problem")
    for p in report.profiles:
        print(f"  {p.name[:40]:<40} {p.op[:22]:<22} {p.time_us:9.1f} {p.calls:5d} {100 * p.share:5.1f}%  "
              f"{p.problem_key or 'not tunable'}")
    timed = sum(p.total_us for p in report.profiles if p.time_us == p.time_us)
    print(f"  the dumped dispatches add up to {timed:.0f} us per model run; the model itself ran in "
          f"{report.baseline_us:.0f} us (in-process, IREE default): dumps rank dispatches, they do not predict the model")
    for a in report.allocations:
        print(f"  tune {a.problem.key} ({100 * a.problem.share:.1f} % of the time, "
              f"{len(a.problem.dispatches)} dispatch(es)): {a.budget} candidates")


def _print_model(report: TuneReport) -> None:
    """Flags, leave-one-out, numerics and the end-to-end timing of a model run."""
    if report.flags is not None:
        for name, detail in report.flags.failed.items():
            print(f"\nFlag variant {name}: does not compile (with the starter spec, if any): {detail}")
        screened = report.flags.screened
        if screened:
            best = min(screened, key=lambda n: screened[n].ratio)
            print(f"\nData-tiled variant: {len(screened)} distinct flag sets screened on the model, fastest {best} "
                  f"({screened[best].estimate.describe()} vs IREE's default)")
        for name, m in report.flags.measured.items():
            print(f"Flag variant {name}: {m.estimate.describe()} vs IREE's default build: "
                  f"{'kept' if report.flags.name == name else 'not kept'}")
    model = report.model
    if model is None:
        return
    for key, ratio in model.check.ratios.items():
        verdict = "dropped: the model runs faster without it" if key in model.check.dropped else "kept"
        print(f"  leave-one-out {key}: model without it / with all = {ratio:.3f} -> {verdict}")
    if model.numerics is not None:
        print(f"Numerics vs IREE's default build on the same inputs: {model.numerics.detail}")
    if model.timing is not None:
        print("End to end, interleaved with IREE's default build (no spec, default flags):")
        print(f"  {'build':<14} {'default us':>11} {'tuned us':>10} {'speedup':>8}  interval")
        for label, m in zip(model.timing.labels, model.timing.measurements):
            print(f"  {label:<14} {_row(m)}{_load_note(m)}")
    if report.command:
        print(f"\nCompile the tuned model with:\n  {report.command}")


def _resumed_arguments(run_dir: Path) -> argparse.Namespace:
    """The arguments an interrupted run in `run_dir` was started with, to continue it there."""
    from mltune.run_dir import read_state

    state = read_state(run_dir) if run_dir.is_dir() else None
    if state is None:
        raise UserError(f"--resume: {run_dir} holds no mltune run (no state.json)")
    if state.status == "finished":
        raise UserError(f"--resume: the run in {run_dir} finished; its result is in {run_dir / 'summary.json'}")
    args = build_parser().parse_args(list(state.argv))
    args.run_dir, args.argv = run_dir, list(state.argv)
    return args


def _run_tune(args: argparse.Namespace) -> int:
    from mltune import run_dir as runs
    from mltune.mlir import new_context
    from mltune.rankers import make_ranker
    from mltune.tune import tune

    if args.resume is not None:
        if args.input is not None:
            raise UserError("--resume takes the run directory alone: the run's own arguments are reused")
        args = _resumed_arguments(args.resume)
    elif args.input is None:
        raise UserError("tune: give an input file, or --resume RUN_DIR")
    make_ranker(args.ranker)  # an unknown name fails before any work
    check_input_file(args.input, "input file")
    if args.starter_spec is not None:
        check_input_file(args.starter_spec, "--starter-spec")
    check_output_file(args.output, "-o")
    check_output_folder(args.dataset_dir, "--dataset-dir")
    jobs = check_jobs(args.jobs)
    target = parse_target(args.target)
    devices = parse_devices(args.devices, target)
    if args.starter_spec is not None and target.kind == "cuda":
        raise UserError("--starter-spec: IREE ignores tuning specs on CUDA (docs/cuda-tuning-specs.md)")
    if not args.compile_only:
        from mltune.execution.devices import check_device

        for device in devices:
            try:
                check_device(device)
            except UserError as err:
                hint = "; use --compile-only to check candidates compile" if target.kind != "cpu" else ""
                raise UserError(f"{err}{hint}") from None
    run_dir = check_output_folder(args.run_dir, "--run-dir") if args.run_dir else \
        runs.new_run_dir(check_output_folder(Path("mltune-runs"), "--run-dir"), args.input.stem)
    settings = LoopSettings(budget=args.budget, time_budget_s=args.time_budget, min_speedup=args.min_speedup,
                            batch_size=args.batch)
    request = TuneRequest(args.input, target, args.ranker, settings, args.output, run_dir, args.dataset_dir,
                          args.function, args.seed, jobs, devices,
                          args.top, args.starter_spec, args.flag_search, tuple(args.iree_flags), args.timing)
    if args.compile_only:
        from mltune.compile_only import compile_only

        _print_compile_only(*compile_only(request, new_context()), run_dir)
        return 0
    run_dir.mkdir(parents=True, exist_ok=True)
    state = runs.start(run_dir, args.argv, args.input)
    try:
        report = tune(request, new_context())
    except KeyboardInterrupt as stop:
        runs.mark(run_dir, state, "interrupted", "stopped by Ctrl-C or SIGTERM")
        stop.resume_hint = f"continue with: mltune tune --resume {run_dir}"
        raise
    except BaseException as err:
        runs.mark(run_dir, state, "failed", str(err)[:300])
        raise
    runs.mark(run_dir, state, "finished")
    _print_report(report)
    if report.model is not None and report.model.refused:
        print(f"mltune: refused: {report.model.refused}; no spec written", file=sys.stderr)
        return 1
    return 0


def _print_compile_only(checks, untunable, run_dir: Path) -> None:
    for name, problem in untunable:
        print(f"  not tuned: {name} ({problem.op_name}): {problem.reason}")
    print(f"\n{'dispatch':<40} {'pipeline':<18} {'space':>8} {'gen s':>6} {'compiled':>10}")
    for c in checks:
        print(f"{c.dispatch[:40]:<40} {c.pipeline:<18} {c.candidates:>8} {c.generation_seconds:6.2f} "
              f"{c.compiled:>4}/{c.tried:<4} {100 * c.fraction:5.1f} %")
        if c.first_error:
            print(f"  first failure: {c.first_error}")
    print(f"\nCompile-only: nothing was benchmarked and no spec was written. Details: {run_dir / 'compile_only.json'}")


def _run_train(args: argparse.Namespace) -> int:
    from mltune.learn.train import train, train_family
    from mltune.learn.train_report import all_refused, print_training

    check_output_folder(args.model_dir, "--model-dir")
    if (args.arch is None) == (args.family is None):
        raise UserError("train needs one of --arch ARCH or --family cpu|gpu")
    if args.family is not None:
        report = train_family(args.dataset_dir, args.family, args.model_dir, args.seed, args.force)
    else:
        report = train(args.dataset_dir, args.arch, args.model_dir, args.seed, args.force)
    print_training(report)
    return 1 if all_refused(report) else 0


def _run_evaluate(args: argparse.Namespace) -> int:
    from mltune.learn.replay import evaluate

    out = check_output_folder(args.out or Path("evaluation") / args.arch, "--out")
    evaluate(args.dataset_dir, args.arch, out, args.seed, args.batch, args.kind, args.leave_arch_out)
    return 0


def _run_import(args: argparse.Namespace) -> int:
    from mltune.importers.amdsharktuner import ProblemSpec, import_csv

    spec = ProblemSpec.parse(args.problem) if args.problem else ProblemSpec()
    check_input_file(args.file, "CSV file")
    check_output_folder(args.dataset_dir, "--dataset-dir")
    report = import_csv(args.file, args.arch, args.dataset_dir, spec, args.pipeline)
    if report.imported == 0:
        first = f"; first: {report.reasons[0]}" if report.reasons else ""
        raise UserError(f"no valid rows in {args.file} ({report.skipped} skipped{first})")
    print(f"imported {report.imported} records into {report.path}; skipped {report.skipped} malformed rows")
    for reason in report.reasons:
        print(f"  skipped {reason}")
    return 0


def _run_compact(args: argparse.Namespace) -> int:
    from mltune.dataset import compact

    folder = args.dataset_dir / args.arch
    if not folder.is_dir():
        raise UserError(f"{folder} is not a directory")
    try:
        written = compact(folder)
    except OSError as err:
        raise UserError(f"cannot compact {folder}: {err}") from None
    print(f"compressed {len(written)} record files under {folder}")
    return 0


def _run_dataset(args: argparse.Namespace) -> int:
    return {"import": _run_import, "compact": _run_compact}[args.action](args)


COMMANDS = {"tune": _run_tune, "train": _run_train, "evaluate": _run_evaluate, "dataset": _run_dataset}


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that it unwinds like Ctrl-C: children killed, records kept."""


def _raise_terminated(signum, frame) -> None:
    raise Terminated()


def main(argv: Sequence[str] | None = None) -> int:
    in_main_thread = threading.current_thread() is threading.main_thread()  # only it may handle signals
    previous = signal.signal(signal.SIGTERM, _raise_terminated) if in_main_thread else None
    try:
        args = build_parser().parse_args(argv)
        args.argv = list(sys.argv[1:] if argv is None else argv)
        if args.command in COMMANDS:
            return COMMANDS[args.command](args)
        raise UserError(f"unknown command {args.command}")
    except UserError as err:
        print(f"mltune: error: {err}", file=sys.stderr)
        return 2
    except RunFailure as err:
        print(f"mltune: failed: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as stop:
        kill_running_tools()
        what, code = ("terminated", 143) if isinstance(stop, Terminated) else ("interrupted", 130)
        hint = f" ({stop.resume_hint})" if getattr(stop, "resume_hint", "") else ""
        print(f"mltune: {what}; every record measured so far is kept{hint}", file=sys.stderr)
        return code
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
