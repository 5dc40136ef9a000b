"""One way to start child processes (IREE's tools, the timing worker): captured output, a timeout, a typed result.

Bad configurations can crash or hang the compiler, so every child runs in its own process
group, is killed as a group when its time is up, and dies with mltune: on Linux the kernel
sends it SIGKILL when its parent goes (even a `kill -9` of mltune leaves no compiler behind).
`MLTUNE_IREE_TOOLS` names a folder whose IREE tools are used first (a source build, or a test's
stand-in compiler).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from mltune.errors import UserError

STDERR_TAIL_CHARS = 2000
HANG_IDLE_S = 10.0  # a compile that uses no CPU this long is hung (IREE 3.13's futex wait), not slow
IDLE_POLL_S = 1.0  # how often a tool run with `idle_s` has its CPU time read
TOOLS_DIR_VARIABLE = "MLTUNE_IREE_TOOLS"
_PR_SET_PDEATHSIG = 1  # linux/prctl.h
_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None

# Tools run in their own process groups (so a timeout can kill a whole group); these are the
# ones still running, so that an interrupted run can stop them instead of leaving them behind.
_running: set[subprocess.Popen] = set()
_running_lock = threading.Lock()
_stopping = False  # set by `kill_running_tools`: a tool that a worker thread starts after it is killed at once


@dataclass(frozen=True)
class ToolResult:
    """What a finished (or killed) tool run left behind."""

    args: tuple[str, ...]
    returncode: int | None  # None when it was killed for running past its timeout
    stdout: str
    stderr: str
    seconds: float
    hung: bool = False  # killed for using no CPU (`run_tool`'s `idle_s`), not for its time

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    @property
    def stderr_tail(self) -> str:
        return self.stderr[-STDERR_TAIL_CHARS:]

    def describe_failure(self) -> str:
        if self.hung:
            return f"hung: used no CPU for its last seconds, killed after {self.seconds:.1f} s"
        if self.timed_out:
            return f"timed out after {self.seconds:.1f} s"
        lines = [line for line in self.stderr.strip().splitlines() if line.strip()]
        first_error = next((line for line in lines if "error" in line.lower()), lines[0] if lines else "")
        return f"exit code {self.returncode}: {first_error.strip()}"[:400]


def tool_path(name: str) -> str:
    """The compiler's own binary for compiler tools: the console-script wrappers on PATH start
    a Python interpreter first, which costs more than a small compile itself."""
    override = os.environ.get(TOOLS_DIR_VARIABLE)
    if override and (Path(override) / name).is_file():
        return str(Path(override) / name)
    try:
        from iree.compiler.tools.binaries import find_tool

        return find_tool(name)
    except (ImportError, ValueError, OSError):
        pass
    beside_python = Path(sys.executable).parent / name
    if beside_python.exists():
        return str(beside_python)
    found = shutil.which(name)
    if found is None:
        raise UserError(f"{name} not found: install iree-base-compiler and iree-base-runtime (pip install -e .)")
    return found


def _die_with_parent(parent_pid: int) -> None:
    """Runs in the child between fork and exec: ask the kernel for SIGKILL when the parent dies, and exit
    if it already has (it may die before the request is made)."""
    if _libc is not None:
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(1)


def spawn(args: Sequence[str], death_signal: bool = True, **popen_kwargs) -> subprocess.Popen:
    """Start a child in its own process group (so it can be killed as a group) that dies with this process.

    The kernel ties the parent-death signal to the thread that started the child: callers wait for it in
    that same thread (as `run_tool` does). A child that outlives that thread (`death_signal=False`) must end
    itself when its parent goes (a kept timing worker watches its parent)."""
    parent = os.getpid()
    preexec = (lambda: _die_with_parent(parent)) if death_signal else None
    return subprocess.Popen(list(args), start_new_session=True, preexec_fn=preexec, **popen_kwargs)


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL a child started by `spawn` and everything in its process group."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _stat_fields(pid: int | str) -> list[str]:
    """`/proc/PID/stat` after the command name (which may hold spaces): state, parent, ...; [] where it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def _cpu_ticks(pid: int | str) -> int:
    """Clock ticks a process used, with those of the children it waited for (0 where it is gone)."""
    fields = _stat_fields(pid)
    return sum(int(f) for f in fields[11:15]) if len(fields) > 14 else 0  # utime, stime, cutime, cstime


def _children(pid: int) -> list[str]:
    """The running children of `pid`: from `/proc/PID/task/*/children`, or where the kernel has no such files, from
    every process's parent."""
    listings = list(Path(f"/proc/{pid}/task").glob("*/children"))
    if not listings:
        return [entry.name for entry in Path("/proc").glob("[0-9]*") if _stat_fields(entry.name)[1:2] == [str(pid)]]
    children: list[str] = []
    for listing in listings:
        try:
            children += listing.read_text().split()
        except OSError:
            continue
    return children


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by process `pid` and its running children (iree-compile runs its linker as one)."""
    return (_cpu_ticks(pid) + sum(_cpu_ticks(child) for child in _children(pid))) / os.sysconf("SC_CLK_TCK")


def run_tool(
    args: Sequence[str], timeout_s: float | None = None, cwd: Path | None = None, idle_s: float | None = None
) -> ToolResult:
    """Run one tool to completion; a run past `timeout_s`, or (with `idle_s`) one that with its children used no CPU
    for `idle_s` seconds, is killed with its whole process group."""
    start = time.perf_counter()
    # errors=replace: a tool echoing the undecodable bytes of a binary input must not crash mltune
    with spawn(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace", cwd=cwd) as proc:
        with _running_lock:
            _running.add(proc)
            if _stopping:
                kill_group(proc)
        hung = False
        try:
            deadline = start + timeout_s if timeout_s is not None else None
            busy_at, cpu = start, 0.0
            while True:
                left = deadline - time.perf_counter() if deadline is not None else None
                step = left if idle_s is None else min(IDLE_POLL_S, left) if left is not None else IDLE_POLL_S
                try:
                    stdout, stderr = proc.communicate(timeout=max(step, 0.0) if step is not None else None)
                    returncode: int | None = proc.returncode
                    break
                except subprocess.TimeoutExpired:
                    now = time.perf_counter()
                    if idle_s is not None and (used := tree_cpu_seconds(proc.pid)) > cpu:
                        busy_at, cpu = now, used
                    hung = idle_s is not None and now - busy_at >= idle_s
                    if hung or (deadline is not None and now >= deadline):
                        kill_group(proc)
                        stdout, stderr = proc.communicate()
                        returncode = None
                        break
        except BaseException:
            kill_group(proc)
            raise
        finally:
            with _running_lock:
                _running.discard(proc)
    return ToolResult(tuple(args), returncode, stdout, stderr, time.perf_counter() - start, hung)


def run_compiler(
    args: Sequence[str], timeout_s: float | None = None, cwd: Path | None = None, idle_s: float | None = HANG_IDLE_S
) -> ToolResult:
    """`run_tool` for `iree-compile`, which in IREE 3.13 now and then waits on a futex for good, using no CPU: a run
    idle for `idle_s` seconds is killed and started once more."""
    result = run_tool(args, timeout_s=timeout_s, cwd=cwd, idle_s=idle_s)
    return run_tool(args, timeout_s=timeout_s, cwd=cwd, idle_s=idle_s) if result.hung else result


def kill_running_tools() -> None:
    """Kill every tool still running, and any that a worker thread starts from now on (after Ctrl-C,
    compiles in worker threads would go on)."""
    global _stopping
    with _running_lock:
        _stopping = True
        running = list(_running)
    for proc in running:
        kill_group(proc)
