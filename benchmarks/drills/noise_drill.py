"""Are mltune's verdicts the same on a busy machine? Tune the CPU examples with and without a background load,
then re-time every emitted spec with plain IREE tools on the quiet machine.

For each example, `--runs` runs of `mltune tune EXAMPLE --ranker heuristic --budget N` on the quiet machine
and `--runs` with a load this script starts itself (`iree-compile` in a loop, pinned to the last core with
`taskset`, so one of the two cores stays busy). Every emitted spec is then compiled with plain `iree-compile`
and timed against IREE's default with `iree-benchmark-module`, interleaved over `--rounds` rounds, with no
load (median of the per-round ratios). Prints per example and condition: runs, specs emitted, mltune's
model-level speedups, the quiet re-timed speedups, and whether each run's verdict (spec or no spec) agrees
with the majority verdict of the quiet runs. With `--lock FILE` each run holds that flock(1) lock, so other
measurements on the machine wait (the load is started inside it). Runs already finished in `--work` are
read back, not run again, so an interrupted drill continues where it stopped.

    python benchmarks/drills/noise_drill.py [--examples matmul_f32 ...] [--runs 5] [--budget 50] [--rounds 6]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from measure_lock import held
from whole_models.tune_examples import CPU_FLAGS, benchmark_ms, run

ROOT = Path(__file__).resolve().parents[2]
LOAD_SOURCE = ROOT / "examples" / "matmul_nt_f16.mlir"


@dataclass
class Outcome:
    example: str
    condition: str
    run_dir: Path
    emitted: bool
    claimed: float | None  # mltune's end-to-end speedup of what it emitted
    interval: str
    load: float | None  # median cores other processes kept busy during the end-to-end measurement
    retimed: float | None = None


def start_load(work: Path) -> subprocess.Popen:
    core = str(max(os.sched_getaffinity(0)))
    loop = f"while true; do iree-compile {LOAD_SOURCE} {' '.join(CPU_FLAGS)} -o {work / 'load.vmfb'}; done"
    return subprocess.Popen(
        ["taskset", "-c", core, "bash", "-c", loop],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def tune_once(example: str, condition: str, number: int, args: argparse.Namespace) -> Outcome:
    """One run, or the outcome of the run of the same name that an earlier drill in `--work` finished."""
    run_dir = args.work / f"{example}-{condition}-{number}"
    if (run_dir / "summary.json").exists():
        return _outcome(example, condition, run_dir)
    command = [
        sys.executable,
        "-m",
        "mltune.cli",
        "tune",
        str(ROOT / "examples" / f"{example}.mlir"),
        "--ranker",
        "heuristic",
        "--budget",
        str(args.budget),
        "--run-dir",
        str(run_dir),
        "-o",
        str(run_dir / "spec.mlir"),
        "--dataset-dir",
        str(args.work / "datasets"),
    ]
    load = start_load(args.work) if condition == "loaded" else None
    try:
        time.sleep(1.0 if load else 0.0)
        result = subprocess.run(command, capture_output=True, text=True)
    finally:
        if load is not None:
            os.killpg(load.pid, signal.SIGKILL)
            load.wait()
    (run_dir / "drill.log").write_text(result.stdout + result.stderr)
    if result.returncode != 0:
        raise SystemExit(f"{example} {condition} run {number} failed: {result.stderr.strip()[-300:]}")
    return _outcome(example, condition, run_dir)


def _outcome(example: str, condition: str, run_dir: Path) -> Outcome:
    summary = json.loads((run_dir / "summary.json").read_text())
    recommended = (summary.get("end_to_end") or {}).get("recommended") or {}
    return Outcome(
        example,
        condition,
        run_dir,
        bool(summary["spec"]),
        recommended.get("speedup"),
        recommended.get("interval", ""),
        recommended.get("busy_cores"),
    )


def retime(outcome: Outcome, rounds: int) -> float:
    """Median over rounds of IREE default time / tuned time, plain tools, interleaved."""
    source = ROOT / "examples" / f"{outcome.example}.mlir"
    default, tuned = outcome.run_dir / "check_default.vmfb", outcome.run_dir / "check_tuned.vmfb"
    run(["iree-compile", str(source), *CPU_FLAGS, "-o", str(default)])
    run(
        [
            "iree-compile",
            str(source),
            *CPU_FLAGS,
            f"--iree-codegen-tuning-spec-path={outcome.run_dir / 'spec.mlir'}",
            "-o",
            str(tuned),
        ]
    )
    flags = outcome.run_dir / "inputs" / "flags.txt"
    ratios = []
    for r in range(rounds):
        pair = (
            [benchmark_ms(default, flags), benchmark_ms(tuned, flags)]
            if r % 2 == 0
            else list(reversed([benchmark_ms(tuned, flags), benchmark_ms(default, flags)]))
        )
        ratios.append(pair[0] / pair[1])
    return statistics.median(ratios)


def report(outcomes: list[Outcome]) -> None:
    print(
        f"\n{'example':<18} {'condition':<8} {'runs':>4} {'specs':>5} {'mltune said (e2e)':<26} "
        f"{'re-timed quiet':<24} {'agree':>5}"
    )
    for example in dict.fromkeys(o.example for o in outcomes):
        quiet = [o.emitted for o in outcomes if o.example == example and o.condition == "quiet"]
        majority = sum(quiet) * 2 > len(quiet) if quiet else None
        for condition in ("quiet", "loaded"):
            rows = [o for o in outcomes if o.example == example and o.condition == condition]
            if not rows:
                continue
            said = " ".join(f"{o.claimed:.2f}" for o in rows if o.emitted and o.claimed) or "-"
            retimed = " ".join(f"{o.retimed:.2f}" for o in rows if o.retimed is not None) or "-"
            agree = sum(o.emitted == majority for o in rows) if majority is not None else 0
            print(
                f"{example:<18} {condition:<8} {len(rows):>4} {sum(o.emitted for o in rows):>5} {said:<26} "
                f"{retimed:<24} {agree:>2}/{len(rows)}"
            )
    loads = [o.load for o in outcomes if o.condition == "loaded" and o.load is not None]
    quiet_loads = [o.load for o in outcomes if o.condition == "quiet" and o.load is not None]
    if loads or quiet_loads:
        print(
            f"cores kept busy by other processes during the end-to-end measurement (median of runs): "
            f"quiet {statistics.median(quiet_loads) if quiet_loads else float('nan'):.2f}, "
            f"loaded {statistics.median(loads) if loads else float('nan'):.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", nargs="*", default=["matmul_f32", "batch_matmul_f32", "matmul_decode_f32"])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--budget", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--lock", type=Path, default=None)
    parser.add_argument("--work", type=Path, default=ROOT / "mltune-runs" / f"drill-{time.strftime('%Y%m%d-%H%M%S')}")
    args = parser.parse_args()
    outcomes = []
    for number in range(args.runs):  # every example early; quiet and loaded alternate, so a drift hits both alike
        for example in args.examples:
            for condition in ("quiet", "loaded"):
                with held(args.lock):
                    outcome = tune_once(example, condition, number, args)
                outcomes.append(outcome)
                print(
                    f"{example} {condition} {number}: {'spec' if outcome.emitted else 'no spec'} {outcome.interval}",
                    flush=True,
                )
    for outcome in outcomes:
        if outcome.emitted:
            with held(args.lock):
                outcome.retimed = retime(outcome, args.rounds)
    (args.work / "outcomes.json").write_text(json.dumps([{**o.__dict__, "run_dir": str(o.run_dir)} for o in outcomes]))
    report(outcomes)


if __name__ == "__main__":
    main()
