"""Kill runs at random points and resume them: nothing measured twice, nothing lost, the same verdict.

Runs `mltune tune EXAMPLE --ranker heuristic --budget N` once uninterrupted, then `--kills` more times,
each killed with SIGKILL (its whole process group) at a random moment of its first run and continued with
`mltune tune --resume RUN_DIR`. For each killed run it prints when it was killed, the records before the
kill, candidates measured again after it (same knobs recorded twice: must be 0), duplicate records in the
run's dataset file (must be 0), the candidates benchmarked in the end (must be the budget), and the kept
config and end-to-end speedup next to the uninterrupted run's. The heuristic ranker is deterministic, so an
uninterrupted run and a resumed one try the same candidates; their speedups differ only by measurement noise.
With `--lock FILE` each run holds that flock(1) lock.

    python benchmarks/drills/resume_drill.py [--example batch_matmul_f32] [--budget 24] [--kills 5] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from measure_lock import held

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mltune.records.dataset import FINALS_SUFFIX  # noqa: E402

FINALS = f"{FINALS_SUFFIX}.jsonl"  # the finalists' re-measures, beside the run's trials


def tune_command(args: argparse.Namespace, run_dir: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mltune.cli",
        "tune",
        str(ROOT / "examples" / f"{args.example}.mlir"),
        "--ranker",
        "heuristic",
        "--budget",
        str(args.budget),
        "--run-dir",
        str(run_dir),
        "-o",
        str(run_dir / "spec.mlir"),
        "--dataset-dir",
        str(run_dir / "datasets"),
    ]


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def knobs_key(record: dict) -> str:
    return json.dumps(record["knobs"], sort_keys=True)


def outcome(run_dir: Path) -> tuple[str, str]:
    summary = json.loads((run_dir / "summary.json").read_text())
    winner = summary["dispatches"][0]["winner"]
    e2e = (summary.get("end_to_end") or {}).get("recommended") or {}
    kept = json.dumps(winner["knobs"], sort_keys=True) if winner else "none"
    return kept, e2e.get("interval", "no spec") if summary["spec"] else "no spec"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", default="batch_matmul_f32")
    parser.add_argument("--budget", type=int, default=24)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lock", type=Path, default=None)
    parser.add_argument("--work", type=Path, default=ROOT / "mltune-runs" / f"resume-{time.strftime('%Y%m%d-%H%M%S')}")
    args = parser.parse_args()
    lock = ["flock", str(args.lock)] if args.lock else []
    rng = random.Random(args.seed)
    reference = args.work / "uninterrupted"
    started = time.monotonic()
    subprocess.run(lock + tune_command(args, reference), check=True, capture_output=True)
    full_seconds = time.monotonic() - started
    ref_kept, ref_e2e = outcome(reference)
    print(f"uninterrupted: {full_seconds:.0f} s, kept {ref_kept}, end to end {ref_e2e}")
    print(
        f"{'run':>3} {'killed at s':>11} {'records before':>14} {'measured again':>14} {'duplicates':>10} "
        f"{'benchmarked':>11}  kept / end to end"
    )
    for number in range(args.kills):
        run_dir = args.work / f"killed-{number}"
        kill_at = rng.uniform(2.0, 0.9 * full_seconds)
        with held(args.lock):
            proc = subprocess.Popen(
                tune_command(args, run_dir),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            try:
                proc.wait(timeout=kill_at)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            before = records(run_dir / "results.jsonl")
            resumed = subprocess.run(
                [sys.executable, "-m", "mltune.cli", "tune", "--resume", str(run_dir)], capture_output=True, text=True
            )
        if resumed.returncode != 0:
            print(f"{number:>3} resume failed: {resumed.stderr.strip()[-300:]}")
            continue
        after = records(run_dir / "results.jsonl")
        dataset = records(next(f for f in (run_dir / "datasets").glob("*/*.jsonl") if not f.name.endswith(FINALS)))
        seen_before = {knobs_key(r) for r in before}
        again = sum(1 for r in after[len(before) :] if knobs_key(r) in seen_before)
        duplicates = len(dataset) - len({knobs_key(r) for r in dataset})
        benchmarked = sum(r["status"] == "ok" for r in after)
        kept, e2e = outcome(run_dir)
        same = "same config" if kept == ref_kept else f"kept {kept}"
        print(
            f"{number:>3} {kill_at:11.1f} {len(before):>14} {again:>14} {duplicates:>10} {benchmarked:>11}  "
            f"{same}; {e2e}"
        )


if __name__ == "__main__":
    main()
