"""Tune a whole model, then re-measure the result with plain IREE tools.

`mltune tune MODEL --budget N` prints where the model spends its time and tunes the top
problems; this script then prints that breakdown again (from `summary.json`), the problems
tuned and what leave-one-out kept, and re-measures the recommendation: `iree-compile` with
IREE's defaults and with the recommended command line (`compile_command.txt`: the spec and
any recommended flags), then `iree-benchmark-module --function=main
--flagfile=RUN_DIR/inputs/flags.txt` on both, interleaved over several rounds, alternating which
goes first (times are each process's fastest repetition; median and min over rounds).

    python benchmarks/tune_model.py [--model examples/models/transformer_block_f32.mlir] [--budget 60] [--rounds 10]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tune_examples import CPU_FLAGS, benchmark_ms, run

ROOT = Path(__file__).resolve().parent.parent


def print_breakdown(summary: dict) -> None:
    print("\nPer-dispatch time (dumped benchmarks, IREE default) x calls per model run:")
    print(f"  {'dispatch':<38} {'op':<20} {'us/call':>9} {'calls':>5} {'share':>6}  problem")
    for p in summary["profile"]:
        print(f"  {p['dispatch'][:38]:<38} {p['op'][:20]:<20} {p['time_us']:9.1f} {p['calls']:5d} "
              f"{100 * p['share']:5.1f}%  {p['problem'] or 'not tunable'}")
    winners = {d["problem"]: d for d in summary["dispatches"]}
    print("\nTuned (budget split by share):")
    for a in summary["allocations"]:
        d = winners[a["problem"]]
        won = f"{d['winner']['speedup']:.2f}x in the model" if d["winner"] else "no config beat the default"
        verdict = ""
        if summary["leave_one_out"] and a["problem"] in summary["leave_one_out"]["ratio_without"]:
            ratio = summary["leave_one_out"]["ratio_without"][a["problem"]]
            kept = a["problem"] in summary["leave_one_out"]["kept"]
            verdict = f"; leave-one-out without/with = {ratio:.3f}: {'kept' if kept else 'dropped'}"
        print(f"  {a['problem']:<40} {100 * a['share']:5.1f}% of time, {a['budget']:3d} candidates "
              f"({d['benchmarked']} benchmarked): {won}{verdict}")
    flags = summary["flags"]
    if flags:
        for name, m in flags["measured"].items():
            print(f"  flag variant {name}: {m['speedup']:.2f}x (rounds won {100 * m['rounds_won']:.0f} %)")
        print(f"  flags kept: {' '.join(flags['kept']) or 'none'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=ROOT / "examples" / "models" / "transformer_block_f32.mlir")
    parser.add_argument("--budget", type=int, default=60)
    parser.add_argument("--top", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--dataset-dir", type=Path, default=None,
                        help="records (and the seed order for known problems); default: WORK/datasets")
    parser.add_argument("--work", type=Path, default=ROOT / "mltune-runs" / f"model-{time.strftime('%Y%m%d-%H%M%S')}")
    args = parser.parse_args()
    run_dir = args.work / args.model.stem
    spec = run_dir / "best_spec.mlir"
    command = [sys.executable, "-m", "mltune.cli", "tune", str(args.model), "--budget", str(args.budget),
               "--run-dir", str(run_dir), "--dataset-dir", str(args.dataset_dir or args.work / "datasets"),
               "-o", str(spec), "--flag-search", *(["--top", str(args.top)] if args.top else [])]
    print("$", shlex.join(command), flush=True)
    print(f"load average before: {os.getloadavg()[0]:.1f} (on {os.cpu_count()} cores)", flush=True)
    tune = subprocess.run(command, capture_output=True, text=True)
    (args.work / "mltune_stdout.txt").write_text(tune.stdout + tune.stderr)
    if tune.returncode != 0:
        print(tune.stdout, tune.stderr, file=sys.stderr)
        return 1
    summary = json.loads((run_dir / "summary.json").read_text())
    print_breakdown(summary)
    inputs = run_dir / "inputs" / "flags.txt"
    default_vmfb, tuned_vmfb = run_dir / "check_default.vmfb", run_dir / "check_tuned.vmfb"
    run(["iree-compile", str(args.model), *CPU_FLAGS, "-o", str(default_vmfb)])
    recommended = run_dir / "compile_command.txt"
    if not recommended.is_file():
        print("\nmltune recommends IREE's defaults (no spec, no flags): the speedup is 1 by construction")
        return 0
    tuned_args = shlex.split(recommended.read_text())
    tuned_args[tuned_args.index("-o") + 1] = str(tuned_vmfb)
    print("$", shlex.join(tuned_args))
    run(tuned_args)
    default_ms, tuned_ms, ratios = [], [], []
    for round_index in range(args.rounds):  # alternate which one goes first
        order = [default_vmfb, tuned_vmfb] if round_index % 2 == 0 else [tuned_vmfb, default_vmfb]
        times = {vmfb: benchmark_ms(vmfb, inputs) for vmfb in order}
        default_ms.append(times[default_vmfb])
        tuned_ms.append(times[tuned_vmfb])
        ratios.append(times[default_vmfb] / times[tuned_vmfb])
    e2e = summary["end_to_end"]["recommended"]["speedup"] if summary["end_to_end"] else None
    print(f"\nEnd to end, {args.rounds} interleaved rounds of iree-benchmark-module (fastest of 5 reps each), ms:")
    print(f"  IREE default  median {statistics.median(default_ms):7.3f}  min {min(default_ms):7.3f}")
    print(f"  tuned         median {statistics.median(tuned_ms):7.3f}  min {min(tuned_ms):7.3f}")
    print(f"  speedup: median of per-round ratios {statistics.median(ratios):.3f}x, "
          f"ratio of mins {min(default_ms) / min(tuned_ms):.3f}x; tuned faster in {sum(r > 1 for r in ratios)}/"
          f"{len(ratios)} rounds (mltune measured {e2e:.3f}x in-process)" if e2e else "")
    print(f"  mltune wall time {summary['wall_seconds']:.0f} s; load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
