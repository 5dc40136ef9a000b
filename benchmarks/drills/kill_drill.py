"""kill -9 of a running `mltune tune` at random points: is any of its child processes alive 2 s later?

    flock /tmp/mltune-cpu.lock python benchmarks/drills/kill_drill.py --points 10 [--seed 0] [--budget 24]

Each point starts `python -m mltune.cli tune` on a small matmul model in a fresh folder, watches its
process tree (iree-compile, iree-lld, the timing worker, the numerics runs) every 20 ms, sends SIGKILL
after a random delay, waits 2 s and counts the processes of that tree still running (a zombie waiting
for its new parent to reap it counts as dead). Prints one line per point and the total.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from source_tree import python_path_first

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from mltune.frontend.one_op_model import ContractionShape, contraction_model  # noqa: E402

MODEL = contraction_model(ContractionShape(96, 128, 256))


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process, None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None
    return fields[0], int(fields[1])


def alive(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def descendants(root: int) -> set[int]:
    """Every live process below `root` (by parent links, read from /proc)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[0] not in ("Z", "X"):
                parents[int(entry.name)] = stat[1]
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def start_tune(folder: Path, budget: int, stderr=subprocess.DEVNULL) -> subprocess.Popen:
    """`mltune tune` (this checkout's) on the drill's model in `folder`."""
    (folder / "mm.mlir").write_text(MODEL)
    env = {**os.environ, "PYTHONPATH": python_path_first(REPO)}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "tune",
            "mm.mlir",
            "--budget",
            str(budget),
            "--run-dir",
            "run",
            "--dataset-dir",
            "datasets",
            "-o",
            "spec.mlir",
        ],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        env=env,
        text=True,
    )


def kill_and_count(proc: subprocess.Popen, until) -> tuple[set[int], list[int]]:
    """Watch `proc`'s tree until `until(children)` says so, SIGKILL it, wait 2 s: (children seen at the kill, alive)."""
    children: set[int] = set()
    while proc.poll() is None:
        children = descendants(proc.pid)
        if until(children):
            break
        time.sleep(0.02)
    proc.kill()
    proc.wait()
    time.sleep(2.0)
    return children, [pid for pid in children if alive(pid)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=int, default=24)
    parser.add_argument("--max-delay", type=float, default=15.0, help="kill between 0.5 s and this many seconds")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    survivors = 0
    for point in range(args.points):
        delay = rng.uniform(0.5, args.max_delay)
        with tempfile.TemporaryDirectory(prefix="kill_drill_") as tmp:
            proc = start_tune(Path(tmp), args.budget)
            deadline = time.monotonic() + delay
            children, left = kill_and_count(proc, lambda _: time.monotonic() >= deadline)
            names = sorted({Path(f"/proc/{p}/comm").read_text().strip() for p in left if alive(p)})
            finished = "" if proc.returncode == -9 else " (the run had finished before the kill)"
            print(
                f"point {point + 1:2d}: kill -9 after {delay:5.2f} s, {len(children)} child processes at the kill, "
                f"{len(left)} alive 2 s later {names if names else ''}{finished}"
            )
            survivors += len(left)
    print(f"total: {survivors} child processes alive 2 s after {args.points} kills")


if __name__ == "__main__":
    main()
