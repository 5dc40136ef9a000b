"""Tune the shipped examples, then re-measure each emitted spec at the model level with plain IREE tools.

For every example: `mltune tune EXAMPLE --budget N`, then `iree-compile` with and without
`--iree-codegen-tuning-spec-path`, then `iree-benchmark-module --function=main
--flagfile=RUN_DIR/inputs/flags.txt` (the `--input=` flags of the arguments mltune used) on
the default and the tuned module, interleaved over several rounds.
Prints per example the default and tuned times (median / min over rounds of each process's
fastest repetition), the median over rounds of their ratio, the fraction of generated
candidates that compiled and the tuner's own overhead; then the geomean. Records go to
WORK/datasets, so a benchmark run neither adds to the repository's datasets nor starts from
configs they already know.

    python benchmarks/whole_models/tune_examples.py [--budget 50] [--rounds 10] [--ranker heuristic]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ["matmul_f32", "batch_matmul_f32", "matmul_nt_f16", "matmul_decode_f32", "matmul_conv3x3_f32"]
CPU_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
]


def run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, check=True)


def benchmark_ms(vmfb: Path, input_flags: Path, device: str = "local-task") -> float:
    """Fastest of the 5 repetitions of one `iree-benchmark-module` process on `device`, in ms (other
    processes on a shared machine only ever add time, so the fastest repetition is the steadiest).

    A repetition's time is the mean wall time of the calls it made (at least 0.1 s of them). `main` has
    IREE's default synchronous ABI: a call returns once the device has finished, so on a GPU a time is
    the submission, the kernels and the wait, one call after the other. `--batch_size` is left at 1: for
    such a function it only divides the reported time, it makes no more calls. On a GPU the process
    first warms up for 0.2 s (clocks, the first call's lazy set-up).
    """
    warmup = [] if device.startswith("local-") else ["--benchmark_min_warmup_time=0.2"]
    out = run(
        [
            "iree-benchmark-module",
            f"--module={vmfb}",
            f"--device={device}",
            "--function=main",
            f"--flagfile={input_flags}",
            "--benchmark_repetitions=5",
            "--benchmark_min_time=0.1",
            *warmup,
            "--benchmark_format=json",
        ]
    ).stdout
    rows = [b for b in json.loads(out)["benchmarks"] if b.get("run_type") == "iteration"]
    return min(b["real_time"] for b in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--ranker", default="heuristic")
    parser.add_argument("--work", type=Path, default=ROOT / "mltune-runs" / f"bench-{time.strftime('%Y%m%d-%H%M%S')}")
    parser.add_argument("--examples", nargs="*", default=EXAMPLES)
    args = parser.parse_args()
    rows = []
    for name in args.examples:
        source = ROOT / "examples" / f"{name}.mlir"
        run_dir = args.work / name
        spec = run_dir / "best_spec.mlir"
        tune = subprocess.run(
            [
                sys.executable,
                "-m",
                "mltune.cli",
                "tune",
                str(source),
                "--budget",
                str(args.budget),
                "--ranker",
                args.ranker,
                "--run-dir",
                str(run_dir),
                "-o",
                str(spec),
                "--dataset-dir",
                str(args.work / "datasets"),
            ],
            capture_output=True,
            text=True,
        )
        if tune.returncode != 0:
            print(tune.stdout, tune.stderr, file=sys.stderr)
            return 1
        summary = json.loads((run_dir / "summary.json").read_text())
        tried = sum(d["tried"] for d in summary["dispatches"])
        compiled = sum(d["compiled"] for d in summary["dispatches"])
        inputs = run_dir / "inputs" / "flags.txt"  # the --input= flags of the arguments mltune used
        default_vmfb, tuned_vmfb = run_dir / "check_default.vmfb", run_dir / "check_tuned.vmfb"
        run(["iree-compile", str(source), *CPU_FLAGS, "-o", str(default_vmfb)])
        has_spec = bool(summary["spec"])
        if has_spec:
            run(
                [
                    "iree-compile",
                    str(source),
                    *CPU_FLAGS,
                    f"--iree-codegen-tuning-spec-path={spec}",
                    "-o",
                    str(tuned_vmfb),
                ]
            )
        default_ms, tuned_ms, ratios = [], [], []
        for _ in range(args.rounds):
            d = benchmark_ms(default_vmfb, inputs)
            # no spec: the user keeps IREE's default module, so the speedup is 1 by construction
            t = benchmark_ms(tuned_vmfb, inputs) if has_spec else d
            default_ms.append(d)
            tuned_ms.append(t)
            ratios.append(d / t)
        claimed = [d["winner"]["speedup"] for d in summary["dispatches"] if d["winner"]]
        rows.append(
            (
                name,
                statistics.median(default_ms),
                min(default_ms),
                statistics.median(tuned_ms),
                min(tuned_ms),
                statistics.median(ratios),
                claimed[0] if claimed else 1.0,
                compiled,
                tried,
                summary["tuner_overhead_fraction"],
                summary["wall_seconds"],
            )
        )
    print(
        f"\nbudget {args.budget}, ranker {args.ranker}, {args.rounds} interleaved rounds of iree-benchmark-module "
        "(fastest of 5 reps each); times in ms (median / min over rounds)"
    )
    print(
        f"{'example':<18} {'default':>15} {'tuned':>15} {'speedup':>8} {'mltune said':>11} {'compiled':>10} "
        f"{'overhead':>8} {'wall s':>7}"
    )
    for name, dmed, dmin, tmed, tmin, ratio, claimed, compiled, tried, overhead, wall in rows:
        print(
            f"{name:<18} {dmed:7.3f}/{dmin:7.3f} {tmed:7.3f}/{tmin:7.3f} {ratio:7.2f}x {claimed:10.2f}x "
            f"{compiled:>4}/{tried:<5} {100 * overhead:7.1f}% {wall:7.0f}"
        )
    geomean = math.exp(sum(math.log(r[5]) for r in rows) / len(rows))
    compiled_all, tried_all = sum(r[7] for r in rows), sum(r[8] for r in rows)
    print(
        f"geomean speedup {geomean:.2f}x; candidates compiled {compiled_all}/{tried_all} "
        f"({100 * compiled_all / max(tried_all, 1):.1f} %)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
