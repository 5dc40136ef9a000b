"""Run directories: unique names, the state a run leaves behind, and what may continue it."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from mltune.errors import UserError
from mltune.runs import directory as runs


def test_runs_started_in_the_same_second_get_their_own_directories(tmp_path):
    with ThreadPoolExecutor(8) as pool:
        made = list(pool.map(lambda _: runs.new_run_dir(tmp_path, "model"), range(40)))
    assert len(set(made)) == 40
    assert all(path.is_dir() for path in made)


def test_state_goes_from_running_to_finished(tmp_path):
    source = tmp_path / "model.mlir"
    source.write_text("func.func @main() { return }")
    state = runs.start(tmp_path, ["tune", str(source)], source)
    assert runs.read_state(tmp_path).status == "running"
    runs.mark(tmp_path, state, "finished")
    assert runs.read_state(tmp_path).status == "finished"
    assert runs.read_state(tmp_path).argv == ("tune", str(source))


def test_a_running_state_whose_process_died_reads_as_interrupted(tmp_path):
    source = tmp_path / "model.mlir"
    source.write_text("x")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    state = runs.start(tmp_path, ["tune", str(source)], source)
    runs.write_state(tmp_path, runs.RunState("running", state.argv, state.input_sha256, int(dead.stdout), 0.0, 0.0))
    earlier = runs.read_state(tmp_path)
    assert earlier.status == "interrupted" and "killed" in earlier.detail
    assert runs.start(tmp_path, ["tune", str(source)], source).status == "running"  # it may be continued


def test_a_live_run_or_another_input_cannot_be_continued(tmp_path):
    source, other = tmp_path / "a.mlir", tmp_path / "b.mlir"
    source.write_text("a")
    other.write_text("b")
    state = runs.start(tmp_path, ["tune", str(source)], source)
    with pytest.raises(UserError, match="still running"):
        runs.start(tmp_path, ["tune", str(source)], source)
    runs.mark(tmp_path, state, "interrupted")
    with pytest.raises(UserError, match="another input"):
        runs.start(tmp_path, ["tune", str(other)], other)


def test_a_garbled_state_file_is_one_clear_error(tmp_path):
    (tmp_path / runs.STATE_FILE).write_text("{not json")
    with pytest.raises(UserError, match="not a run state file"):
        runs.read_state(tmp_path)
