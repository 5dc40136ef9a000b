"""The `mltune` command: argument checking, exit codes and the final table.

Bad input is reported as one line on stderr with exit code 2; Ctrl-C stops the run with
exit code 130 and SIGTERM with 143, keeping every record already written.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from functools import partial
from pathlib import Path
from typing import Sequence

from mltune import __version__
from mltune.cli.input_options import add_input_arguments
from mltune.cli.export import add_export_command, run_export
from mltune.cli.runs import add_run_commands, run_commands
from mltune.errors import RunFailure, UserError
from mltune.input.checks import (
    arch,
    check_input_file,
    check_output_folder,
    iree_flag,
    positive_float,
    positive_int,
    seed,
    share,
    speedup,
)
from mltune.learn.learner_names import FOREST, LEARNER_NAMES
from mltune.rankers import NEAR_DEFAULT_SHARE, ranker_names
from mltune.search.defaults import BATCH_SIZE
from mltune.system.paths import SHIPPED_MODELS, data_home, user_datasets, user_models, user_runs
from mltune.system.tools import kill_running_tools


class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """`--help` shows each option's default, unless its help already says it or there is none to show."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if "default" in text or action.default in (None, False, [], argparse.SUPPRESS):
            return text
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Help)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # one line and exit 2, as for every other bad input
        raise UserError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="mltune", description="ML-guided autotuner for IREE dispatches.",
                     epilog=f"Your records, models and runs live in {data_home()} ($MLTUNE_HOME overrides it); the "
                            f"shipped models in {SHIPPED_MODELS}.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    tune = commands.add_parser("tune", help="tune the dispatches of a model or of one dispatch benchmark")
    tune.add_argument("input", type=Path, nargs="?", help="source .mlir of a model, or a dumped dispatch benchmark .mlir")
    tune.add_argument("--resume", type=Path, default=None, metavar="RUN_DIR",
                      help="continue an interrupted run with the arguments it was started with: candidates it "
                           "measured are not measured again (the same --run-dir again does the same)")
    tune.add_argument("--ranker", default="learned",
                      help=f"candidate order: {', '.join(ranker_names())} (installed plugins add theirs; default "
                           "learned: the learned models where one has learned from the target's arch, else the "
                           "heuristic, op kind by op kind)")
    tune.add_argument("--budget", type=positive_int, default=50,
                      help="candidates to benchmark per dispatch; for a model, the total, split over the problems tuned "
                           "(each gets 8, or an equal part of a smaller budget; the rest goes by share of time)")
    tune.add_argument("--time-budget", type=positive_float, default=None, metavar="SECONDS",
                      help="the whole run's seconds: no candidate is started past 60 %% of them on a model (85 %% on "
                           "a dispatch benchmark), the rest left to the checks in the model, which shorten once it "
                           "is spent; each stage's time is reported")
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
    tune.add_argument("-o", "--output", type=Path, default=Path("best_spec.mlir"),
                      help="where to write the tuning spec (the only file written outside the data home)")
    tune.add_argument("--run-dir", type=Path, default=None,
                      help=f"run directory (default: a new {user_runs()}/<time>-<input>)")
    tune.add_argument("--dataset-dir", type=Path, default=None,
                      help=f"where records are written, one folder per arch (default: {user_datasets()})")
    tune.add_argument("--model-dir", type=Path, default=None,
                      help=f"the learned rankers' models: this folder alone (default: {user_models()}, then the "
                           f"shipped {SHIPPED_MODELS})")
    tune.add_argument("--jobs", type=positive_int, default=None, help="parallel compiles (default: CPU cores)")
    tune.add_argument("--batch", type=positive_int, default=BATCH_SIZE,
                      help="candidates compiled together and timed by one runtime process; larger batches use more "
                           "cores and start fewer processes, adaptive rankers learn between batches "
                           f"(default {BATCH_SIZE})")
    tune.add_argument("--min-speedup", type=speedup, default=1.03,
                      help="a config is kept only if it beats IREE's default by this factor (default 1.03)")
    tune.add_argument("--seed", type=seed, default=0, help="seed for shuffling and input data")
    tune.add_argument("--near-default", type=share, default=None, metavar="SHARE",
                      help="the share of each dispatch's picks taken from the untried candidates nearest the fastest "
                           "config so far, IREE's default at first (CPU spaces; 0: the ranker's order alone; default "
                           f"{NEAR_DEFAULT_SHARE}, and 0 for the reference orders none, shuffle and shuffle-lowerings)")
    tune.add_argument("--top", type=positive_int, default=None, metavar="K",
                      help="tune the K problems that take most of a model's time (default: the fewest covering 80 %%)")
    tune.add_argument("--starter-spec", type=Path, default=None, metavar="FILE",
                      help="a tuning spec to merge with the result; mltune's configs win where both match")
    tune.add_argument("--flag-search", action="store_true",
                      help="first measure compile-flag variants (--iree-opt-data-tiling, CPU only) on the untuned "
                           "model and tune under the winner")
    tune.add_argument("--screen", choices=["auto", "none", "dispatch", "one-op"], default="auto",
                      help="a model's candidates: timed first on the dispatch's dumped benchmark (dispatch) or the "
                           "problem's one-op model (one-op), only the best --screen-finalists in the whole model; "
                           "none: every one in the whole model; auto (default): dispatch for models of several "
                           "dispatches")
    tune.add_argument("--screen-finalists", type=positive_int, default=4, metavar="K",
                      help="with a screen: the K screened best of each dispatch timed in the whole model (default 4)")
    tune.add_argument("--timing", choices=["auto", "call", "kernel"], default="auto",
                      help="compare candidates per call, or per kernel (each dispatch repeated in a call, so the "
                           "call's fixed cost does not hide the kernels; the count is calibrated); auto: kernel on "
                           "GPUs, call on CPUs. What is emitted is also timed per call (default auto)")
    tune.add_argument("--iree-flag", action="append", default=[], metavar="FLAG", dest="iree_flags", type=iree_flag,
                      help="an iree-compile flag for IREE's default and every candidate alike, e.g. "
                           "--iree-flag=--iree-opt-level=O3 (repeatable)")
    add_input_arguments(tune)
    tune.add_argument("--cluster", default=None, metavar="auto|ray://HOST:PORT",
                      help="compile and benchmark candidates on a Ray cluster (pip install 'mltune[ray]'): compiles "
                           "on its CPUs, one benchmark actor per GPU (or per unit of the 'mltune_bench' resource on "
                           "CPU nodes); auto: the cluster `ray start` or RAY_ADDRESS names")
    tune.add_argument("--shared-fs", action="store_true",
                      help="with --cluster: the run directory is at the same path on every node (modules travel "
                           "as paths, not bytes)")
    verbosity = tune.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="no progress, only the final report")
    verbosity.add_argument("-v", "--verbose", action="store_true", help="a line for every benchmark, not only a bar")
    _add_learning_commands(commands)
    add_run_commands(commands)
    add_export_command(commands)
    return parser


