"""Candidates per minute: the local executor against Ray with 1, 2, ... workers, measured in one run, interleaved.

Each configuration is a real `mltune tune INPUT --budget N` (same ranker, same seed, records to a scratch
datasets folder). `ray-K` runs it with `--cluster auto` on a local Ray cluster started for it: for a CPU target,
K worker nodes with one compile CPU and one benchmark actor (`mltune_bench`) each; for a GPU target one node
with the GPU (one benchmark actor) and K compile CPUs. Configurations are interleaved over `--repeats` rounds;
the table gives per configuration the median candidates per minute over rounds (benchmarked candidates / the
whole run's wall time, and / the span of the tuning loop's records), the spread, and the median ratio to the
local executor's rate of the same round.

It also measures the per-candidate costs `docs/scaling.md` models with: on the local run's candidates, the
median `iree-compile` time of one candidate (one process, nothing else compiling), and the benchmark time
per candidate (the local runner timing them all against the baseline with the default screening plan,
worker start included, divided by their number).

    flock /tmp/mltune-cpu.lock python benchmarks/scaling.py [--input examples/matmul_f32.mlir] [--budget 12]
        [--workers 1,2] [--repeats 2] [--target host] [--devices local-task] [--iree-flag=FLAG ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from source_tree import python_path_first

ROOT = Path(__file__).resolve().parent.parent
STORE = 80 * 2**20  # object store per node: modules are kilobytes to megabytes


def tune(args: argparse.Namespace, work: Path, name: str, cluster: str | None) -> dict:
    """One `mltune tune` run; its wall time, benchmarked candidates and the span of its loop's records."""
    run_dir = work / name
    command = [sys.executable, "-m", "mltune.cli", "tune", str(args.input), "--budget", str(args.budget),
               "--target", args.target, "--devices", args.devices, "--run-dir", str(run_dir), "--dataset-dir",
               str(work / "datasets"), "-o", str(run_dir / "spec.mlir"), "--seed", "0",
               *(f"--iree-flag={flag}" for flag in args.iree_flag)]
    env = dict(os.environ)
    if cluster is not None:
        command += ["--cluster", "auto"]
        env["RAY_ADDRESS"] = cluster
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=work)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"{name}: mltune tune failed:\n{result.stderr[-3000:]}")
    records = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines() if line.strip()]
    benchmarked = sum(1 for r in records if r["status"] != "compile_error")
    stamps = sorted(r["timestamp"] for r in records)
    span = stamps[-1] - stamps[0] if len(stamps) > 1 else float("nan")
    row = {"wall_s": wall, "benchmarked": benchmarked, "tried": len(records),
           "per_min": 60 * benchmarked / wall, "loop_per_min": 60 * (len(stamps) - 1) / span if span > 0 else 0.0}
    print(f"{name}: {benchmarked} benchmarked of {len(records)} tried in {wall:.0f} s", flush=True)
    return row


def start_cluster(workers: int, gpu: bool):
    from ray.cluster_utils import Cluster

    # every node of this one machine would find its GPUs: only one node may declare the GPU
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "num_gpus": 0, "object_store_memory": STORE,
                                                            "include_dashboard": False})
    if gpu:
        cluster.add_node(num_cpus=workers, num_gpus=1, object_store_memory=STORE)
    else:
        for _ in range(workers):
            cluster.add_node(num_cpus=1, num_gpus=0, resources={"mltune_bench": 1}, object_store_memory=STORE)
    cluster.wait_for_nodes()
    return cluster


