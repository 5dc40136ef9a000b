"""`mltune runs` (every past run in one table) and `mltune show RUN` (one run's candidates, and its picture)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from mltune.errors import UserError
from mltune.input.checks import check_output_file
from mltune.system.paths import user_runs

if TYPE_CHECKING:
    from mltune.runs.past import ParseArguments, PastRun


def add_run_commands(commands) -> None:
    runs = commands.add_parser("runs", help="list past runs: input, target, ranker, budget, result, when")
    runs.add_argument("--run-root", type=Path, default=None, help=f"where the runs are (default: {user_runs()})")
    show = commands.add_parser(
        "show",
        help="one run's candidates as a table, and a PNG: best so far, every "
        "candidate, the ranker's order against the measured one",
    )
    show.add_argument("run", help="a run folder, or its name (or a unique start of it) under --run-root")
    show.add_argument("--run-root", type=Path, default=None, help=f"where the runs are (default: {user_runs()})")
    show.add_argument("--png", type=Path, default=None, help="where to write the picture (default: RUN/run.png)")


def _print_runs(runs: list[PastRun], root: Path) -> None:
    if not runs:
        print(f"no runs under {root}")
        return
    print(f"{'when':<16} {'run':<40} {'target':<10} {'ranker':<20} {'budget':>6}  {'result':<22} input")
    for run in runs:
        print(
            f"{run.when:<16} {run.folder.name[:40]:<40} {run.asked('target')[:10]:<10} "
            f"{run.asked('ranker')[:20]:<20} {run.asked('budget'):>6}  {run.result[:22]:<22} {run.asked('input')}"
        )
    print(f"({len(runs)} runs under {root}; details: mltune show RUN)")


def _run_runs(args: argparse.Namespace, parse: ParseArguments) -> int:
    from mltune.runs.past import list_runs  # here, as every command's own work: `mltune --help` loads none

    root = args.run_root or user_runs()
    runs, damaged = list_runs(root, parse)
    if damaged:
        print(
            f"warning: skipped {len(damaged)} run folder{'s' if len(damaged) > 1 else ''} under {root} whose "
            f"state.json is damaged: {', '.join(folder.name for folder in damaged[:5])}",
            file=sys.stderr,
        )
    _print_runs(runs, root)
    return 0


def _run_show(args: argparse.Namespace, parse: ParseArguments) -> int:
    from mltune.runs.past import find_run, measured_candidates, read_run
    from mltune.runs.plot import plot_run, rank_agreement

    root = args.run_root or user_runs()
    folder = find_run(args.run, root)
    run = read_run(folder, parse)
    if run is None:
        raise UserError(f"no run in {folder}")
    candidates = measured_candidates(folder)
    print(
        f"run {folder}\n  {run.when}, {run.state.status}; input {run.asked('input')}, target {run.asked('target')}, "
        f"ranker {run.asked('ranker')}, budget {run.asked('budget')}; result {run.result}"
    )
    problems = sorted({c.problem for c in candidates}, key=[c.problem for c in candidates].index)
    print(f"  {'problem':<44} {'tried':>5} {'measured':>8} {'best':>7} {'found at':>8} {'rank rho':>8}")
    for problem in problems:
        mine = [c for c in candidates if c.problem == problem]
        speedups = [c.speedup for c in mine if c.speedup is not None]
        best = max(speedups, default=float("nan"))
        found_at = speedups.index(best) + 1 if speedups else 0
        print(
            f"  {problem[:44]:<44} {len(mine):>5} {len(speedups):>8} {best:6.2f}x {found_at:>8} "
            f"{rank_agreement(mine)[2]:8.2f}"
        )
    if not candidates:
        print("  (no candidate was measured)")
        return 0
    png = check_output_file(args.png, "--png") if args.png else folder / "run.png"
    plot_run(
        candidates,
        f"{folder.name}: {run.asked('ranker')} ranker, budget {run.asked('budget')}, target {run.asked('target')}; "
        f"result {run.result}",
        png,
    )
    print(
        f"  'best' is the screening speedup over IREE's default; 'found at' the benchmark that found it; 'rank rho' "
        f"the Spearman correlation of the ranker's order with the measured one\nPicture: {png}"
    )
    return 0


def run_commands(parse: ParseArguments) -> dict[str, Callable[[argparse.Namespace], int]]:
    """The handlers of `runs` and `show`; `parse` reads a past run's own command line."""
    return {"runs": lambda args: _run_runs(args, parse), "show": lambda args: _run_show(args, parse)}
