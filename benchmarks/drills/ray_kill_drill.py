"""A benchmark actor, or a whole worker node, killed in the middle of `mltune tune --cluster`: records lost, duplicated.

Starts a local Ray cluster of a head (the driver's, no CPUs, no devices) and `--nodes` worker nodes, each with
`--cpus` compile CPUs and one device: on a GPU target the node sees only its own GPU (CUDA_VISIBLE_DEVICES set
when it starts, as separate hosts would), on a CPU target it declares one unit of `mltune_bench`. No shared
filesystem: modules travel through the object store. For each `--kill` mode it runs a real `mltune tune
--cluster auto --budget N`, waits until the run's results.jsonl holds `--after` records, then
- `actor`: SIGKILLs the benchmark actor's process on the last worker node (Ray restarts it there), or
- `node`: removes the last worker node without a graceful stop (its actor has nowhere to go; its compiles run
  again elsewhere),
and once the run ends counts its records: each candidate (dispatch, position) should appear once, and there
should be `--budget` of them.

    python benchmarks/drills/ray_kill_drill.py --input examples/matmul_nt_f16.mlir --target sm_90 --devices cuda://0
        --nodes 2 --cpus 8 --budget 32 [--kill actor,node] [--after 6] [--iree-flag=FLAG ...] [--out drill.json]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from source_tree import python_path_first

ROOT = Path(__file__).resolve().parents[2]
STORE = 80 * 2**20
ACTOR_TITLE = b"BenchmarkActor"


def start_cluster(nodes: int, cpus: int, gpu: bool):
    """The head and `nodes` worker nodes; on a GPU target node i sees GPU i alone."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "num_gpus": 0, "object_store_memory": STORE, "include_dashboard": False},
    )
    workers = []
    fenced = os.environ.get("CUDA_VISIBLE_DEVICES")
    for node in range(nodes):
        if gpu:
            os.environ["CUDA_VISIBLE_DEVICES"] = str(node)  # the node's raylet and workers inherit it
        devices = {"num_gpus": 1} if gpu else {"num_gpus": 0, "resources": {"mltune_bench": 1}}
        workers.append(cluster.add_node(num_cpus=cpus, object_store_memory=STORE, **devices))
    if fenced is None:
        os.environ.pop("CUDA_VISIBLE_DEVICES", None)
    else:
        os.environ["CUDA_VISIBLE_DEVICES"] = fenced
    cluster.wait_for_nodes()
    return cluster, workers


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if parent == pid:
                found.append(int(entry.name))
    return found


def actor_pids(node) -> list[int]:
    """The benchmark actors among the worker processes of `node`'s raylet (by their Ray process title)."""
    from ray._private import ray_constants

    raylet = node.all_processes[ray_constants.PROCESS_TYPE_RAYLET][0].process.pid
    found = []
    for pid in _children(raylet):
        try:
            if ACTOR_TITLE in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found


def count_records(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def drill(args: argparse.Namespace, mode: str, work: Path, gpu: bool) -> dict:
    cluster, workers = start_cluster(args.nodes, args.cpus, gpu)
    run_dir = work / mode
    try:
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
            str(work / f"{mode}.mlir"),
            "--seed",
            "0",
            "--cluster",
            "auto",
            "-q",
            *(f"--iree-flag={flag}" for flag in args.iree_flag),
        ]
        env = {**os.environ, "RAY_ADDRESS": cluster.address, "PYTHONPATH": python_path_first(ROOT)}
        with open(work / f"{mode}.stderr", "w") as stderr:
            proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, env=env, cwd=work)
            killed, at = "nothing (the run ended first)", 0
            while proc.poll() is None:
                at = len(count_records(run_dir / "results.jsonl"))
                if at >= args.after:
                    if mode == "node":
                        cluster.remove_node(workers[-1], allow_graceful=False)
                        killed = "the last worker node"
                        break
                    pids = actor_pids(workers[-1])
                    if pids:
                        for pid in pids:
                            os.kill(pid, signal.SIGKILL)
                        killed = f"benchmark actor pid {', '.join(map(str, pids))}"
                        break
                time.sleep(0.05)
            proc.wait()
        records = count_records(run_dir / "results.jsonl")
        keys = Counter((json.dumps(r["problem"], sort_keys=True), r["position"]) for r in records)
        row = {
            "mode": mode,
            "killed": killed,
            "records_at_kill": at,
            "exit_code": proc.returncode,
            "records": len(records),
            "distinct": len(keys),
            "duplicated": sum(n - 1 for n in keys.values()),
            "lost": args.budget - len(keys),
            "benchmarked": sum(r["status"] != "compile_error" for r in records),
        }
        if proc.returncode != 0:
            row["stderr_tail"] = (work / f"{mode}.stderr").read_text()[-2000:]
        return row
    finally:
        cluster.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--cpus", type=int, default=1, help="compile CPUs per worker node")
    parser.add_argument("--input", type=Path, default=ROOT / "examples" / "matmul_f32.mlir")
    parser.add_argument("--target", default="host")
    parser.add_argument("--devices", default="local-task")
    parser.add_argument("--budget", type=int, default=16)
    parser.add_argument("--after", type=int, default=4, help="kill once the run holds this many records")
    parser.add_argument("--kill", default="actor,node")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--iree-flag", action="append", default=[], metavar="FLAG")
    args = parser.parse_args()
    args.input = args.input.resolve()
    gpu = not args.devices.startswith("local")
    rows = []
    with tempfile.TemporaryDirectory(prefix="mltune-ray-drill-") as scratch:
        for mode in args.kill.split(","):
            row = drill(args, mode, Path(scratch), gpu)
            rows.append(row)
            print(
                f"kill {mode}: {row['killed']} at {row['records_at_kill']} records; exit {row['exit_code']}; "
                f"{row['records']} records, {row['distinct']} distinct candidates of {args.budget}: "
                f"lost {row['lost']}, duplicated {row['duplicated']}",
                flush=True,
            )
            if "stderr_tail" in row:
                print(row["stderr_tail"])
    if args.out is not None:
        args.out.write_text(
            json.dumps(
                {
                    "input": args.input.name,
                    "target": args.target,
                    "nodes": args.nodes,
                    "cpus": args.cpus,
                    "budget": args.budget,
                    "rows": rows,
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
