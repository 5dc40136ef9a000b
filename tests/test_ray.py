"""The Ray executor on a real local Ray cluster: a head and two worker nodes on this machine, each worker node with
one CPU for compiles and one unit of the `mltune_bench` resource standing for its benchmarking cores."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import ray
from iree_helpers import MLTUNE_TIMEOUT_S, interrupt_when
from ray.cluster_utils import Cluster

from mltune.execution.build import Builder, BuildResult
from mltune.execution.executor import BenchmarkJob, CompileJob
from mltune.execution.measurement import Measurement, TimingPlan
from mltune.execution.ray_cluster import BENCH_RESOURCE, RayExecutor
from mltune.frontend.problem import Problem
from mltune.input.tuning_input import prepare_input
from mltune.targets import CpuTarget

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # a Ray cluster starts in each: CI runs them with -m slow

STORE = 80 * 2**20  # object store per node: modules are kilobytes


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def cluster():
    client_port = _free_port()  # the head's Ray Client server, for `ray://`
    with pytest.MonkeyPatch.context() as env:
        # the head's client proxy gives a client's own server this long to start (30 s by default, which a loaded
        # 2-core machine running three Ray nodes has exceeded); the head inherits this process's environment
        env.setenv("RAY_CLIENT_SERVER_CHECK_CHANNEL_TIMEOUT_S", "180")
        nodes = Cluster(
            initialize_head=True,
            head_node_args={
                "num_cpus": 0,
                "object_store_memory": STORE,
                "include_dashboard": False,
                "ray_client_server_port": client_port,
            },
        )
    nodes.client_port = client_port
    for _ in range(2):
        nodes.add_node(num_cpus=1, resources={BENCH_RESOURCE: 1}, object_store_memory=STORE)
    nodes.wait_for_nodes()
    ray.init(address=nodes.address, log_to_driver=False, logging_level="ERROR")
    yield nodes
    ray.shutdown()
    nodes.shutdown()


def test_tune_through_ray_end_to_end(cluster, tiny, tmp_path):
    """A real `mltune tune --cluster auto`: every record once, each benchmarked candidate measured on an actor."""
    run_dir, dataset_dir = tmp_path / "run", tmp_path / "datasets"
    env = {**os.environ, "RAY_ADDRESS": cluster.address}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "tune",
            str(tiny.source),
            "--budget",
            "6",
            "--cluster",
            "auto",
            "--run-dir",
            str(run_dir),
            "--dataset-dir",
            str(dataset_dir),
            "-o",
            str(tmp_path / "spec.mlir"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=MLTUNE_TIMEOUT_S,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    (dispatch,) = json.loads((run_dir / "summary.json").read_text())["dispatches"]
    assert dispatch["benchmarked"] == 6 and dispatch["stop_reason"] == "budget spent"
    records = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert len(records) == dispatch["tried"]
    assert [r["position"] for r in records] == list(range(len(records)))
    assert len({json.dumps(r["knobs"], sort_keys=True) for r in records}) == len(records), "no candidate twice"
    measured = [r for r in records if r["status"] == "ok"]
    assert len(measured) == 6 and all(len(r["time_us"]) == len(r["baseline_us"]) >= 1 for r in measured)


def test_a_models_dispatches_are_searched_concurrently_through_ray(cluster, tmp_path):
    """Two dispatches whose budgets together fit in the cluster's window: each had a candidate whose compile started
    before the other's measurements were over, each dispatch spent its own budget, and no record is doubled."""
    from iree_helpers import TWO_OP_SOURCE, assert_searched_together

    source = tmp_path / "two_ops.mlir"
    source.write_text(TWO_OP_SOURCE)
    run_dir = tmp_path / "run"
    env = {**os.environ, "RAY_ADDRESS": cluster.address}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "tune",
            str(source),
            "--budget",
            "6",
            "--top",
            "2",
            "--ranker",
            "heuristic",
            "--screen",
            "none",
            "--cluster",
            "auto",
            "--shared-fs",
            "--run-dir",
            str(run_dir),
            "--dataset-dir",
            str(tmp_path / "datasets"),
            "-o",
            str(tmp_path / "spec.mlir"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=MLTUNE_TIMEOUT_S,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads((run_dir / "summary.json").read_text())
    budgets = {a["problem"]: a["budget"] for a in summary["allocations"]}
    assert len(summary["dispatches"]) == 2
    assert all(d["benchmarked"] == budgets[d["problem"]] for d in summary["dispatches"])
    records = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert len(
        {(json.dumps(r["problem"], sort_keys=True), json.dumps(r["knobs"], sort_keys=True)) for r in records}
    ) == len(records)
    assert_searched_together(run_dir, summary, records, eager=True)


def test_a_screened_model_through_ray_ends(cluster, tmp_path):
    """Every dispatch's screen and its model stage run through one executor and its actors: the two dispatches'
    screens overlap, and each dispatch's finalists are timed in the model after its own screen."""
    from iree_helpers import TWO_OP_SOURCE

    (tmp_path / "two_ops.mlir").write_text(TWO_OP_SOURCE)
    run_dir = tmp_path / "run"
    env = {**os.environ, "RAY_ADDRESS": cluster.address}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "tune",
            "two_ops.mlir",
            "--budget",
            "6",
            "--screen",
            "dispatch",
            "--screen-finalists",
            "1",
            "--top",
            "2",
            "--cluster",
            "auto",
            "--run-dir",
            str(run_dir),
            "--dataset-dir",
            str(tmp_path / "datasets"),
            "-o",
            "spec.mlir",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=MLTUNE_TIMEOUT_S,
    )
    assert result.returncode in (0, 1), result.stderr[-3000:]  # 1: no winner, which the model decides
    records = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert {r["screen"] for r in records} == {"dispatch", ""}
    assert all(r["status"] != "timeout" for r in records)
    measured: dict[str, list[float]] = {}  # each problem's screened records' times
    for r in records:
        if r["screen"]:
            measured.setdefault(Problem.from_record(r["problem"]).key, []).append(r["timestamp"])
    dispatches = json.loads((run_dir / "summary.json").read_text())["dispatches"]
    built = {
        d["problem"]: min(
            p.stat().st_mtime
            for p in (run_dir / "screen" / d["dispatch"]).rglob("module.vmfb")
            if p.parent.name.startswith("candidate")
        )
        for d in dispatches
    }
    first, second = sorted(measured, key=lambda key: min(measured[key]))
    assert built[second] < max(measured[first]), "the second dispatch's screen began before the first one's ended"
    in_model = {}
    for r in records:
        if not r["screen"]:
            in_model.setdefault(Problem.from_record(r["problem"]).key, []).append(r["timestamp"])
    assert set(in_model) == set(measured)
    assert all(min(in_model[key]) > max(measured[key]) for key in measured)