def candidate_costs(args: argparse.Namespace, run_dir: Path, work: Path) -> dict:
    """Per-candidate compile and benchmark seconds, on the candidates the local run compiled: each compiled again
    alone (a spec, or on CUDA an annotated source), and the run's own modules (kernel-level ones on a GPU) timed
    against the run's own baseline."""
    from mltune.emit.apply import Applied
    from mltune.execution.build import Builder
    from mltune.execution.run import Runner, TimingPlan
    from mltune.inputs import prepare_input
    from mltune.mlir import new_context
    from mltune.targets.base import parse_target

    context = new_context()
    tuning_input = prepare_input(args.input, parse_target(args.target), work / "costs", context,
                                 extra_flags=tuple(args.iree_flag))
    builder = Builder(tuning_input, work / "costs" / "candidates", jobs=1)
    folders = sorted(d for d in run_dir.glob("**/candidate_*") if (d / "module.vmfb").is_file())[: args.budget]
    compiles = []
    for i, folder in enumerate(folders):
        spec = folder / "spec.mlir"
        applied = Applied("spec", spec.read_text()) if spec.is_file() else \
            Applied("source", (folder / "annotated.mlir").read_text())
        compiles.append(builder.compile(i, applied, f"c{i}"))
    baseline = folders[0].parent.parent / "baseline" / "module.vmfb"  # beside the builder's candidates
    runner = Runner(tuning_input.invocation, args.devices.split(",")[0], work / "costs")
    started = time.perf_counter()
    runner.measure(baseline, [(i, folder / "module.vmfb") for i, folder in enumerate(folders)], TimingPlan())
    return {"compile_s": statistics.median(b.seconds for b in compiles),
            "compiled": sum(1 for b in compiles if b.status == "ok"),
            "benchmark_s": (time.perf_counter() - started) / len(folders), "benchmarked": len(folders)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", type=Path, default=ROOT / "examples" / "matmul_f32.mlir")
    parser.add_argument("--budget", type=int, default=12)
    parser.add_argument("--workers", default="1,2", help="Ray configurations: compile workers (comma-separated)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--target", default="host")
    parser.add_argument("--devices", default="local-task")
    parser.add_argument("--out", type=Path, default=None, help="also write the rows as JSON here")
    parser.add_argument("--iree-flag", action="append", default=[], metavar="FLAG",
                        help="passed on to `mltune tune --iree-flag`, e.g. --iree-flag=--iree-cuda-use-ptxas")
    args = parser.parse_args()
    args.input = args.input.resolve()
    # this checkout's mltune in every child (runs, Ray workers, timing workers), before what the path held
    os.environ["PYTHONPATH"] = python_path_first(ROOT)
    sys.path.insert(0, str(ROOT))
    gpu = not args.devices.startswith("local")
    workers = [int(w) for w in args.workers.split(",")]
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="mltune-scaling-") as scratch:
        work = Path(scratch)
        rows: dict[str, list[dict]] = {"local": [], **{f"ray-{k}": [] for k in workers}}
        for round_ in range(args.repeats):
            rows["local"].append(tune(args, work, f"local-{round_}", None))
            for k in workers:
                cluster = start_cluster(k, gpu)
                try:
                    rows[f"ray-{k}"].append(tune(args, work, f"ray{k}-{round_}", cluster.address))
                finally:
                    cluster.shutdown()
        costs = candidate_costs(args, work / "local-0", work)
    print(f"input {args.input.name}, budget {args.budget}, target {args.target}, devices {args.devices}, "
          f"{args.repeats} interleaved rounds; load average before {load_before[0]:.2f}, after "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"per candidate: compile {costs['compile_s']:.2f} s (median of {costs['compiled']}), benchmark "
          f"{costs['benchmark_s']:.2f} s (mean over {costs['benchmarked']}, worker start included)")
    print(f"{'executor':<10} {'cand/min':>9} {'spread':>13} {'vs local':>9} {'loop cand/min':>14} {'spread':>13} "
          f"{'vs local':>9}  wall s")
    for name, runs in rows.items():
        columns = []
        for key in ("per_min", "loop_per_min"):
            rates = [r[key] for r in runs]
            ratios = [r[key] / local[key] for r, local in zip(runs, rows["local"]) if local[key] > 0]
            columns.append(f"{statistics.median(rates):>9.1f} {min(rates):>6.1f}-{max(rates):<6.1f} "
                           f"{statistics.median(ratios):>8.2f}x")
        print(f"{name:<10} {columns[0]} {columns[1]:>38}  " + " ".join(f"{r['wall_s']:.0f}" for r in runs))
    if args.out is not None:
        args.out.write_text(json.dumps({"costs": costs, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
