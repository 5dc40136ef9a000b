"""Killing mltune: kill -9 leaves no child process behind; SIGTERM stops like Ctrl-C (records kept, exit 143)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from drills.kill_drill import alive, descendants, kill_and_count, start_tune  # noqa: E402


def test_kill_9_while_children_run_leaves_none_alive(tmp_path):
    """Killed as soon as it has a child running (the dispatch dump, a candidate compile or the timing worker)."""
    proc = start_tune(tmp_path, budget=8)
    children, left = kill_and_count(proc, lambda found: bool(found))
    assert proc.returncode == -signal.SIGKILL, "the run was still going when it was killed"
    assert children, "a child process was seen"
    assert not left, f"alive 2 s after kill -9: {left}"


@pytest.mark.slow
def test_sigterm_stops_like_ctrl_c_and_keeps_the_records(tmp_path):
    proc = start_tune(tmp_path, budget=64, stderr=subprocess.PIPE)
    records = tmp_path / "run" / "results.jsonl"
    deadline = time.monotonic() + 180
    while not (records.exists() and records.read_text().count("\n") >= 2):
        assert proc.poll() is None and time.monotonic() < deadline, "no record was written"
        time.sleep(0.05)
    children = descendants(proc.pid)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143, stderr
    assert stderr.splitlines()[-1] == (
        "mltune: terminated; every record measured so far is kept (continue with: mltune tune --resume run)"
    )
    assert json.loads((tmp_path / "run" / "state.json").read_text())["status"] == "interrupted"
    assert "Traceback" not in stderr
    time.sleep(0.5)
    assert not [pid for pid in children if alive(pid)], "SIGTERM left a child running"
    kept = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(kept) >= 2 and all(r["status"] for r in kept)
