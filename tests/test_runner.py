"""The Runner: real IREE runtime timings in a child process, failures turned into measurements."""

from __future__ import annotations

from math import ceil
from pathlib import Path

import numpy as np
import pytest

from mltune.execution import timing_process
from mltune.execution.measurement import Measurement, TimingPlan
from mltune.execution.runner import Runner
from mltune.execution.timing_process import KeptWorker, Pace
from mltune.input.files import InputFile
from mltune.input.tuning_input import Invocation

PLAN = TimingPlan(rounds=3, round_seconds=0.05)


@pytest.fixture
def runner(tiny, tmp_path) -> Runner:
    # synthetic input data for the tiny model's two arguments (32x64 and 64x48 f32)
    rng = np.random.default_rng(0)
    files = []
    for index, shape in enumerate([(32, 64), (64, 48)]):
        path = tmp_path / f"input{index}.npy"
        np.save(path, rng.uniform(-1, 1, size=shape).astype(np.float32))
        files.append(InputFile(path, shape, "f32"))
    return Runner(Invocation("main", tuple(files), False), "local-task", tmp_path)


def test_model_against_itself_is_a_tie(tiny, runner):
    (measurement,) = runner.measure(tiny.vmfb, [(7, tiny.vmfb)], PLAN)
    assert measurement.index == 7
    assert measurement.status == "ok", measurement.detail
    assert 1 <= len(measurement.time_us) <= PLAN.rounds
    assert len(measurement.time_us) == len(measurement.baseline_us)
    assert all(t > 0 for t in measurement.time_us + measurement.baseline_us)
    assert 0.7 <= measurement.ratio <= 1.4, measurement
    assert runner.seconds_in_children > 0
    assert not list(runner.work_dir.glob("timing_*.json")), "request files are cleaned up"


def test_rounds_shared_out_over_processes_are_pooled(tiny, runner, tmp_path):
    """Two rounds over three processes: each process measures one round (its share, rounded up), and the pooled
    measurement holds all three, in the order given; a candidate that fails in any process fails."""
    plan = TimingPlan(rounds=2, round_seconds=0.05, processes=3)
    results = runner.measure(tiny.vmfb, [(4, tiny.vmfb), (5, tmp_path / "missing.vmfb")], plan)
    assert [m.index for m in results] == [4, 5]
    assert results[0].status == "ok" and len(results[0].time_us) == len(results[0].baseline_us) == 3
    assert len(results[0].busy_cores) == 3
    assert results[1].status == "run_error"


def test_missing_vmfb_is_a_run_error_and_the_rest_still_run(tiny, runner, tmp_path):
    missing = tmp_path / "does_not_exist.vmfb"
    results = runner.measure(tiny.vmfb, [(0, tiny.vmfb), (1, missing), (2, tiny.vmfb)], PLAN)
    assert [m.index for m in results] == [0, 1, 2]
    assert [m.status for m in results] == ["ok", "run_error", "ok"]
    assert results[1].detail, "the failure says why"
    assert results[1].ratio == float("inf") and results[1].time_us == ()


def test_missing_baseline_fails_every_candidate(tiny, runner, tmp_path):
    results = runner.measure(tmp_path / "no_baseline.vmfb", [(0, tiny.vmfb), (1, tiny.vmfb)], PLAN)
    assert [m.status for m in results] == ["run_error", "run_error"]


def test_nothing_to_measure(tiny, runner):
    assert runner.measure(tiny.vmfb, [], PLAN) == []


def test_ratio_is_the_median_of_round_ratios():
    # synthetic timings
    m = Measurement(0, "ok", time_us=(10.0, 20.0, 9.0), baseline_us=(10.0, 10.0, 10.0))
    assert m.ratio == pytest.approx(1.0)
    assert Measurement(0, "timeout").ratio == float("inf")


def test_the_deadline_follows_the_pace_the_worker_reports():
    """Synthetic numbers: a ViT-B/16 call of 3.3 s with 2 pairs a round needs 40 s for three rounds, beyond the
    33.6 s a screening plan allows by its round length; once the worker says so, the deadline covers the rounds."""
    pace = Pace(TimingPlan())
    assert pace.seconds == pytest.approx(timing_process.STARTUP_SECONDS + 10 * 3 * 0.12)
    pace.heard({"call_s": 3.3})
    assert pace.seconds > 3 * 2 * 5 * 3.3
    pace.heard({"call_s": 3.3, "calls": 2})
    assert pace.seconds == pytest.approx(timing_process.STARTUP_SECONDS + timing_process.PACE_FACTOR * 5 * 2 * 2 * 3.3)


@pytest.mark.slow
def test_a_model_slower_than_the_plans_allowance_is_measured_at_its_pace(tiny, runner, monkeypatch):
    """Rounds of enough pairs of the tiny model to take three times the startup allowance, with a plan whose own
    allowance is that startup alone: measured, not a timeout."""
    (quick,) = runner.measure(tiny.vmfb, [(0, tiny.vmfb)], PLAN)
    call_s = min(quick.baseline_us) / 1e6
    monkeypatch.setattr(timing_process, "STARTUP_SECONDS", 5.0)
    pairs = ceil(3 * 5.0 / (3 * 2 * call_s))
    # the module against itself: a first round read far slower (once in a CI run, 7x) must not stop it early here
    plan = TimingPlan(
        rounds=3, round_seconds=1e-4, min_calls=pairs, max_calls=pairs, timeout_factor=1.0, slow_factor=1e9
    )
    assert Pace(plan).seconds < 6.0
    (measurement,) = runner.measure(tiny.vmfb, [(1, tiny.vmfb)], plan)
    assert measurement.status == "ok", measurement.detail
    assert len(measurement.time_us) == 3


