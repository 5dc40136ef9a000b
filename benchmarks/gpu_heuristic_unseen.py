"""The GPU heuristic on matmul shapes no dataset holds, measured: this checkout's heuristic against another
checkout's (e.g. the one before a change), interleaved shape by shape on one GPU.

For each shape a one-op model is tuned with `mltune tune --ranker heuristic --budget N` by each source tree in
turn (its `mltune` first on PYTHONPATH). From each run's records: the best speedup over IREE's default within
the budget, how many of the candidates ran more than 4x slower than the default, and the position of the first
candidate within 5 % of the best either run found (the screening ratios, each against the default measured
beside it). Both runs use the same seed, budget, flags and device; the table says which tree is which.

    python benchmarks/gpu_heuristic_unseen.py --other-src OLD_CHECKOUT [--budget 16] [--target sm_90]
        [--devices cuda://0] [--iree-flag=--iree-cuda-use-ptxas ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from source_tree import python_path_first

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mltune.one_op_model import ContractionShape, contraction_model  # noqa: E402

SHAPES = [
    ContractionShape(8192, 8192, 8192, in_type="f16"),
    ContractionShape(2560, 7680, 2560, in_type="f16", transpose_rhs=True),
]
NEAR = 1.05
SLOW = 4.0


def tune(source_tree: Path, model: Path, run_dir: Path, args: argparse.Namespace) -> list[float]:
    """Each benchmarked candidate's time / default time, in the order the heuristic proposed them."""
    env = {**os.environ, "PYTHONPATH": python_path_first(source_tree)}
    command = [sys.executable, "-m", "mltune.cli", "tune", str(model), "--ranker", "heuristic", "--budget",
               str(args.budget), "--target", args.target, "--devices", args.devices, "--run-dir", str(run_dir),
               "--dataset-dir", str(run_dir.parent / "datasets"), "-o", str(run_dir / "out.mlir"), "--seed", "0",
               "-q", *(f"--iree-flag={flag}" for flag in args.iree_flag)]
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=run_dir.parent)
    if result.returncode != 0:
        sys.exit(f"{run_dir.name}: mltune tune failed:\n{result.stderr[-3000:]}")
    records = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines() if line.strip()]
    records.sort(key=lambda r: r["position"])
    return [statistics.median(t / b for t, b in zip(r["time_us"], r["baseline_us"])) if r["status"] == "ok"
            else float("inf") for r in records]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--other-src", type=Path, required=True, help="another checkout's root (holding mltune/)")
    parser.add_argument("--budget", type=int, default=16)
    parser.add_argument("--target", default="sm_90")
    parser.add_argument("--devices", default="cuda://0")
    parser.add_argument("--iree-flag", action="append", default=[], metavar="FLAG")
    args = parser.parse_args()
    trees = {"this": ROOT, "other": args.other_src.resolve()}
    print(f"budget {args.budget}, target {args.target}, devices {args.devices}; load average {os.getloadavg()[0]:.2f}")
    print(f"{'shape':<28} {'tree':<6} {'best':>6} {'>4x slower':>11} {'first within 5 %':>17}")
    with tempfile.TemporaryDirectory(prefix="mltune-heuristic-") as scratch:
        work = Path(scratch)
        for shape in SHAPES:
            model = work / f"{shape.name}.mlir"
            model.write_text(contraction_model(shape))
            ratios = {name: tune(tree, model, work / f"{shape.name}-{name}", args) for name, tree in trees.items()}
            best = min(min(r) for r in ratios.values())
            for name, measured in ratios.items():
                first = next((i + 1 for i, r in enumerate(measured) if r <= best * NEAR), None)
                print(f"{shape.name:<28} {name:<6} {1 / min(measured):>5.2f}x {sum(r > SLOW for r in measured):>5} of "
                      f"{len(measured):<3} {first if first else 'none':>17}", flush=True)
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
