"""A run directory: created under a unique name, it records the command that started it and its state.

`state.json` says whether the run is `running`, `interrupted` (Ctrl-C, SIGTERM, or found dead: a
`running` state whose process is gone), `finished` or `failed`, and holds the command line, so that
`mltune tune --resume RUN_DIR` can continue the run where it stopped: the records already in its
`results.jsonl` are not measured again.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from mltune.errors import UserError

STATE_FILE = "state.json"
RESULTS_FILE = "results.jsonl"
CALL_FILE = "call.json"


@dataclass(frozen=True)
class RunState:
    status: str  # running | interrupted | finished | failed
    argv: tuple[str, ...]
    input_sha256: str
    pid: int
    started: float
    updated: float
    detail: str = ""
    cwd: str = ""  # where it was started: the relative paths of its command line and flags files resolve there

    @property
    def alive(self) -> bool:
        """The process that wrote `running` still exists (on this machine)."""
        if self.status != "running":
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


def new_run_dir(root: Path, stem: str) -> Path:
    """`root/<time>-<stem>`, created here and now: a second run started in the same second gets `-2`, `-3`, ..."""
    base = f"{time.strftime('%Y%m%d-%H%M%S')}-{stem}"
    root.mkdir(parents=True, exist_ok=True)
    for suffix in range(1, 10_000):
        path = root / (base if suffix == 1 else f"{base}-{suffix}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path
    raise UserError(f"cannot create a run directory under {root}: too many runs named {base}")


def input_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_state(run_dir: Path) -> RunState | None:
    """The run's state, None for a directory that holds no run; a state marked running whose process is gone
    is read as interrupted."""
    path = run_dir / STATE_FILE
    if not path.is_file():
        return None
    try:
        data: dict[str, Any] = json.loads(path.read_text())
        state = RunState(
            str(data["status"]),
            tuple(map(str, data["argv"])),
            str(data["input_sha256"]),
            int(data["pid"]),
            float(data["started"]),
            float(data["updated"]),
            str(data.get("detail", "")),
            str(data.get("cwd", "")),
        )
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise UserError(f"{path} is not a run state file: {err}") from None
    if state.status == "running" and not state.alive:
        return replace(state, status="interrupted", detail="its process is gone (killed)")
    return state


def write_state(run_dir: Path, state: RunState) -> None:
    """Replace the state file atomically, so that a kill never leaves half of one."""
    tmp = run_dir / f".{STATE_FILE}.{os.getpid()}"
    tmp.write_text(json.dumps(asdict(state), indent=2))
    os.replace(tmp, run_dir / STATE_FILE)


def start(run_dir: Path, argv: Sequence[str], input_path: Path) -> RunState:
    """Mark `run_dir` as running this command; a run directory that holds a run must hold an interrupted run of
    the same input, which this one continues."""
    digest = input_digest(input_path)
    earlier = read_state(run_dir)
    if earlier is not None:
        if earlier.status == "running":
            raise UserError(f"{run_dir} belongs to a run that is still running (process {earlier.pid})")
        if earlier.input_sha256 != digest:
            raise UserError(
                f"{run_dir} holds a run of another input (its input file changed since); use a new --run-dir"
            )
    now = time.time()
    state = RunState(
        "running", tuple(argv), digest, os.getpid(), earlier.started if earlier else now, now, cwd=os.getcwd()
    )
    write_state(run_dir, state)
    return state


def check_same_call(run_dir: Path, call: dict[str, Any]) -> None:
    """A continued run calls and builds the model as the run it continues did (`call.json`): a flags file or an
    `--input` that changed since would mix measurements of two different calls."""
    path = run_dir / CALL_FILE
    if path.is_file():
        try:
            earlier = json.loads(path.read_text())
        except ValueError:
            earlier = None
        if earlier is not None and earlier != call:
            changed = ", ".join(sorted(k for k in call if call.get(k) != earlier.get(k)))
            raise UserError(
                f"{run_dir} holds a run that called or built the model otherwise ({changed} changed since, "
                "e.g. in a flags file); use a new --run-dir"
            )
    path.write_text(json.dumps(call, indent=2))


def has_records(run_dir: Path) -> bool:
    """Whether the run recorded any candidate (a run without one holds nothing worth keeping)."""
    path = run_dir / RESULTS_FILE
    return path.is_file() and path.stat().st_size > 0


def mark(run_dir: Path, state: RunState, status: str, detail: str = "") -> RunState:
    new = replace(state, status=status, updated=time.time(), detail=detail)
    write_state(run_dir, new)
    return new