def test_a_long_call_fills_a_round_with_two_pairs_not_five():
    """Synthetic call times: short calls fill `round_seconds` (at least 5 pairs); from a call of 0.1 s on, five
    pairs would last over a second, and a round is one A B B A turn."""
    from mltune.execution.timing_worker import pairs_per_round

    plan = TimingPlan()
    request = {
        "round_seconds": plan.round_seconds,
        "min_calls": plan.min_calls,
        "max_calls": plan.max_calls,
        "long_call_pairs": plan.long_call_pairs,
        "long_round_seconds": plan.long_round_seconds,
    }
    assert [pairs_per_round(request, call_s) for call_s in (1e-5, 1e-3, 0.05, 0.11, 0.78)] == [400, 60, 5, 2, 2]
    assert pairs_per_round({**request, "long_call_pairs": 0}, 0.78) == 5


@pytest.fixture
def kept(runner) -> Runner:
    runner.kept = KeptWorker()
    yield runner
    runner.close()


def _pid(runner: Runner) -> int:
    return runner.kept.worker.proc.pid


def test_a_kept_worker_serves_batch_after_batch_with_its_own_plan(tiny, kept, tmp_path):
    """One process times both batches (the first with two rounds, the second with three); a failing candidate in
    the second batch fails alone, and the worker still serves a third."""
    first = kept.measure(tiny.vmfb, [(0, tiny.vmfb)], TimingPlan(rounds=2, round_seconds=0.05, slow_factor=1e9))
    pid = _pid(kept)
    second = kept.measure(
        tiny.vmfb,
        [(1, tiny.vmfb), (2, tmp_path / "missing.vmfb")],
        TimingPlan(rounds=3, round_seconds=0.05, slow_factor=1e9),
    )
    (third,) = kept.measure(tiny.vmfb, [(3, tiny.vmfb)], PLAN)
    assert [len(m.time_us) for m in first + second[:1]] == [2, 3]
    assert [m.status for m in second] == ["ok", "run_error"]
    assert third.status == "ok", third.detail
    assert kept.kept.worker is not None and kept.kept.worker.proc.poll() is None
    assert _pid(kept) != pid, "a candidate that failed to load ends its worker; a new one serves the next"


def test_a_kept_worker_serves_every_runner_of_its_device_and_is_replaced_when_gone(tiny, kept, tmp_path):
    """Another runner of the same device, with another baseline and other inputs, is served by the same process;
    a worker killed between calls is replaced without a failed measurement."""
    import os
    import shutil
    import signal

    kept.measure(tiny.vmfb, [(0, tiny.vmfb)], PLAN)
    pid = _pid(kept)
    other_baseline, other_inputs = tmp_path / "other" / "baseline.vmfb", []
    other_baseline.parent.mkdir()
    shutil.copy(tiny.vmfb, other_baseline)
    for spec in kept.invocation.inputs:
        shutil.copy(spec.path, other_baseline.parent / spec.path.name)
        other_inputs.append(InputFile(other_baseline.parent / spec.path.name, spec.shape, spec.element_type))
    other = Runner(Invocation("main", tuple(other_inputs), False), "local-task", tmp_path / "other", kept=kept.kept)
    (against_other,) = other.measure(other_baseline, [(1, tiny.vmfb)], PLAN)
    (back,) = kept.measure(tiny.vmfb, [(2, tiny.vmfb)], PLAN)
    assert against_other.status == back.status == "ok" and _pid(kept) == pid, "one worker served both runners"
    os.kill(pid, signal.SIGKILL)
    (after_kill,) = kept.measure(tiny.vmfb, [(3, tiny.vmfb)], PLAN)
    assert after_kill.status == "ok" and _pid(kept) != pid
    kept.close()
    assert kept.kept.worker is None and not list(kept.work_dir.glob("timing_*")), "nothing is left behind"


def test_a_kept_worker_ends_when_its_parent_dies(tiny, runner, tmp_path):
    """A parent that keeps a worker and is killed leaves no worker behind (the worker watches its parent)."""
    import json
    import os
    import subprocess
    import sys
    import time

    script = tmp_path / "parent.py"
    script.write_text(f"""
import json, os, sys
from pathlib import Path
from mltune.execution.runner import Runner
from mltune.execution.measurement import TimingPlan
from mltune.execution.timing_process import KeptWorker
from mltune.input.files import InputFile
from mltune.input.tuning_input import Invocation
files = tuple(InputFile(Path(p), tuple(s), e) for p, s, e in {
        json.dumps([(str(f.path), f.shape, f.element_type) for f in runner.invocation.inputs])
    })
runner = Runner(Invocation("main", files, False), "local-task", Path({str(tmp_path)!r}), kept=KeptWorker())
runner.measure(Path({str(tiny.vmfb)!r}), [(0, Path({str(tiny.vmfb)!r}))], TimingPlan(rounds=1, round_seconds=0.02))
print(runner.kept.worker.proc.pid, flush=True)
os._exit(0)
""")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert done.returncode == 0, done.stderr
    worker = int(done.stdout.split()[-1])
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.kill(worker, 9)
    pytest.fail("the kept worker outlived its parent")


def test_a_runner_whose_folder_does_not_exist_yet_measures(tiny, runner, tmp_path):
    """The folder for the worker's request is made when needed (a fallback attempt's as-built runner names a folder
    that no build has made)."""
    runner.work_dir = tmp_path / "not" / "made"
    (measurement,) = runner.measure(tiny.vmfb, [(0, tiny.vmfb)], PLAN)
    assert measurement.status == "ok", measurement.detail
