"""Candidates per minute: the local executor on one device against Ray on 1, 2, 4, ... devices, in one run, interleaved.

Each configuration is a real `mltune tune INPUT --budget N` (same ranker, same seed, records to a scratch
datasets folder). `local` is the local executor on the first device of `--devices`. Ray configurations run it
with `--cluster auto` on a local Ray cluster started for it:
- `ray-Gdev` (`--gpus G,...`): one node with G devices and `--compile-cpus` CPUs for compiles, so one benchmark
  actor per device (GPUs for a GPU target; for a CPU target G units of `mltune_bench`, standing for G sets of
  benchmarking cores, which is how the configuration is tested without a GPU);
- `ray-K` (`--workers K,...`, CPU targets): K worker nodes, each with one compile CPU and one benchmark actor;
- `ray-Gdev-other` (`--other-src TREE`, G from `--other-gpus`, default 1): `ray-Gdev` with another checkout's mltune
  everywhere (the driver, the Ray workers, the timing workers), e.g. the tree before a change, for an A/B in the
  same session.
Configurations are interleaved over `--repeats` rounds; the table gives per configuration the median candidates
per minute over rounds (benchmarked candidates / the whole run's wall time, and / the span of the tuning loop's
records), the spread, the median ratio to the local executor's rate of the same round (and, for the loop, to
`ray-1dev`'s of the same tree), the mean timing rounds
per benchmarked candidate and the median cores other processes kept busy during a round (the compiles beside
the benchmarks).

It also measures the per-candidate costs `docs/scaling.md` models with: on the local run's candidates, the
median `iree-compile` time of one candidate (one process, nothing else compiling), and the benchmark time
per candidate (the local runner timing them all against the baseline with the default screening plan,
worker start included, divided by their number).

    flock /tmp/mltune-cpu.lock python benchmarks/executors/scaling.py [--input examples/matmul_f32.mlir] [--budget 12]
        [--workers 1,2 | --gpus 1,2,4 --compile-cpus C] [--other-src TREE [--other-gpus 1,4]] [--no-local]
        [--repeats 2] [--target host]
        [--devices local-task] [--out rows.json] [--logs DIR] [--iree-flag=FLAG ...]
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
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STORE = 80 * 2**20  # object store per node: modules are kilobytes to megabytes
PYTHON_PATH = os.environ.get("PYTHONPATH", "")  # what the path held (IREE or Ray installed with `pip --target`)


def python_path(tree: Path) -> str:
    """A PYTHONPATH that imports `tree`'s mltune first (the runs, Ray workers and timing workers inherit it)."""
    return os.pathsep.join(filter(None, [str(tree), PYTHON_PATH]))


@dataclass(frozen=True)
class Config:
    """One way to run the tuning loop: the local executor, or a Ray cluster of `nodes` worker nodes, each with
    `cpus` compile CPUs and `devices` benchmark actors, importing mltune from `tree`."""

    name: str
    tree: Path
    nodes: int = 0  # 0: the local executor
    cpus: int = 0
    devices: int = 0


def configs(args: argparse.Namespace, gpu: bool) -> list[Config]:
    found = [] if args.no_local else [Config("local", ROOT)]
    found += [Config(f"ray-{k}", ROOT, k, 1, 1) for k in args.workers]
    found += [Config(f"ray-{g}dev", ROOT, 1, args.compile_cpus, g) for g in args.gpus]
    if args.other_src is not None:
        found += [
            Config(f"ray-{g}dev-other", args.other_src.resolve(), 1, args.compile_cpus, g) for g in args.other_gpus
        ]
    if gpu and any(c.nodes > 1 for c in found):
        sys.exit("--workers starts several nodes, which would all see this machine's GPUs: use --gpus")
    return found


def tune(args: argparse.Namespace, work: Path, name: str, config: Config, cluster: str | None) -> dict:
    """One `mltune tune` run: its wall time, benchmarked candidates, the span of its loop's records, the timing
    rounds per candidate and the cores other processes kept busy during them."""
    run_dir = work / name
    command = [
        sys.executable,
        "-m",
        "mltune.cli",
        "tune",
        str(args.input),
        "--budget",
        str(args.budget),
        "--target",
        args.target,
        "--devices",
        args.devices,
        "--run-dir",
        str(run_dir),
        "--dataset-dir",
        str(work / "datasets"),
        "-o",
        str(run_dir / "spec.mlir"),
        "--seed",
        "0",
        *(f"--iree-flag={flag}" for flag in args.iree_flag),
    ]
    env = {**os.environ, "PYTHONPATH": python_path(config.tree)}
    if cluster is not None:
        command += ["--cluster", "auto"]
        env["RAY_ADDRESS"] = cluster
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=work)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"{name}: mltune tune failed:\n{result.stderr[-3000:]}")
    if args.logs is not None:  # the run's own account (its phases' times) and records, beside the table
        args.logs.mkdir(parents=True, exist_ok=True)
        (args.logs / f"{name}.log").write_text(result.stdout)
        (args.logs / f"{name}.jsonl").write_text((run_dir / "results.jsonl").read_text())
    records = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines() if line.strip()]
    timed = [r for r in records if r.get("time_us")]
    benchmarked = sum(1 for r in records if r["status"] != "compile_error")
    stamps = sorted(r["timestamp"] for r in records)
    span = stamps[-1] - stamps[0] if len(stamps) > 1 else float("nan")
    busy = [b for r in timed for b in r.get("busy_cores") or () if b == b]
    row = {
        "wall_s": wall,
        "benchmarked": benchmarked,
        "tried": len(records),
        "per_min": 60 * benchmarked / wall,
        "loop_per_min": 60 * (len(stamps) - 1) / span if span > 0 else 0.0,
        "rounds_per_candidate": statistics.mean(len(r["time_us"]) for r in timed) if timed else 0.0,
        "busy_cores": statistics.median(busy) if busy else float("nan"),
    }
    print(f"{name}: {benchmarked} benchmarked of {len(records)} tried in {wall:.0f} s", flush=True)
    return row


