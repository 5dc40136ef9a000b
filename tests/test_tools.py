"""The one helper that starts child processes: captured output, timeouts, typed results, no orphans."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from iree_helpers import CPU_FLAGS

from mltune.errors import UserError
from mltune.execution.build import Builder
from mltune.input.tuning_input import Invocation, TuningInput
from mltune.system import tools
from mltune.system.tools import run_tool, tool_path


def test_tool_path_finds_the_compiler():
    for name in ("iree-compile", "iree-opt"):
        path = Path(tool_path(name))
        assert path.is_file() and os.access(path, os.X_OK)


def test_missing_tool_is_a_user_error():
    with pytest.raises(UserError, match="no-such-iree-tool"):
        tool_path("no-such-iree-tool")


def test_failure_is_described_by_its_error_line(tmp_path):
    result = run_tool([tool_path("iree-opt"), str(tmp_path / "missing.mlir")], timeout_s=60)
    assert not result.ok and not result.timed_out
    assert result.returncode != 0
    assert result.describe_failure().startswith(f"exit code {result.returncode}:")
    assert "missing.mlir" in result.describe_failure()


def test_success_captures_stdout(tmp_path):
    source = tmp_path / "m.mlir"
    source.write_text("func.func @f() { return }\n")
    result = run_tool([tool_path("iree-opt"), str(source)], timeout_s=60)
    assert result.ok and "func.func @f()" in result.stdout


def test_timeout_kills_the_whole_process_group(tmp_path):
    marker = tmp_path / "grandchild_survived"
    # a child that starts a grandchild; both must die when the time is up
    script = (
        f"import subprocess, sys; subprocess.Popen([sys.executable, '-c', "
        f"'import time, pathlib; time.sleep(1.5); pathlib.Path(\"{marker}\").touch()']); "
        f"import time; time.sleep(30)"
    )
    start = time.perf_counter()
    result = run_tool([sys.executable, "-c", script], timeout_s=0.5)
    assert time.perf_counter() - start < 5
    assert result.timed_out and result.returncode is None and not result.ok
    assert "timed out" in result.describe_failure()
    time.sleep(2.0)
    assert not marker.exists(), "the grandchild was killed with its group"


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its new parent to reap it counts as dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


@pytest.mark.slow  # 2 s: the process-group kill is tested in the default run
def test_a_spawned_child_dies_with_its_parent(tmp_path):
    """kill -9 of the parent: the kernel kills the child too (parent-death signal), within 2 s."""
    pid_file = tmp_path / "child.pid"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import pathlib, sys, time; from mltune.system.tools import spawn; "
                f"child = spawn([sys.executable, '-c', 'import time; time.sleep(60)']); "
                f"pathlib.Path({str(pid_file)!r}).write_text(str(child.pid)); time.sleep(60)"
            ),
        ]
    )
    try:
        deadline = time.monotonic() + 30
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the parent never started its child"
            time.sleep(0.05)
        child = int(pid_file.read_text())
        assert _alive(child)
        parent.kill()
        parent.wait()
        time.sleep(2.0)
        assert not _alive(child), "the child outlived its killed parent"
    finally:
        parent.kill()


def test_a_hung_compiler_is_killed_at_the_compile_timeout(tmp_path, monkeypatch, tiny):
    """A stand-in `iree-compile` that hangs (found first through MLTUNE_IREE_TOOLS): the build is a `timeout`
    at the builder's time limit and the hung process, with the child it started, is gone."""
    tools = tmp_path / "tools"
    tools.mkdir()
    pids = tmp_path / "pids"
    fake = tools / "iree-compile"
    fake.write_text(f"#!/bin/sh\nsleep 300 &\necho $$ $! > {pids}\nwait\n")
    fake.chmod(0o755)
    monkeypatch.setenv("MLTUNE_IREE_TOOLS", str(tools))
    assert tool_path("iree-compile") == str(fake)
    tuning_input = TuningInput(tiny.source, Invocation("main", (), False), (), ())
    start = time.perf_counter()
    build = Builder(tuning_input, tmp_path / "work", jobs=1, timeout_s=0.5).compile(0, None, "hung")
    elapsed = time.perf_counter() - start
    assert build.status == "timeout" and "timed out" in build.detail
    assert elapsed < 5, elapsed
    time.sleep(0.5)
    assert not any(_alive(int(pid)) for pid in pids.read_text().split()), "the hung compiler survived its timeout"


def test_a_compile_that_hangs_once_is_tried_again(tmp_path, monkeypatch, tiny):
    """A stand-in `iree-compile` that hangs on its first call and runs the real one after: the build is ok."""
    real = tool_path("iree-compile")
    tools = tmp_path / "tools"
    tools.mkdir()
    hung_once = tmp_path / "hung_once"
    fake = tools / "iree-compile"
    fake.write_text(
        f'#!/bin/sh\nif [ ! -e {hung_once} ]; then touch {hung_once}; exec sleep 300; fi\nexec {real} "$@"\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("MLTUNE_IREE_TOOLS", str(tools))
    tuning_input = TuningInput(tiny.source, Invocation("main", (), False), (), tuple(CPU_FLAGS))
    start = time.perf_counter()
    build = Builder(tuning_input, tmp_path / "work", jobs=1, timeout_s=300.0, idle_s=1.0).compile(0, None, "once")
    assert hung_once.exists() and build.status == "ok", build.detail
    assert time.perf_counter() - start < 30, "the hang was not told from a slow compile by its CPU time"


def test_a_tool_busy_past_the_idle_limit_is_not_taken_for_hung(monkeypatch):
    """A stand-in whose child computes for 1.5 s (the stand-in waits, as iree-compile waits for its linker) under a
    0.5-s idle limit finishes; one that sleeps does not, and says it hung."""
    monkeypatch.setattr(tools, "IDLE_POLL_S", 0.1)
    busy_child = f"{sys.executable} -c 'import time\nend = time.time() + 1.5\nwhile time.time() < end: pass'; true"
    busy = run_tool(["sh", "-c", busy_child], timeout_s=60, idle_s=0.5)
    assert busy.ok and not busy.hung, busy.describe_failure()
    asleep = run_tool(["sleep", "30"], timeout_s=60, idle_s=0.5)
    assert asleep.hung and asleep.timed_out and asleep.seconds < 10 and "hung" in asleep.describe_failure()
