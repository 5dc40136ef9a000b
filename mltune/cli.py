"""The `mltune` command: argument checking, exit codes and the final table.

Bad input is reported as one line on stderr with exit code 2; Ctrl-C stops the run with
exit code 130, keeping every record already written.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path
from statistics import median
from typing import Sequence

from mltune.errors import UserError
from mltune.problem import Untunable
from mltune.rankers import RANKERS
from mltune.search.devices import parse_devices
from mltune.search.loop import LoopSettings
from mltune.targets import parse_target
from mltune.tools import kill_running_tools
from mltune.tune import TuneReport, TuneRequest


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line and exit 2, as for every other bad input
        raise UserError(message)


def _iree_flag(text: str) -> str:
    if not text.startswith("--") or len(text) < 3:
        raise argparse.ArgumentTypeError(f"expected an iree-compile flag such as --iree-opt-level=O3, got {text!r}")
    return text


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _speedup(text: str) -> float:
    value = _positive_float(text)
    if value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a factor >= 1, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="mltune", description="ML-guided autotuner for IREE dispatches.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    tune = commands.add_parser("tune", help="tune the dispatches of a model or of one dispatch benchmark")
    tune.add_argument("input", type=Path, help="source .mlir of a model, or a dumped dispatch benchmark .mlir")
    tune.add_argument("--ranker", default="heuristic", help=f"candidate order: {', '.join(RANKERS)} (default heuristic)")
    tune.add_argument("--budget", type=_positive_int, default=50, help="candidates to benchmark per dispatch")
    tune.add_argument("--time-budget", type=_positive_float, default=None, metavar="SECONDS",
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
    tune.add_argument("--jobs", type=_positive_int, default=None, help="parallel compiles (default: CPU cores)")
    tune.add_argument("--batch", type=_positive_int, default=LoopSettings.batch_size,
                      help="candidates compiled together and timed by one runtime process; larger batches use more "
                           "cores and start fewer processes, adaptive rankers learn between batches "
                           f"(default {LoopSettings.batch_size})")
    tune.add_argument("--min-speedup", type=_speedup, default=1.03,
                      help="a config is kept only if it beats IREE's default by this factor (default 1.03)")
    tune.add_argument("--seed", type=int, default=0, help="seed for shuffling and input data")
    tune.add_argument("--top", type=_positive_int, default=None, metavar="K",
                      help="tune the K problems that take most of a model's time (default: the fewest covering 80 %%)")
    tune.add_argument("--starter-spec", type=Path, default=None, metavar="FILE",
                      help="a tuning spec to merge with the result; mltune's configs win where both match")
    tune.add_argument("--flag-search", action="store_true",
                      help="first measure compile-flag variants (--iree-opt-data-tiling, CPU only) on the untuned "
                           "model and tune under the winner")
    tune.add_argument("--iree-flag", action="append", default=[], metavar="FLAG", dest="iree_flags", type=_iree_flag,
                      help="an iree-compile flag for IREE's default and every candidate alike, e.g. "
                           "--iree-flag=--iree-cuda-use-ptxas (repeatable)")
    _add_learning_commands(commands)
    return parser


def _arch(text: str) -> str:
    """An arch names a folder under datasets/ and models/: one plain path component."""
    if not re.fullmatch(r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]*", text):
        raise argparse.ArgumentTypeError(f"expected an arch name such as znver4 or gfx942, got {text!r}")
    return text


def _add_arch_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    parser.add_argument("--arch", type=_arch, required=required,
                        help="the dataset's arch (a folder under --dataset-dir), e.g. znver4")
    parser.add_argument("--dataset-dir", type=Path, default=Path("datasets"), help="root of the per-arch datasets")
    parser.add_argument("--seed", type=int, default=0, help="seed for the forest, fold ties and shuffling")


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
    evaluate.add_argument("--batch", type=_positive_int, default=LoopSettings.batch_size,
                          help=f"candidates asked per step, as the tuning loop does (default {LoopSettings.batch_size})")
    evaluate.add_argument("--kind", default=None, metavar="OP_KIND",
                          help="score only the problems of one op kind, e.g. contraction or matvec (default: all)")
    dataset = commands.add_parser("dataset", help="manage dataset records")
    actions = dataset.add_subparsers(dest="action", required=True, parser_class=_Parser)
    importer = actions.add_parser("import", help="import another tuner's measurements as records")
    importer.add_argument("file", type=Path, help="the amdsharktuner candidate-analysis CSV")
    importer.add_argument("--from", dest="source", required=True, choices=["amdsharktuner"], help="the file's tuner")
    importer.add_argument("--arch", type=_arch, required=True, help="the arch the CSV was measured on, e.g. gfx942")
    importer.add_argument("--problem", default=None, metavar="MxNxK[:IN[:ACC]]",
                          help="problem sizes (when the CSV has no knob_M/N/K) and element types")
    importer.add_argument("--pipeline", default="unknown", help="the tuned pipeline, recorded as amdsharktuner/NAME")
    importer.add_argument("--dataset-dir", type=Path, default=Path("datasets"), help="root of the per-arch datasets")


def _print_report(report: TuneReport) -> None:
    level = "model-level (the whole input, timed call by call against IREE's default)"
    if report.input_level == "dispatch":
        level = ("dispatch-level (a dumped dispatch benchmark reads never-written buffers and can run 2x off the "
                 "same dispatch in the model: docs/dispatch-benchmarks-vs-model.md)")
    print(f"\nTimes are {level}.")
    _print_profile(report)
    for dispatch in report.dispatches:
        if isinstance(dispatch.problem, Untunable):
            print(f"  not tuned: {dispatch.name} ({dispatch.problem.op_name}): {dispatch.problem.reason}")
    for result in report.results:
        compiled = sum(1 for t in result.trials if t.build.status == "ok")
        print(f"\n{result.name}  {result.problem.key}  ({result.candidates} candidates in the space; "
              f"compiled {compiled}/{len(result.trials)}, benchmarked {result.benchmarked}; {result.stop_reason})")
        baseline = [b for t in result.trials if t.measurement for b in t.measurement.baseline_us]
        if baseline:
            print(f"  IREE default: {sorted(baseline)[len(baseline) // 2]:10.1f} us")
        print(f"  {'rank':>4} {'time us':>10} {'speedup':>8}  config")
        for rank, (trial, measurement) in enumerate(result.finals, 1):
            knobs = " ".join(f"{k}={v}" for k, v in trial.knobs.items())
            time_us = sorted(measurement.time_us)[len(measurement.time_us) // 2] if measurement.time_us else float("nan")
            print(f"  {rank:>4} {time_us:10.1f} {1 / measurement.ratio:7.2f}x  {knobs}")
        if result.winner:
            print(f"  kept: {1 / result.winner[1].ratio:.2f}x over IREE's default")
        else:
            print("  nothing beat IREE's default beyond the noise: no config emitted for this dispatch")
    _print_model(report)
    if report.spec_path and report.output_kind == "source":
        print(f"\nAnnotated input: {report.spec_path}  (IREE ignores tuning specs on CUDA: compile this file, "
              f"iree-compile {report.spec_path} ...)")
    elif report.spec_path:
        print(f"\nTuning spec: {report.spec_path}  (iree-compile ... --iree-codegen-tuning-spec-path={report.spec_path})")
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
        for name, m in report.flags.measured.items():
            print(f"\nFlag variant {name}: {1 / m.ratio:.2f}x vs IREE's default flags "
                  f"(won {100 * m.rounds_won:.0f} % of rounds): {'kept' if report.flags.name == name else 'not kept'}")
    model = report.model
    if model is None:
        return
    for key, ratio in model.check.ratios.items():
        verdict = "dropped: the model runs faster without it" if key in model.check.dropped else "kept"
        print(f"  leave-one-out {key}: model without it / with all = {ratio:.3f} -> {verdict}")
    if model.numerics is not None:
        print(f"Numerics vs IREE's default build on the same inputs: {model.numerics.detail}")
    elif model.timing is not None:
        print("Numerics: not checked (the model's outputs are compared on CPU targets only)")
    if model.timing is not None:
        print("End to end, interleaved with IREE's default build (no spec, default flags):")
        for label, m in zip(model.timing.labels, model.timing.measurements):
            speedup = model.timing.speedup(label)
            print(f"  {label:<13} {median(m.time_us):10.1f} us vs {median(m.baseline_us):10.1f} us default: "
                  f"{speedup:.2f}x" if speedup else f"  {label}: {m.status} {m.detail}")
    if report.command:
        print(f"\nCompile the tuned model with:\n  {report.command}")


def _run_tune(args: argparse.Namespace) -> int:
    from mltune.mlir import new_context
    from mltune.rankers import make_ranker
    from mltune.tune import tune

    make_ranker(args.ranker)  # an unknown name fails before any work
    target = parse_target(args.target)
    devices = parse_devices(args.devices, target)
    if args.starter_spec is not None and target.kind == "cuda":
        raise UserError("--starter-spec: IREE ignores tuning specs on CUDA (docs/cuda-tuning-specs.md)")
    if not args.compile_only:
        from mltune.search.devices import check_device

        for device in devices:
            try:
                check_device(device)
            except UserError as err:
                hint = "; use --compile-only to check candidates compile" if target.kind != "cpu" else ""
                raise UserError(f"{err}{hint}") from None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = args.run_dir or Path("mltune-runs") / f"{stamp}-{args.input.stem}"
    settings = LoopSettings(budget=args.budget, time_budget_s=args.time_budget, min_speedup=args.min_speedup,
                            batch_size=args.batch)
    request = TuneRequest(args.input, target, args.ranker, settings, args.output, run_dir, args.dataset_dir,
                          args.function, args.seed, args.jobs or len(os.sched_getaffinity(0)), devices,
                          args.top, args.starter_spec, args.flag_search, tuple(args.iree_flags))
    if args.compile_only:
        from mltune.compile_only import compile_only

        _print_compile_only(*compile_only(request, new_context()), run_dir)
        return 0
    report = tune(request, new_context())
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

    evaluate(args.dataset_dir, args.arch, args.out or Path("evaluation") / args.arch, args.seed, args.batch, args.kind,
             args.leave_arch_out)
    return 0


def _run_import(args: argparse.Namespace) -> int:
    from mltune.importers.amdsharktuner import ProblemSpec, import_csv

    spec = ProblemSpec.parse(args.problem) if args.problem else ProblemSpec()
    report = import_csv(args.file, args.arch, args.dataset_dir, spec, args.pipeline)
    if report.imported == 0:
        first = f"; first: {report.reasons[0]}" if report.reasons else ""
        raise UserError(f"no valid rows in {args.file} ({report.skipped} skipped{first})")
    print(f"imported {report.imported} records into {report.path}; skipped {report.skipped} malformed rows")
    for reason in report.reasons:
        print(f"  skipped {reason}")
    return 0


COMMANDS = {"tune": _run_tune, "train": _run_train, "evaluate": _run_evaluate, "dataset": _run_import}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command in COMMANDS:
            return COMMANDS[args.command](args)
        raise UserError(f"unknown command {args.command}")
    except UserError as err:
        print(f"mltune: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        kill_running_tools()
        print("mltune: interrupted; every record measured so far is kept", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