def _add_arch_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    parser.add_argument("--arch", type=arch, required=required,
                        help="the dataset's arch (a folder under --dataset-dir), e.g. znver4")
    parser.add_argument("--dataset-dir", type=Path, default=None,
                        help=f"root of the per-arch datasets (default: {user_datasets()})")
    parser.add_argument("--seed", type=seed, default=0, help="seed for the forest, fold ties and shuffling")


def _add_learning_commands(commands) -> None:
    train = commands.add_parser("train", help="train the random-forest ranker of one arch, or of a family of archs, "
                                "from the datasets")
    _add_arch_arguments(train, required=False)
    train.add_argument("--family", choices=["cpu", "gpu"], default=None,
                       help="train the pooled model of every arch of this family (MODEL_DIR/family-FAMILY/) instead")
    train.add_argument("--model-dir", type=Path, default=None,
                       help=f"where MODEL_DIR/ARCH/KIND/ is written (default: {user_models()}; the shipped models "
                            f"are trained into {SHIPPED_MODELS} from the repository's datasets/)")
    train.add_argument("--force", action="store_true",
                       help="write a model even when cross-validation ranks it worse than the heuristic or the "
                            "family model")
    train.add_argument("--learner", choices=LEARNER_NAMES, default=None,
                       help="fit every model with this learner (default: each learner is cross-validated and, per op "
                            "kind, the one that ranks held-out problems sooner is kept)")
    evaluate = commands.add_parser("evaluate", help="replay recorded measurements through every ranker")
    _add_arch_arguments(evaluate)
    evaluate.add_argument("--leave-arch-out", action="store_true",
                          help="also score forests trained on every other arch of the family, never on this one")
    evaluate.add_argument("--learner", choices=LEARNER_NAMES, default=FOREST,
                          help=f"what fits the learned rankers' models (default {FOREST}; `mltune train` keeps, per op "
                               "kind, whichever ranks better)")
    evaluate.add_argument("--out", type=Path, default=None, help="folder for evaluation.json and the plot "
                          f"(default: {data_home() / 'evaluation'}/ARCH)")
    evaluate.add_argument("--batch", type=positive_int, default=BATCH_SIZE,
                          help=f"candidates asked per step, as the tuning loop does (default {BATCH_SIZE})")
    evaluate.add_argument("--kind", default=None, metavar="OP_KIND",
                          help="score only the problems of one op kind, e.g. contraction or matvec, or of one model kind, "
                               "e.g. simt_gemm (default: all)")
    evaluate.add_argument("--near-default", type=share, default=NEAR_DEFAULT_SHARE, metavar="SHARE",
                          help="also score every ranker but shuffle with this share of its picks near IREE's default "
                               "config, as tune ranks a CPU dispatch (NAME+near-default; the default is read from each "
                               f"problem's one-op model built for the records' CPU; default {NEAR_DEFAULT_SHARE}; "
                               "0: not scored)")
    dataset = commands.add_parser("dataset", help="manage dataset records")
    actions = dataset.add_subparsers(dest="action", required=True, parser_class=_Parser)
    importer = actions.add_parser("import", help="import another tuner's measurements as records")
    importer.add_argument("file", type=Path, help="the amdsharktuner candidate-analysis CSV")
    importer.add_argument("--from", dest="source", required=True, choices=["amdsharktuner"], help="the file's tuner")
    importer.add_argument("--arch", type=arch, required=True, help="the arch the CSV was measured on, e.g. gfx942")
    importer.add_argument("--problem", default=None, metavar="MxNxK[:IN[:ACC]]",
                          help="problem sizes (when the CSV has no knob_M/N/K) and element types")
    importer.add_argument("--pipeline", default="unknown", help="the tuned pipeline, recorded as amdsharktuner/NAME")
    importer.add_argument("--dataset-dir", type=Path, default=None,
                          help=f"root of the per-arch datasets (default: {user_datasets()})")
    compacter = actions.add_parser("compact", help="compress an arch's finished record files (*.jsonl -> *.jsonl.xz)")
    compacter.add_argument("--arch", type=arch, required=True, help="the arch whose records to compress")
    compacter.add_argument("--dataset-dir", type=Path, default=None,
                           help=f"root of the per-arch datasets (default: {user_datasets()})")


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, with the data home's folders (`mltune.system.paths`) for the paths not given."""
    args = build_parser().parse_args(argv)
    if getattr(args, "dataset_dir", "") is None:
        args.dataset_dir = user_datasets()
    if args.command == "train" and args.model_dir is None:
        args.model_dir = user_models()
    return args


