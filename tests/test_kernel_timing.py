"""Kernel-level timing: the repeat count from a calibration ratio, and a real run that times at kernel level."""

from __future__ import annotations

import json
import shutil

import pytest
from iree_helpers import mltune

from mltune.execution.kernel_timing import MAX_REPEAT, repeat_for


def test_no_call_cost_needs_no_repeats():
    """R=10 took 10x R=1: the call's fixed cost is nothing next to the kernels."""
    assert repeat_for(10.0).repeat == 1


def test_the_repeat_count_leaves_a_small_share_to_the_call():
    """Synthetic ratio: q = 5 means o / k = (10 - 5) / (5 - 1) = 1.25, so 41 kernels make o 3 % of a call."""
    timing = repeat_for(5.0)
    assert timing.overhead_per_kernel == pytest.approx(1.25)
    assert timing.repeat == 41


def test_a_call_that_hides_its_kernels_gets_the_most_repeats():
    assert repeat_for(1.2).repeat == MAX_REPEAT
    assert repeat_for(0.9).repeat == MAX_REPEAT  # noise made R=10 look faster: no kernel time visible


@pytest.mark.slow
def test_kernel_timing_end_to_end_on_the_cpu(tiny, tmp_path):
    """`--timing kernel` calibrates, times every candidate with repeated dispatches, and says so; whatever it
    emits is also timed per call."""
    source = tmp_path / "tiny.mlir"
    shutil.copy(tiny.source, source)
    run_dir = tmp_path / "run"
    result = mltune(
        [
            "tune",
            str(source),
            "--budget",
            "3",
            "--timing",
            "kernel",
            "--run-dir",
            str(run_dir),
            "--dataset-dir",
            str(tmp_path / "datasets"),
            "-o",
            str(tmp_path / "spec.mlir"),
        ],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads((run_dir / "summary.json").read_text())
    repeat = summary["kernel_timing"]["repeat"] if summary["kernel_timing"] else 1
    assert 1 <= repeat <= MAX_REPEAT
    assert json.loads((run_dir / "kernel_timing.json").read_text())["repeat"] == repeat
    if repeat > 1:
        assert "kernel-level" in result.stdout
        assert (summary["per_call"] is not None) == (summary["spec"] is not None)
