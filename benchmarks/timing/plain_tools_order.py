"""Does the order of plain `iree-benchmark-module` processes within a round bias their times?

The plain-tools re-measures in `benchmarks/` run each build once per round, always in the same order. This runs
IREE's default build twice (two copies of one module: any difference between them is the measurement's own) and
a tuned build (`--command`: the compile command mltune wrote, as in RUN/compile_command.txt) in rounds whose order
rotates, so that each build runs first, second and third equally often. Prints, per position in the round, the
median of each time over its round's median (> 1: that position reads slower), the copy's ratio (should be 1.00x)
and the tuned build's speedup over the default, overall and by which of the two ran first.

On a GPU (`--device cuda`), where mltune's output is the annotated model (`compile_command.txt` compiles it), the
default build compiles `--default-source` instead: the input model as mltune compiled it (for sm_90, with its
hand-written target written in).

    python benchmarks/timing/plain_tools_order.py --run-dir RUN [--rounds 12] [--lock /tmp/mltune-cpu.lock]
        [--device cuda --default-source MODEL.sm_90.mlir]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from cpu.blas_comparison import tuned_build
from measure_lock import held
from whole_models.tune_examples import benchmark_ms


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--run-dir",
        type=Path,
        required=True,
        help="a finished `mltune tune` run of a one-op model: its model.mlir or input, "
        "compile_command.txt and inputs/flags.txt",
    )
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--lock", type=Path, default=None, help="flock(1) file held while measuring")
    parser.add_argument("--device", default="local-task", help="the IREE device to time on")
    parser.add_argument(
        "--default-source",
        type=Path,
        default=None,
        help="the model the default build compiles (default: the command's own source)",
    )
    args = parser.parse_args()
    command = (args.run_dir / "compile_command.txt").read_text().strip()
    inputs = args.run_dir / "inputs" / "flags.txt"
    default_command = " ".join(
        word
        for word in shlex.split(command)
        if not word.startswith(
            (
                "--iree-codegen-tuning-spec-path",
                "--iree-opt-data-tiling",
                "--iree-llvmcpu-matmul-tile-bytes",
                "--iree-llvmcpu-number-of-threads",
                "--iree-llvmcpu-enable-ukernels",
            )
        )
    )
    if args.default_source is not None:
        words = shlex.split(default_command)
        default_command = shlex.join([words[0], str(args.default_source), *words[2:]])
    vmfbs = {name: args.run_dir / f"order_{name}.vmfb" for name in ("default", "default copy", "tuned")}
    subprocess.run(tuned_build(default_command, vmfbs["default"]), check=True)
    vmfbs["default copy"].write_bytes(vmfbs["default"].read_bytes())
    subprocess.run(tuned_build(command, vmfbs["tuned"]), check=True)
    names = list(vmfbs)
    times: dict[str, list[float]] = {name: [] for name in names}
    by_position: list[list[float]] = [[] for _ in names]
    first: list[str] = []
    with held(args.lock):
        for number in range(args.rounds):
            order = names[number % len(names) :] + names[: number % len(names)]
            measured = {name: benchmark_ms(vmfbs[name], inputs, args.device) for name in order}
            middle = statistics.median(measured.values())
            for position, name in enumerate(order):
                times[name].append(measured[name])
                by_position[position].append(measured[name] / middle)
            first.append(next(name for name in order if name in ("default", "tuned")))
    for position, values in enumerate(by_position, 1):
        print(
            f"position {position}: time / round median {statistics.median(values):.3f} "
            f"(spread {min(values):.3f}-{max(values):.3f})"
        )
    copy = [d / c for d, c in zip(times["default"], times["default copy"])]
    print(f"default copy: speedup over default {statistics.median(copy):.3f}x (spread {min(copy):.3f}-{max(copy):.3f})")
    speedup = [d / t for d, t in zip(times["default"], times["tuned"])]
    print(
        f"tuned: speedup over default {statistics.median(speedup):.3f}x (spread {min(speedup):.3f}-{max(speedup):.3f})"
    )
    for name in ("default", "tuned"):
        picked = [s for s, f in zip(speedup, first) if f == name]
        if not picked:
            continue
        print(f"  rounds where {name} ran before the other: {statistics.median(picked):.3f}x over {len(picked)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