def test_each_group_is_built_and_timed_on_its_own_module(cluster, tiny, context, tmp_path):
    """One executor, two groups with modules of their own (a screen's small modules): each group's candidates are
    compiled from its module and timed against its own baseline and inputs, the split model's with its archive,
    all through the object store. A job timed against the other module would fail (other function, inputs)."""
    from iree_helpers import split_mlp

    from mltune.execution.executor import Workload

    for name in ("mlp", "tiny"):
        (tmp_path / name).mkdir()
    _, split, _ = split_mlp(tmp_path / "mlp", context)
    tiny_input = prepare_input(tiny.source, CpuTarget(), tmp_path / "tiny", context)
    workloads = {}
    for name, tuning_input in (("tiny", tiny_input), ("mlp", split)):
        builder = Builder(tuning_input, tmp_path / name / "candidates", jobs=1)
        workloads[name] = Workload(builder, builder.compile(-1, None, "baseline").vmfb, tuning_input.invocation)
    first = workloads["tiny"]
    executor = RayExecutor(first.builder, first.baseline, first.invocation, "local-task", gpu=False, groups=workloads)
    try:
        builds: list[tuple[str, BuildResult]] = []
        for index in range(3):
            for name in workloads:
                executor.submit_compile(CompileJob(index, None, name))
        executor.run(lambda job, build: builds.append((job.group, build)))
        assert all(b.status == "ok" and b.vmfb.is_relative_to(tmp_path / g / "candidates") for g, b in builds), builds
        measured: list[tuple[str, Measurement]] = []
        for name, build in builds:
            executor.submit_benchmark(
                BenchmarkJob(build.index, build.vmfb, TimingPlan(rounds=1, round_seconds=0.02), name)
            )
        executor.run(lambda job, measurement: measured.append((job.group, measurement)))
        assert sorted((g, m.index) for g, m in measured) == sorted((g, i) for g in workloads for i in range(3))
        assert all(m.status == "ok" for _, m in measured), measured
    finally:
        executor.close()


