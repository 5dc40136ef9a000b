"""Models as users export them, tuned through the command line unchanged: a torch-dialect BERT from iree-turbine
with its own flags files, and a run continued from another directory with the same call."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from iree_helpers import matmul_source, mltune

EXPORTED = Path(__file__).resolve().parent.parent / "examples" / "models" / "exported"


@pytest.mark.slow
def test_tune_an_iree_turbine_export_with_its_flags_files(tmp_path):
    """The exported BERT and its SHARK-tuner-style flags files, from their own folder: profile, search, the
    numerics reference on the user's token ids, and a verdict."""
    for name in ("bert.mlir", "bert.flags", "bert.input0.npy"):
        shutil.copy(EXPORTED / name, tmp_path / name)
    (tmp_path / "compile.flags").write_text("# every build\n--iree-opt-level=O2\n")
    result = mltune(
        [
            "tune",
            "bert.mlir",
            "--benchmark-flags-file",
            "bert.flags",
            "--compile-flags-file",
            "compile.flags",
            "--budget",
            "2",
            "--top",
            "1",
            "--run-dir",
            "run",
            "--dataset-dir",
            "datasets",
            "-o",
            "spec.mlir",
            "-q",
        ],
        cwd=tmp_path,
        timeout=600,
    )
    assert result.returncode in (0, 1), result.stderr[-2000:]  # 1: a result refused, which is a verdict too
    run_dir = tmp_path / "run"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["level"] == "model" and len(summary["profile"]) > 1
    assert summary["inputs"] == {
        "arguments": ["tensor<1x32xi64>: --input=@bert.input0.npy"],
        "generated": False,
        "parameters": [],
    }
    assert np.array_equal(np.load(run_dir / "inputs" / "input0.npy"), np.load(tmp_path / "bert.input0.npy"))
    assert (run_dir / "outputs_default.npz").is_file()  # IREE's default build ran on the user's ids
    (tuned,) = summary["dispatches"]
    assert tuned["benchmarked"] >= 1 and tuned["stop_reason"]
    assert any(phrase in result.stdout for phrase in ("kept:", "not kept", "No tuning spec written", "refused"))
    assert json.loads((run_dir / "call.json").read_text())["compile_flags"] == ["--iree-opt-level=O2"]
    assert "tensor<1x32xi64>: --input=@bert.input0.npy" in result.stdout


@pytest.mark.slow  # two whole tuning runs through the command line
def test_a_run_continues_from_another_directory_with_the_same_call(tmp_path):
    """Killed, then resumed from elsewhere: relative paths resolve where the run started; a flags file changed
    since is refused rather than mixed into the run."""
    start, elsewhere = tmp_path / "start", tmp_path / "elsewhere"
    start.mkdir()
    elsewhere.mkdir()
    (start / "mm.mlir").write_text(matmul_source(32, 64, 48))
    np.save(start / "lhs.npy", np.full((32, 64), 0.5, np.float32))  # synthetic values
    (start / "call.flags").write_text("--input=@lhs.npy\n--input=64x48xf32=0.25\n")
    run_dir = start / "run"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "tune",
            "mm.mlir",
            "--benchmark-flags-file",
            "call.flags",
            "--budget",
            "12",
            "--ranker",
            "shuffle",
            "--batch",
            "4",
            "--run-dir",
            "run",
            "--dataset-dir",
            "datasets",
            "-o",
            "s.mlir",
        ],
        cwd=start,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:
            results = run_dir / "results.jsonl"
            if results.exists() and results.read_bytes().count(b"\n") >= 2:
                break
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert json.loads((run_dir / "state.json").read_text())["status"] == "running"  # as a kill leaves it

    (start / "call.flags").write_text("--input=@lhs.npy\n--input=64x48xf32=0.5\n")
    changed = mltune(["tune", "--resume", str(run_dir)], cwd=elsewhere)
    assert changed.returncode == 2 and "inputs changed since" in changed.stderr, changed.stderr[-2000:]

    (start / "call.flags").write_text("--input=@lhs.npy\n--input=64x48xf32=0.25\n")
    resumed = mltune(["tune", "--resume", str(run_dir)], cwd=elsewhere)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert json.loads((run_dir / "state.json").read_text())["status"] == "finished"
    assert (start / "s.mlir").exists() or "No tuning spec written" in resumed.stdout  # -o resolved where it started
    assert np.all(np.load(run_dir / "inputs" / "input1.npy") == 0.25)
