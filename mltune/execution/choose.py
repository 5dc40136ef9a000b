"""Which executor runs a tuning run's jobs: this machine's builder and devices, or a Ray cluster."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from mltune.execution.build import Builder
from mltune.execution.devices import RunnerPool
from mltune.execution.executor import Executor, Workload
from mltune.execution.local import LocalExecutor
from mltune.execution.runner import Runner
from mltune.input.tuning_input import Invocation


def make_executor(
    cluster: str | None,
    shared_fs: bool,
    builder: Builder,
    runner: Runner | RunnerPool,
    baseline: Path,
    invocation: Invocation,
    devices: Sequence[str],
    gpu: bool,
    window: int,
    groups: Mapping[str, Workload] | None = None,
) -> Executor:
    """The local executor, or with `cluster` (already joined with `ray_cluster.connect`) the Ray executor: its
    actors use the first device's kind, `DRIVER://0` on a GPU (Ray shows each actor its own GPU only). `groups`
    with a module of their own need the Ray executor (one machine's runner times one module)."""
    if cluster is None:
        if groups:
            raise ValueError("groups with modules of their own need a cluster's executor")
        return LocalExecutor(builder, runner, baseline, window)
    from mltune.execution.ray_cluster import RayExecutor

    device = f"{devices[0].split('://')[0]}://0" if gpu else devices[0]
    return RayExecutor(builder, baseline, invocation, device, gpu, shared_fs, window, groups=dict(groups or {}))