def test_ctrl_c_through_ray_keeps_the_records_and_frees_the_cluster(cluster, tiny, tmp_path):
    """Ctrl-C on the driver: exit 130 with every record kept, and the actors and compile tasks it held are given
    back to the cluster (its benchmarking and compile resources are all free again)."""
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "tune",
            str(tiny.source),
            "--budget",
            "60",
            "--ranker",
            "shuffle",
            "--cluster",
            "auto",
            "--run-dir",
            str(run_dir),
            "--dataset-dir",
            str(tmp_path / "datasets"),
            "-o",
            str(tmp_path / "spec.mlir"),
        ],
        cwd=tmp_path,
        env={**os.environ, "RAY_ADDRESS": cluster.address},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    results = run_dir / "results.jsonl"
    _, stderr = interrupt_when(
        proc, lambda: results.is_file() and results.read_text().count("\n") >= 2, MLTUNE_TIMEOUT_S
    )
    assert proc.returncode == 130 and "Traceback" not in stderr, stderr[-2000:]
    assert stderr.strip().splitlines()[-1].startswith("mltune: interrupted; every record measured so far is kept")
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(records) >= 2 and len({json.dumps(r["knobs"], sort_keys=True) for r in records}) == len(records)

    def held() -> dict[str, float]:
        free, total = ray.available_resources(), ray.cluster_resources()
        return {key: total[key] - free.get(key, 0.0) for key in (BENCH_RESOURCE, "CPU")}

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(held().values()):
        time.sleep(0.2)
    assert not any(held().values()), held()


def test_killed_actors_lose_no_measurement_and_duplicate_none(cluster, tiny, context, tmp_path):
    """Both benchmark actors are killed (SIGKILL) once the first measurement is back: Ray restarts them, the jobs
    they had not answered go to them again, and each job gives exactly one measurement, even where two groups'
    jobs share an index (the searches of two dispatches)."""
    tuning_input = prepare_input(tiny.source, CpuTarget(), tmp_path, context)
    builder = Builder(tuning_input, tmp_path / "candidates", jobs=1)
    baseline = builder.compile(-1, None, "baseline")
    executor = RayExecutor(builder, baseline.vmfb, tuning_input.invocation, "local-task", gpu=False)
    try:
        pids = executor.actor_pids()
        builds: list[BuildResult] = []
        for index in range(6):  # IREE's default build six times: what is measured does not matter here
            executor.submit_compile(CompileJob(index, None, "tiny"))
        executor.run(lambda job, build: builds.append(build))
        assert sorted(b.index for b in builds) == list(range(6)) and all(b.status == "ok" for b in builds)
        assert all(b.vmfb.is_file() and b.vmfb.parent.parent == tmp_path / "candidates" / "tiny" for b in builds)
        measurements: list[tuple[str, Measurement]] = []

        def collect(job: BenchmarkJob, measurement: Measurement) -> None:
            if not measurements:
                for pid in pids:
                    os.kill(pid, signal.SIGKILL)
            assert job.index == measurement.index
            measurements.append((job.group, measurement))

        plan = TimingPlan(rounds=2, round_seconds=0.03)
        for group in ("tiny", "twin"):
            for build in builds:
                executor.submit_benchmark(BenchmarkJob(build.index, build.vmfb, plan, group))
        executor.run(collect)
        assert sorted((g, m.index) for g, m in measurements) == [(g, i) for g in ("tiny", "twin") for i in range(6)], (
            "each job once, none lost"
        )
        assert all(m.status == "ok" for _, m in measurements), measurements
        assert set(executor.actor_pids()).isdisjoint(pids), "the killed actors were restarted"
    finally:
        executor.close()