def _resumed_arguments(run_dir: Path) -> argparse.Namespace:
    """The arguments an interrupted run in `run_dir` was started with, to continue it there."""
    from mltune.runs.directory import read_state

    state = read_state(run_dir) if run_dir.is_dir() else None
    if state is None:
        raise UserError(f"--resume: {run_dir} holds no mltune run (no state.json)")
    if state.status == "finished":
        raise UserError(f"--resume: the run in {run_dir} finished; its result is in {run_dir / 'summary.json'}")
    run_dir = run_dir.resolve()
    if state.cwd:  # the run's relative paths (input, -o, flags files, --input files) resolve where it started
        try:
            os.chdir(state.cwd)
        except OSError as err:
            raise UserError(f"--resume: the run was started in {state.cwd}: {err.strerror}") from None
    args = parse_arguments(list(state.argv))
    if getattr(args, "command", None) != "tune" or args.resume is not None or args.input is None:
        raise UserError(f"--resume: the run in {run_dir} recorded no tuning command with an input file "
                        f"({' '.join(state.argv) or 'nothing'}); start it again with `mltune tune INPUT`")
    args.run_dir, args.argv = run_dir, list(state.argv)
    return args


def _run_tune(args: argparse.Namespace) -> int:
    # each command imports its work when it runs: `mltune --help` and bad arguments are answered at once
    from mltune.api import tune, tune_shapes
    from mltune.runs.report_text import print_compile_only, print_report

    if args.resume is not None:
        if args.input is not None:
            raise UserError("--resume takes the run directory alone: the run's own arguments are reused")
        args = _resumed_arguments(args.resume)
    elif args.input is None:
        raise UserError("tune: give an input file, or --resume RUN_DIR")
    several = len(args.shapes) > 1
    if several and args.compile_only:
        raise UserError("--compile-only takes one --shape")
    call = partial(tune_shapes, args.input, args.shapes, run_dir=args.run_dir) if several else \
        partial(tune, args.input, shape=args.shapes[0] if args.shapes else None, run_dir=args.run_dir,
                command_line=args.argv)
    progress = "quiet" if args.quiet else "verbose" if args.verbose else "bar"
    outcome = call(target=args.target, ranker=args.ranker, budget=args.budget, time_budget=args.time_budget,
                   output=args.output, dataset_dir=args.dataset_dir, model_dir=args.model_dir,
                   function=args.function, seed=args.seed, jobs=args.jobs, devices=args.devices, batch=args.batch,
                   min_speedup=args.min_speedup, near_default=args.near_default, top=args.top,
                   starter_spec=args.starter_spec, flag_search=args.flag_search, timing=args.timing,
                   iree_flags=args.iree_flags, cluster=args.cluster, shared_fs=args.shared_fs,
                   compile_only=args.compile_only, inputs=args.inputs, parameters=args.parameters,
                   int_range=args.int_range, compile_flags_file=args.compile_flags_file,
                   benchmark_flags_file=args.benchmark_flags_file, screen=args.screen,
                   screen_finalists=args.screen_finalists, progress=progress, show_paths=True)
    results = outcome if several else [outcome]
    if args.compile_only:
        result = results[0]
        print_compile_only(list(result.compile_checks), list(result.untunable), result.run_dir)
        return 0
    refused = False
    for result in results:
        print_report(result.report)
        print(f"Run: {result.run_dir}  (mltune show {result.run_dir.name}; all runs: mltune runs)")
        if result.refused:
            print(f"mltune: refused: {result.refused}; no spec written", file=sys.stderr)
            refused = True
    return 1 if refused else 0


