"""Past runs, read back from their run directories: what each was asked (input, target, ranker, budget), what it
found and when, and the candidates it measured in order; for `mltune runs` and `mltune show`."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any, Callable

from mltune.errors import UserError
from mltune.frontend.problem import Problem
from mltune.records.dataset import read_records
from mltune.runs.directory import RESULTS_FILE, RunState, read_state

ParseArguments = Callable[[list[str]], argparse.Namespace]  # the command line's parser, for a run's own argv


def emitted_speedup(summary: dict[str, Any]) -> float | None:
    """The whole-model speedup of what a finished run emitted (its `summary.json`: as built, else end to end); None
    where it emitted nothing: withdrawn or refused after the search, or no spec and no compile command."""
    if summary.get("withdrawn") or summary.get("refused"):
        return None
    end_to_end = summary.get("as_built") or (summary.get("end_to_end") or {}).get("recommended")
    emitted = summary.get("spec") or summary.get("compile_command")  # a flags-only result has no spec
    return end_to_end["speedup"] if emitted and end_to_end and end_to_end.get("speedup") else None


@dataclass(frozen=True)
class PastRun:
    """One run directory, as `mltune runs` lists it."""

    folder: Path
    state: RunState
    arguments: argparse.Namespace | None  # None: the run's command line no longer parses
    summary: dict[str, Any] | None  # summary.json, written when the run finished

    @property
    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.state.started))

    def asked(self, name: str, missing: str = "?") -> str:
        value = getattr(self.arguments, name, None)
        return missing if value is None else str(value)

    @property
    def result(self) -> str:
        """The speedup the run reached, or why there is none."""
        if self.state.status != "finished" or self.summary is None:
            return self.state.status
        if self.summary.get("withdrawn") or self.summary.get("refused"):
            return "nothing kept (withdrawn or refused after the search)"
        speedup = emitted_speedup(self.summary)
        if speedup is not None:
            return f"{speedup:.2f}x model"
        winners = [d["winner"]["speedup"] for d in self.summary.get("dispatches", []) if d.get("winner")]
        if winners:
            return ", ".join(f"{w:.2f}x" for w in winners)
        return "no gain kept"


def read_run(folder: Path, parse: ParseArguments) -> PastRun | None:
    """The run in `folder`, None when the folder holds no run; a damaged state file is a UserError."""
    state = read_state(folder)
    if state is None:
        return None
    try:
        arguments = parse(list(state.argv))
    except (UserError, SystemExit):
        arguments = None
    summary_path = folder / "summary.json"
    try:
        summary = json.loads(summary_path.read_text()) if summary_path.is_file() else None
    except (OSError, ValueError):
        summary = None
    return PastRun(folder, state, arguments, summary if isinstance(summary, dict) else None)


def list_runs(root: Path, parse: ParseArguments) -> tuple[list[PastRun], list[Path]]:
    """Every run under `root`, oldest first, and the folders whose state file is damaged."""
    folders = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    runs, damaged = [], []
    for folder in folders:
        try:
            run = read_run(folder, parse)
        except UserError:
            damaged.append(folder)
            continue
        if run is not None:
            runs.append(run)
    return sorted(runs, key=lambda run: run.state.started), damaged


def find_run(name: str, root: Path) -> Path:
    """A run named by its folder, its folder's name under `root`, or a unique prefix of that name."""
    given = Path(name)
    if (given / "state.json").is_file():
        return given
    if (root / name / "state.json").is_file():
        return root / name
    matches = (
        sorted(p for p in root.iterdir() if p.name.startswith(name) and (p / "state.json").is_file())
        if root.is_dir() and name and "/" not in name
        else []
    )
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise UserError(f"{name!r} names {len(matches)} runs under {root}: {', '.join(m.name for m in matches[:5])}")
    raise UserError(f"no run {name!r} (neither a run folder nor a run under {root}); `mltune runs` lists them")


@dataclass(frozen=True)
class MeasuredCandidate:
    """One record of a run, in the order it was measured."""

    problem: str
    ranker: str
    position: int  # where the ranker put it (its predicted rank among what was tried)
    status: str
    speedup: float | None  # IREE's default time / the candidate's, medians of the same rounds; None: not measured


def _speedup(record: dict[str, Any]) -> float | None:
    if record.get("status") != "ok" or not record.get("time_us") or not record.get("baseline_us"):
        return None
    return median(record["baseline_us"]) / median(record["time_us"])


def measured_candidates(folder: Path) -> list[MeasuredCandidate]:
    """The run's records (its `results.jsonl`), in measured order."""
    path = folder / RESULTS_FILE
    if not path.is_file():
        return []
    return [
        MeasuredCandidate(
            Problem.from_record(r["problem"]).key,
            str(r.get("ranker", "")),
            int(r.get("position", 0)),
            str(r["status"]),
            _speedup(r),
        )
        for r in read_records(path)
    ]
