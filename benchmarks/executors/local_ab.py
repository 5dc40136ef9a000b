"""The local executor of two checkouts, interleaved: candidates per minute of the tuning loop and of the whole run.

Each round runs `mltune tune INPUT --budget N --screen none --seed 0` once with `--before`'s mltune and once with
this checkout's, each in a fresh data home, one after the other. Printed per run: wall time, records, the span of
the loop's records and the loop's candidates per minute; then per checkout the median over rounds and the median
of the per-round ratios (this checkout over `--before`). Compare the loop's rate: the whole run's also holds the
finalists' re-measure, whose length follows how close the finalists are to IREE's default.

    flock -x /tmp/mltune-cpu.lock python benchmarks/executors/local_ab.py --before /work/before \\
        --input examples/models/transformer_block_f32.mlir --budget 16 --rounds 3
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

ROOT = Path(__file__).resolve().parents[2]


def one_run(tree: Path, args: argparse.Namespace, work: Path, name: str) -> dict:
    run_dir = work / name
    env = {**os.environ, "PYTHONPATH": str(tree), "MLTUNE_HOME": str(work / f"home_{name}")}
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "tune",
            str(args.input),
            "--budget",
            str(args.budget),
            "--screen",
            "none",
            "--seed",
            "0",
            "--run-dir",
            str(run_dir),
            "-o",
            str(work / f"{name}.mlir"),
        ],
        env=env,
        capture_output=True,
        text=True,
        cwd=work,
    )
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        sys.exit(f"{name}: mltune tune failed:\n{done.stderr[-2000:]}")
    stamps = sorted(
        json.loads(line)["timestamp"] for line in (run_dir / "results.jsonl").read_text().splitlines() if line.strip()
    )
    span = stamps[-1] - stamps[0]
    row = {
        "wall_s": wall,
        "records": len(stamps),
        "span_s": span,
        "loop_per_min": 60 * (len(stamps) - 1) / span,
        "load": os.getloadavg()[0],
    }
    print(
        f"{name}: wall {wall:.1f} s, {row['records']} records, loop span {span:.1f} s, loop "
        f"{row['loop_per_min']:.1f} per min, load {row['load']:.2f}",
        flush=True,
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="the other checkout (its mltune is timed first)")
    parser.add_argument("--input", type=Path, default=ROOT / "examples" / "models" / "transformer_block_f32.mlir")
    parser.add_argument("--budget", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    args.input = args.input.resolve()
    rows: dict[str, list[dict]] = {"before": [], "this": []}
    with tempfile.TemporaryDirectory(prefix="mltune-local-ab-") as scratch:
        for round_ in range(args.rounds):
            for name, tree in (("before", args.before.resolve()), ("this", ROOT)):
                rows[name].append(one_run(tree, args, Path(scratch), f"{name}_{round_}"))
    for key in ("loop_per_min", "wall_s"):
        ratios = [t[key] / b[key] for t, b in zip(rows["this"], rows["before"])]
        print(
            f"{key}: before {statistics.median(r[key] for r in rows['before']):.1f}, this "
            f"{statistics.median(r[key] for r in rows['this']):.1f}; per-round ratios "
            + " ".join(f"{r:.2f}" for r in ratios)
            + f", median {statistics.median(ratios):.2f}"
        )


if __name__ == "__main__":
    main()