def _timing_workers(parents: list[int]) -> dict[int, set[int]]:
    """The timing worker processes of each of `parents` (from /proc)."""
    found: dict[int, set[int]] = {parent: set() for parent in parents}
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            parent = int(
                next(line for line in (entry / "status").read_text().splitlines() if line.startswith("PPid:")).split()[
                    1
                ]
            )
        except (OSError, ValueError, StopIteration):
            continue
        if parent in found and b"mltune.execution.timing_worker" in command:
            found[parent].add(int(entry.name))
    return found


def test_idle_actors_start_the_timing_worker_of_the_group_being_compiled(cluster, tiny, context, tmp_path):
    """While a group's candidates compile, each idle actor starts that group's timing worker; the measurements that
    follow, in two calls, are taken by those same worker processes."""
    tuning_input = prepare_input(tiny.source, CpuTarget(), tmp_path, context)
    builder = Builder(tuning_input, tmp_path / "candidates", jobs=1)
    executor = RayExecutor(
        builder, builder.compile(-1, None, "baseline").vmfb, tuning_input.invocation, "local-task", gpu=False
    )
    try:
        pids = executor.actor_pids()
        builds: list[BuildResult] = []
        for index in range(2):
            executor.submit_compile(CompileJob(index, None, "tiny"))
        executor.run(lambda job, build: builds.append(build))
        started = _timing_workers(pids)
        assert all(len(workers) == 1 for workers in started.values()), started
        measured: list[Measurement] = []
        for _ in range(2):
            for build in builds:
                executor.submit_benchmark(
                    BenchmarkJob(build.index, build.vmfb, TimingPlan(rounds=1, round_seconds=0.02), "tiny")
                )
            executor.run(lambda job, measurement: measured.append(measurement))
        assert len(measured) == 4 and all(m.status == "ok" for m in measured), measured
        assert _timing_workers(pids) == started, "the workers started early took the measurements"
    finally:
        executor.close()


def test_without_a_shared_filesystem_a_split_model_runs_with_its_archive(cluster, context, tmp_path):
    """A model split from its weights, compiled by Ray tasks (the small module travels) and measured by the actors,
    each of which reads the archive from its node's one copy, sent once through the object store."""
    from iree_helpers import split_mlp

    _, split, made = split_mlp(tmp_path, context)
    builder = Builder(split, tmp_path / "candidates", jobs=1)
    baseline = builder.compile(-1, None, "baseline")
    executor = RayExecutor(builder, baseline.vmfb, split.invocation, "local-task", gpu=False, shared_fs=False)
    try:
        builds: list[BuildResult] = []
        for index in range(2):
            executor.submit_compile(CompileJob(index, None, "mlp"))
        executor.run(lambda job, build: builds.append(build))
        assert [b.status for b in builds] == ["ok", "ok"], [b.detail for b in builds]
        measurements: list[Measurement] = []
        for build in builds:
            executor.submit_benchmark(
                BenchmarkJob(build.index, build.vmfb, TimingPlan(rounds=1, round_seconds=0.02), "mlp")
            )
        executor.run(lambda job, measurement: measurements.append(measurement))
        assert sorted(m.index for m in measurements) == [0, 1] and all(m.status == "ok" for m in measurements), (
            measurements
        )
        copies = [
            c
            for c in Path(tempfile.gettempdir()).glob("mltune-archive-*.irpa")
            if c.read_bytes() == made.archive.path.read_bytes()
        ]
        assert len(copies) == 1, "one copy for both nodes of this machine"
        copies[0].unlink()
    finally:
        executor.close()


def test_an_unreachable_cluster_is_a_user_error(tmp_path):
    """Without a reachable cluster `--cluster` fails in one line, before any work."""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    source = tmp_path / "model.mlir"
    source.write_text("func.func @main() {\n  return\n}\n")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "tune",
            str(source),
            "--cluster",
            "127.0.0.1:1",
            "--run-dir",
            str(tmp_path / "run"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=MLTUNE_TIMEOUT_S,
    )
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.startswith("mltune: error: ") and "Traceback" not in result.stderr