def _run_train(args: argparse.Namespace) -> int:
    from mltune.api import train
    from mltune.learn.train_report import all_refused, print_training

    report = train(args.arch, family=args.family, dataset_dir=args.dataset_dir, model_dir=args.model_dir,
                   seed=args.seed, force=args.force, learner=args.learner)
    print_training(report)
    return 1 if all_refused(report) else 0


def _run_evaluate(args: argparse.Namespace) -> int:
    from mltune.api import evaluate

    evaluate(args.arch, dataset_dir=args.dataset_dir, out=args.out, seed=args.seed, batch=args.batch, kind=args.kind,
             leave_arch_out=args.leave_arch_out, learner=args.learner, near_default=args.near_default)
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
    from mltune.records.dataset import compact

    folder = args.dataset_dir / args.arch
    if not folder.is_dir():
        raise UserError(f"{folder} is not a directory")
    try:
        written, left = compact(folder)
    except OSError as err:
        raise UserError(f"cannot compact {folder}: {err}") from None
    for line in left:
        print(f"warning: left as it is, not a record file: {line}", file=sys.stderr)
    print(f"compressed {len(written)} record files under {folder}")
    return 0


def _run_dataset(args: argparse.Namespace) -> int:
    return {"import": _run_import, "compact": _run_compact}[args.action](args)


COMMANDS = {"tune": _run_tune, "train": _run_train, "evaluate": _run_evaluate, "dataset": _run_dataset,
            "export": run_export,
            **run_commands(parse_arguments)}


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that it unwinds like Ctrl-C: children killed, records kept."""


def _raise_terminated(signum, frame) -> None:
    raise Terminated()


def main(argv: Sequence[str] | None = None) -> int:
    in_main_thread = threading.current_thread() is threading.main_thread()  # only it may handle signals
    previous = signal.signal(signal.SIGTERM, _raise_terminated) if in_main_thread else None
    try:
        args = parse_arguments(argv)
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
