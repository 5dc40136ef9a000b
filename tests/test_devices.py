"""Runtime devices: a missing one fails in one line; several share a batch, each timing against its own baseline."""

from __future__ import annotations

import numpy as np
import pytest

from mltune.errors import UserError
from mltune.execution.devices import RunnerPool, check_device, make_runner
from mltune.execution.measurement import TimingPlan
from mltune.execution.runner import Runner
from mltune.input.files import InputFile
from mltune.input.tuning_input import Invocation

PLAN = TimingPlan(rounds=2, round_seconds=0.03)


@pytest.mark.parametrize("uri", ["hip://0", "cuda://0", "nodriver://1"])
def test_missing_device_is_a_user_error(uri):
    """No GPU on the CI machine: the runtime's multi-line exception becomes one line naming the device."""
    with pytest.raises(UserError) as err:
        check_device(uri)
    message = str(err.value)
    assert uri in message and "\n" not in message


def test_host_devices_exist():
    check_device("local-task")
    check_device("local-sync")


def test_pool_spreads_a_batch_over_devices_and_keeps_the_order(tiny, tmp_path):
    rng = np.random.default_rng(0)
    files = []
    for index, shape in enumerate([(32, 64), (64, 48)]):  # synthetic inputs of the tiny model
        path = tmp_path / f"input{index}.npy"
        np.save(path, rng.uniform(-1, 1, size=shape).astype(np.float32))
        files.append(InputFile(path, shape, "f32"))
    invocation = Invocation("main", tuple(files), False)
    assert isinstance(make_runner(invocation, ["local-task"], tmp_path), Runner)
    pool = make_runner(invocation, ["local-task", "local-sync"], tmp_path)
    assert isinstance(pool, RunnerPool) and [r.device for r in pool.runners] == ["local-task", "local-sync"]
    missing = tmp_path / "missing.vmfb"
    results = pool.measure(tiny.vmfb, [(5, tiny.vmfb), (6, tiny.vmfb), (7, missing), (8, tiny.vmfb)], PLAN)
    assert [m.index for m in results] == [5, 6, 7, 8]
    assert [m.status for m in results] == ["ok", "ok", "run_error", "ok"]
    # the same module against itself, on each device against that device's baseline: a tie
    assert all(0.6 <= m.ratio <= 1.6 for m in results if m.status == "ok"), results
    assert pool.seconds_in_children > 0
