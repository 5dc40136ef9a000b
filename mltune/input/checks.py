"""The checks on command-line values that argparse cannot make: paths and numbers, each failing in one line.

Paths are checked before any work: an input must be a readable file; an output file or
folder must be creatable, which means that its nearest existing ancestor is a folder this
process may write (not a regular file in the way, not on a read-only file system, not
without permission); output folders are created. Numbers are checked against what the
libraries underneath accept (seeds are what numpy's generators take) and what the machine has.
"""

from __future__ import annotations

import argparse
import errno
import os
import re
from pathlib import Path

from mltune.errors import UserError

MAX_SEED = 2**32 - 1  # Optuna's and scikit-learn's seeds are 32-bit


def _nearest_existing(path: Path) -> Path:
    """`path` itself or its closest ancestor that exists (the folder a creation would write into)."""
    path = Path(os.path.abspath(path))
    while not os.path.lexists(path) and path != path.parent:
        path = path.parent
    return path


def _why_not_writable_folder(existing: Path) -> str | None:
    """Why nothing can be created under the existing path `existing` (None: it can)."""
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        try:  # access() fails for a read-only file system and for missing permission alike: say which
            read_only = bool(os.statvfs(existing).f_flag & os.ST_RDONLY)
        except OSError:
            read_only = False
        return f"{existing} is on a read-only file system" if read_only else f"no permission to write in {existing}"
    return None


def check_output_folder(path: Path, option: str) -> Path:
    """A folder that the command writes into, created now (the command would create it first anyway; some
    file systems, like /proc and /sys, refuse only when asked)."""
    why = _why_not_writable_folder(_nearest_existing(path))
    if why:
        raise UserError(f"cannot write {option} {path}: {why}")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UserError(f"cannot write {option} {path}: {err.strerror}") from None
    return path


def check_output_file(path: Path, option: str) -> Path:
    """A file that the command will write (or overwrite)."""
    absolute = Path(os.path.abspath(path))
    if absolute.is_dir():
        raise UserError(f"cannot write {option} {path}: it is a folder")
    if absolute.exists():
        if not os.access(absolute, os.W_OK):
            raise UserError(f"cannot write {option} {path}: {os.strerror(errno.EACCES)}")
        return path
    why = _why_not_writable_folder(_nearest_existing(absolute.parent))
    if why:
        raise UserError(f"cannot write {option} {path}: {why}")
    return path


def check_input_file(path: Path, what: str) -> Path:
    """A file the command reads."""
    if path.is_dir():
        raise UserError(f"{what} {path} is a folder, not a file")
    if not path.exists():
        raise UserError(f"cannot read {what} {path}: not found")
    if not os.access(path, os.R_OK):
        raise UserError(f"cannot read {what} {path}: {os.strerror(errno.EACCES)}")
    return path


def _integer(text: str, low: int, high: int | None, expected: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: a count (budget, batch, jobs, top)."""
    return _integer(text, 1, None, "a positive integer")


def seed(text: str) -> int:
    """An argparse type: a seed numpy, Optuna and scikit-learn all accept."""
    return _integer(text, 0, MAX_SEED, f"an integer from 0 to {MAX_SEED}")


def positive_float(text: str) -> float:
    """An argparse type: a finite positive number (seconds)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def share(text: str) -> float:
    """An argparse type: a fraction of picks, from 0 up to but not including 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction from 0 to below 1, got {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a fraction from 0 to below 1, got {text!r}")
    return value


def speedup(text: str) -> float:
    """An argparse type: a factor >= 1."""
    value = positive_float(text)
    if value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a factor >= 1, got {text!r}")
    return value


def arch(text: str) -> str:
    """An argparse type: an arch names a folder under datasets/ and models/, so one plain path component."""
    if not re.fullmatch(r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]*", text):
        raise argparse.ArgumentTypeError(f"expected an arch name such as znver4 or gfx942, got {text!r}")
    return text


def iree_flag(text: str) -> str:
    """An argparse type: one iree-compile flag."""
    if not text.startswith("--") or len(text) < 3:
        raise argparse.ArgumentTypeError(f"expected an iree-compile flag such as --iree-opt-level=O3, got {text!r}")
    return text


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, not the machine's count)."""
    return len(os.sched_getaffinity(0))


def check_jobs(jobs: int | None) -> int:
    """Parallel compiles: at most one per usable CPU (more only slows every compile down and, far beyond,
    runs out of threads); none given: all of them."""
    cpus = usable_cpus()
    if jobs is None:
        return cpus
    if jobs > cpus:
        raise UserError(f"--jobs {jobs}: this process may use {cpus} CPUs; give at most {cpus}")
    return jobs