def start_cluster(config: Config, gpu: bool):
    """A head (no CPUs, no devices: the driver's) and the configuration's worker nodes, this process's
    environment (PYTHONPATH: the configuration's tree) passed to every Ray worker."""
    from ray.cluster_utils import Cluster

    os.environ["PYTHONPATH"] = python_path(config.tree)  # the nodes start with it
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "num_gpus": 0, "object_store_memory": STORE, "include_dashboard": False},
    )
    devices = {"num_gpus": config.devices} if gpu else {"num_gpus": 0, "resources": {"mltune_bench": config.devices}}
    for _ in range(config.nodes):
        cluster.add_node(num_cpus=config.cpus, object_store_memory=STORE, **devices)
    cluster.wait_for_nodes()
    return cluster


def timeline(address: str, path: Path) -> None:
    """Ray's own record of the run's tasks and actor calls (`ray.timeline`): when each compile ran and when each
    benchmark actor was busy, written as the spans `actor_timeline.py` reads."""
    import ray

    ray.init(address=address, log_to_driver=False, logging_level="ERROR")
    try:
        path.write_text(json.dumps(compact_timeline(ray.timeline())))
    finally:
        ray.shutdown()


ACTOR_CALLS = ("measure", "measure_all", "prepare")  # the benchmark actor's methods that time or start a worker


def compact_timeline(events: list[dict]) -> list[dict]:
    """The spans of benchmark actor calls and compile tasks (Chrome trace events; compact ones pass unchanged)."""
    return [
        {key: event[key] for key in ("name", "tid", "ts", "dur")}
        for event in events
        if event.get("ph", "X") == "X"
        and "dur" in event
        and (event.get("name") in ACTOR_CALLS or event.get("name", "").endswith("compile_candidate"))
    ]


def candidate_costs(args: argparse.Namespace, run_dir: Path, work: Path) -> dict:
    """Per-candidate compile and benchmark seconds, on the first `--cost-candidates` candidates the local run
    compiled: each compiled again alone (a spec, or on CUDA an annotated source), and the run's own modules
    (kernel-level ones on a GPU) timed against the run's own baseline."""
    from mltune.emit.apply import Applied
    from mltune.execution.build import Builder
    from mltune.execution.measurement import TimingPlan
    from mltune.execution.runner import Runner
    from mltune.frontend.mlir import new_context
    from mltune.input.tuning_input import prepare_input
    from mltune.targets.base import parse_target

    context = new_context()
    tuning_input = prepare_input(
        args.input, parse_target(args.target), work / "costs", context, extra_flags=tuple(args.iree_flag)
    )
    builder = Builder(tuning_input, work / "costs" / "candidates", jobs=1)
    folders = sorted(d for d in run_dir.glob("**/candidate_*") if (d / "module.vmfb").is_file())
    folders = folders[: args.cost_candidates]
    compiles = []
    for i, folder in enumerate(folders):
        spec = folder / "spec.mlir"
        applied = (
            Applied("spec", spec.read_text())
            if spec.is_file()
            else Applied("source", (folder / "annotated.mlir").read_text())
        )
        compiles.append(builder.compile(i, applied, f"c{i}"))
    baseline = folders[0].parent.parent / "baseline" / "module.vmfb"  # beside the builder's candidates
    runner = Runner(tuning_input.invocation, args.devices.split(",")[0], work / "costs")
    started = time.perf_counter()
    runner.measure(baseline, [(i, folder / "module.vmfb") for i, folder in enumerate(folders)], TimingPlan())
    return {
        "compile_s": statistics.median(b.seconds for b in compiles),
        "compiled": sum(1 for b in compiles if b.status == "ok"),
        "benchmark_s": (time.perf_counter() - started) / len(folders),
        "benchmarked": len(folders),
    }


