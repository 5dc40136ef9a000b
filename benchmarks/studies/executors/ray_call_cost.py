"""What one benchmark call costs through a Ray actor, against the same call made by this process's runner.

IREE's default build of INPUT stands for N candidates (what is timed does not matter here, only the call's
overhead). Each round times, interleaved: the local `Runner.measure` of the N modules against the baseline with
the screening plan (one timing worker), then the same through a benchmark actor on a local Ray cluster,
streamed (`measure`, as the executor calls it) and whole (`measure_all`, as through Ray Client), with the
modules' bytes sent in the call. The table gives the median wall time per call and per candidate over rounds,
and the median ratio to the local call of the same round.

    python benchmarks/studies/executors/ray_call_cost.py [--input examples/matmul_f32.mlir] [--target host] [--devices local-task]
        [--candidates 8] [--rounds 5] [--iree-flag=FLAG ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/: its helpers and groups
from source_tree import python_path_first

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from mltune.execution.build import Builder  # noqa: E402
from mltune.execution.executor import Workload  # noqa: E402
from mltune.execution.measurement import TimingPlan
from mltune.execution.ray_cluster import BENCH_RESOURCE  # noqa: E402
from mltune.execution.ray_workers import BenchmarkActor, ShippedWorkload  # noqa: E402
from mltune.execution.runner import Runner  # noqa: E402
from mltune.frontend.mlir import new_context  # noqa: E402
from mltune.input.tuning_input import prepare_input  # noqa: E402
from mltune.targets.base import parse_target  # noqa: E402

STORE = 200 * 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", type=Path, default=ROOT / "examples" / "matmul_f32.mlir")
    parser.add_argument("--target", default="host")
    parser.add_argument("--devices", default="local-task")
    parser.add_argument("--candidates", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iree-flag", action="append", default=[], metavar="FLAG")
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = python_path_first(ROOT)
    import ray
    from ray.cluster_utils import Cluster

    gpu = not args.devices.startswith("local")
    device = f"{args.devices.split('://')[0]}://0" if gpu else args.devices
    plan = TimingPlan()
    with tempfile.TemporaryDirectory(prefix="mltune-callcost-") as scratch:
        work = Path(scratch)
        tuning_input = prepare_input(
            args.input.resolve(), parse_target(args.target), work, new_context(), extra_flags=tuple(args.iree_flag)
        )
        builder = Builder(tuning_input, work / "builds", jobs=1)
        baseline = builder.compile(-1, None, "baseline").vmfb
        items = [(i, builder.compile(i, None, "candidates").vmfb) for i in range(args.candidates)]
        (work / "local").mkdir()
        runner = Runner(tuning_input.invocation, args.devices.split(",")[0], work / "local")
        cluster = Cluster(
            initialize_head=True,
            head_node_args={"num_cpus": 0, "num_gpus": 0, "object_store_memory": STORE, "include_dashboard": False},
        )
        cluster.add_node(
            num_cpus=1,
            num_gpus=1 if gpu else 0,
            resources={} if gpu else {BENCH_RESOURCE: 1},
            object_store_memory=STORE,
        )
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False, logging_level="ERROR")
        try:
            placement = {"num_gpus": 1} if gpu else {"num_cpus": 0, "resources": {BENCH_RESOURCE: 1}}
            shipped = ShippedWorkload.put(Workload(builder, baseline, tuning_input.invocation), shared_fs=False)
            actor = ray.remote(BenchmarkActor).options(**placement).remote(device)
            ray.get(actor.pid.remote())
            walls: dict[str, list[float]] = {"local runner": [], "actor, streamed": [], "actor, whole": []}
            for _ in range(args.rounds):
                started = time.perf_counter()
                runner.measure(baseline, items, plan)
                walls["local runner"].append(time.perf_counter() - started)
                sent = [(i, path.read_bytes()) for i, path in items]
                started = time.perf_counter()
                for ref in actor.measure.remote("", shipped, sent, plan):
                    ray.get(ref)
                walls["actor, streamed"].append(time.perf_counter() - started)
                started = time.perf_counter()
                ray.get(actor.measure_all.remote("", shipped, sent, plan))
                walls["actor, whole"].append(time.perf_counter() - started)
        finally:
            ray.shutdown()
            cluster.shutdown()
    print(
        f"input {args.input.name}, {args.candidates} candidates a call, {args.rounds} interleaved rounds, devices "
        f"{args.devices}; load average {os.getloadavg()[0]:.2f} after, on {os.cpu_count()} cores"
    )
    print(f"{'call':<16} {'s per call':>11} {'spread':>13} {'s per candidate':>16} {'vs local':>9}")
    for name, times in walls.items():
        ratios = [t / local for t, local in zip(times, walls["local runner"])]
        print(
            f"{name:<16} {statistics.median(times):>11.2f} {min(times):>6.2f}-{max(times):<6.2f} "
            f"{statistics.median(times) / args.candidates:>16.3f} {statistics.median(ratios):>8.2f}x"
        )


if __name__ == "__main__":
    main()
