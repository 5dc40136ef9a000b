"""The one helper that runs IREE tools: captured output, timeouts, typed results."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from mltune.errors import UserError
from mltune.tools import run_tool, tool_path


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
    script = (f"import subprocess, sys; subprocess.Popen([sys.executable, '-c', "
              f"'import time, pathlib; time.sleep(1.5); pathlib.Path(\"{marker}\").touch()']); "
              f"import time; time.sleep(30)")
    start = time.perf_counter()
    result = run_tool([sys.executable, "-c", script], timeout_s=0.5)
    assert time.perf_counter() - start < 5
    assert result.timed_out and result.returncode is None and not result.ok
    assert "timed out" in result.describe_failure()
    time.sleep(2.0)
    assert not marker.exists(), "the grandchild was killed with its group"