def table(rows: dict[str, list[dict]]) -> list[str]:
    """Per configuration: median rate over rounds, spread, median ratio to the local run of the same round."""
    lines = [
        f"{'executor':<17} {'cand/min':>9} {'spread':>13} {'vs local':>9} {'loop cand/min':>14} {'spread':>13} "
        f"{'vs local':>9} {'vs 1 dev':>9} {'rounds':>7} {'busy':>5}  wall s"
    ]
    for name, runs in rows.items():
        columns = []
        one_device = rows.get("ray-1dev-other" if name.endswith("-other") else "ray-1dev", [])
        for key, bases in (
            ("per_min", (rows.get("local", []),)),
            ("loop_per_min", (rows.get("local", []), one_device)),
        ):
            rates = [r[key] for r in runs]
            columns.append(f"{statistics.median(rates):>9.1f} {min(rates):>6.1f}-{max(rates):<6.1f}")
            for base in bases:  # the median over rounds of the ratio to the base's run of the same round
                ratios = [r[key] / b[key] for r, b in zip(runs, base) if b[key] > 0]
                columns[-1] += f" {statistics.median(ratios):>8.2f}x" if ratios else f" {'-':>9}"
        rounds = statistics.median(r["rounds_per_candidate"] for r in runs)
        busy = statistics.median(r["busy_cores"] for r in runs)
        lines.append(
            f"{name:<17} {columns[0]} {columns[1]:>48} {rounds:>7.2f} {busy:>5.1f}  "
            + " ".join(f"{r['wall_s']:.0f}" for r in runs)
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", type=Path, default=ROOT / "examples" / "matmul_f32.mlir")
    parser.add_argument("--budget", type=int, default=12)
    parser.add_argument(
        "--workers",
        default=None,
        help="Ray configurations of K one-CPU nodes, CPU targets (default: 1,2 when no --gpus)",
    )
    parser.add_argument("--gpus", default="", help="Ray configurations of one node with G devices (comma-separated)")
    parser.add_argument(
        "--compile-cpus",
        type=int,
        default=None,
        help="compile CPUs of a --gpus node (default: the cores less two per device of the largest)",
    )
    parser.add_argument("--other-src", type=Path, default=None, help="another checkout, run as ray-Gdev-other")
    parser.add_argument("--other-gpus", default="1", help="the G of the ray-Gdev-other configurations")
    parser.add_argument(
        "--no-local", action="store_true", help="no local run (nor the per-candidate costs measured on its candidates)"
    )
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--cost-candidates", type=int, default=12)
    parser.add_argument("--target", default="host")
    parser.add_argument("--devices", default="local-task")
    parser.add_argument("--out", type=Path, default=None, help="also write the rows as JSON here (after each run)")
    parser.add_argument(
        "--logs",
        type=Path,
        default=None,
        help="keep each run's output, records and (Ray runs) Ray timeline in this folder",
    )
    parser.add_argument(
        "--iree-flag",
        action="append",
        default=[],
        metavar="FLAG",
        help="passed on to `mltune tune --iree-flag`, e.g. --iree-flag=--iree-cuda-use-ptxas",
    )
    args = parser.parse_args()
    args.input = args.input.resolve()
    args.gpus = [int(g) for g in args.gpus.split(",") if g]
    args.other_gpus = [int(g) for g in args.other_gpus.split(",") if g]
    args.workers = [
        int(w) for w in (args.workers if args.workers is not None else "" if args.gpus else "1,2").split(",") if w
    ]
    if args.compile_cpus is None:
        args.compile_cpus = max(1, (os.cpu_count() or 2) - 2 * max(args.gpus, default=1))
    sys.path.insert(0, str(ROOT))
    gpu = not args.devices.startswith("local")
    plan = configs(args, gpu)
    load_before = os.getloadavg()
    heading = (
        f"input {args.input.name}, budget {args.budget}, target {args.target}, devices {args.devices}, "
        f"{args.repeats} interleaved rounds, {args.compile_cpus} compile CPUs per --gpus node"
    )
    result: dict = {"heading": heading, "rows": {c.name: [] for c in plan}}
    with tempfile.TemporaryDirectory(prefix="mltune-scaling-") as scratch:
        work = Path(scratch)
        for round_ in range(args.repeats):
            for config in plan:
                if config.nodes == 0:
                    row = tune(args, work, f"{config.name}-{round_}", config, None)
                else:
                    cluster = start_cluster(config, gpu)
                    try:
                        row = tune(args, work, f"{config.name}-{round_}", config, cluster.address)
                        if args.logs is not None:
                            timeline(cluster.address, args.logs / f"{config.name}-{round_}.timeline.json")
                    finally:
                        cluster.shutdown()
                result["rows"][config.name].append(row)
                if args.out is not None:
                    args.out.write_text(json.dumps(result, indent=2))
        os.environ["PYTHONPATH"] = python_path(ROOT)
        costs = None if args.no_local else candidate_costs(args, work / "local-0", work)
        result["costs"] = costs
    result["load_average"] = [load_before[0], os.getloadavg()[0]]
    print(
        f"{heading}; load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    )
    if costs is not None:
        print(
            f"per candidate: compile {costs['compile_s']:.2f} s (median of {costs['compiled']}), benchmark "
            f"{costs['benchmark_s']:.2f} s (mean over {costs['benchmarked']}, worker start included)"
        )
    print("\n".join(table(result["rows"])))
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
