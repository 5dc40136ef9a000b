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
from pathlib import Path
from typing import Sequence

from mltune import __version__
from mltune.cli.export import add_export_command, run_export
from mltune.cli.runs import add_run_commands, run_commands
from mltune.errors import RunFailure, UserError
from mltune.input.checks import (
    arch,
    check_input_file,
    check_output_folder,
    positive_int,
    seed,
    share,
)
from mltune.learn.learner_names import FOREST, LEARNER_NAMES
from mltune.rankers import NEAR_DEFAULT_SHARE
from mltune.search.defaults import BATCH_SIZE
from mltune.system.paths import SHIPPED_MODELS, data_home, user_datasets, user_models
from mltune.system.tools import kill_running_tools
from mltune.tuning.option_forms import add_tune_options, from_arguments


class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """`--help` shows each option's default, unless its help already says it or there is none to show."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (
            "(default" in text
            or "default:" in text
            or any(action.default is nothing for nothing in (None, False, argparse.SUPPRESS))
            or action.default == []
        ):
            return text
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Help)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # one line and exit 2, as for every other bad input
        raise UserError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mltune",
        description="ML-guided autotuner for IREE dispatches.",
        epilog=f"Your records, models and runs live in {data_home()} ($MLTUNE_HOME overrides it); the "
        f"shipped models in {SHIPPED_MODELS}.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    tune = commands.add_parser("tune", help="tune the dispatches of a model or of one dispatch benchmark")
    tune.add_argument(
        "input", type=Path, nargs="?", help="source .mlir of a model, or a dumped dispatch benchmark .mlir"
    )
    tune.add_argument(
        "--resume",
        type=Path,
        default=None,
        metavar="RUN_DIR",
        help="continue an interrupted run with the arguments it was started with: candidates it "
        "measured are not measured again (the same --run-dir again does the same)",
    )
    add_tune_options(tune)
    _add_learning_commands(commands)
    add_run_commands(commands)
    add_export_command(commands)
    return parser


def _add_arch_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    parser.add_argument(
        "--arch", type=arch, required=required, help="the dataset's arch (a folder under --dataset-dir), e.g. znver4"
    )
    parser.add_argument(
        "--dataset-dir", type=Path, default=None, help=f"root of the per-arch datasets (default: {user_datasets()})"
    )
    parser.add_argument("--seed", type=seed, default=0, help="seed for the forest, fold ties and shuffling")


def _add_learning_commands(commands) -> None:
    train = commands.add_parser(
        "train", help="train the random-forest ranker of one arch, or of a family of archs, from the datasets"
    )
    _add_arch_arguments(train, required=False)
    train.add_argument(
        "--family",
        choices=["cpu", "gpu"],
        default=None,
        help="train the pooled model of every arch of this family (MODEL_DIR/family-FAMILY/) instead",
    )
    train.add_argument(
        "--model-dir",
        type=Path,
        default=None,
        help=f"where MODEL_DIR/ARCH/KIND/ is written (default: {user_models()}; the shipped models "
        f"are trained into {SHIPPED_MODELS} from the repository's datasets/)",
    )
    train.add_argument(
        "--force",
        action="store_true",
        help="write a model even when cross-validation ranks it worse than the heuristic or the family model",
    )
    train.add_argument(
        "--learner",
        choices=LEARNER_NAMES,
        default=None,
        help="fit every model with this learner (default: each learner is cross-validated and, per op "
        "kind, the one that ranks held-out problems sooner is kept)",
    )
    evaluate = commands.add_parser("evaluate", help="replay recorded measurements through every ranker")
    _add_arch_arguments(evaluate)
    evaluate.add_argument(
        "--leave-arch-out",
        action="store_true",
        help="also score forests trained on every other arch of the family, never on this one",
    )
    evaluate.add_argument(
        "--learner",
        choices=LEARNER_NAMES,
        default=FOREST,
        help=f"what fits the learned rankers' models (default {FOREST}; `mltune train` keeps, per op "
        "kind, whichever ranks better)",
    )
    evaluate.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"folder for evaluation.json and the plot (default: {data_home() / 'evaluation'}/ARCH)",
    )
    evaluate.add_argument(
        "--batch",
        type=positive_int,
        default=BATCH_SIZE,
        help=f"candidates asked per step, as the tuning loop does (default {BATCH_SIZE})",
    )
    evaluate.add_argument(
        "--kind",
        default=None,
        metavar="OP_KIND",
        help="score only the problems of one op kind, e.g. contraction or matvec, or of one model kind, "
        "e.g. simt_gemm (default: all)",
    )
    evaluate.add_argument(
        "--near-default",
        type=share,
        default=NEAR_DEFAULT_SHARE,
        metavar="SHARE",
        help="also score every ranker but shuffle with this share of its picks near IREE's default "
        "config, as tune ranks a CPU dispatch (NAME+near-default; the default is read from each "
        f"problem's one-op model built for the records' CPU; default {NEAR_DEFAULT_SHARE}; "
        "0: not scored)",
    )
    dataset = commands.add_parser("dataset", help="manage dataset records")
    actions = dataset.add_subparsers(dest="action", required=True, parser_class=_Parser)
    importer = actions.add_parser("import", help="import another tuner's measurements as records")
    importer.add_argument("file", type=Path, help="the amdsharktuner candidate-analysis CSV")
    importer.add_argument("--from", dest="source", required=True, choices=["amdsharktuner"], help="the file's tuner")
    importer.add_argument("--arch", type=arch, required=True, help="the arch the CSV was measured on, e.g. gfx942")
    importer.add_argument(
        "--problem",
        default=None,
        metavar="MxNxK[:IN[:ACC]]",
        help="problem sizes (when the CSV has no knob_M/N/K) and element types",
    )
    importer.add_argument("--pipeline", default="unknown", help="the tuned pipeline, recorded as amdsharktuner/NAME")
    importer.add_argument(
        "--dataset-dir", type=Path, default=None, help=f"root of the per-arch datasets (default: {user_datasets()})"
    )
    compacter = actions.add_parser("compact", help="compress an arch's finished record files (*.jsonl -> *.jsonl.xz)")
    compacter.add_argument("--arch", type=arch, required=True, help="the arch whose records to compress")
    compacter.add_argument(
        "--dataset-dir", type=Path, default=None, help=f"root of the per-arch datasets (default: {user_datasets()})"
    )


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
        raise UserError(
            f"--resume: the run in {run_dir} recorded no tuning command with an input file "
            f"({' '.join(state.argv) or 'nothing'}); start it again with `mltune tune INPUT`"
        )
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
    options = from_arguments(args)
    shapes, run_dir = options.pop("shape"), options.pop("run_dir")
    several = len(shapes) > 1
    if several and args.compile_only:
        raise UserError("--compile-only takes one --shape")
    outcome = (
        tune_shapes(args.input, shapes, run_dir=run_dir, **options, show_paths=True)
        if several
        else tune(
            args.input,
            shape=shapes[0] if shapes else None,
            run_dir=run_dir,
            command_line=args.argv,
            **options,
            show_paths=True,
        )
    )
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

    report = train(
        args.arch,
        family=args.family,
        dataset_dir=args.dataset_dir,
        model_dir=args.model_dir,
        seed=args.seed,
        force=args.force,
        learner=args.learner,
    )
    print_training(report)
    return 1 if all_refused(report) else 0


def _run_evaluate(args: argparse.Namespace) -> int:
    from mltune.api import evaluate

    evaluate(
        args.arch,
        dataset_dir=args.dataset_dir,
        out=args.out,
        seed=args.seed,
        batch=args.batch,
        kind=args.kind,
        leave_arch_out=args.leave_arch_out,
        learner=args.learner,
        near_default=args.near_default,
    )
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


COMMANDS = {
    "tune": _run_tune,
    "train": _run_train,
    "evaluate": _run_evaluate,
    "dataset": _run_dataset,
    "export": run_export,
    **run_commands(parse_arguments),
}


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
