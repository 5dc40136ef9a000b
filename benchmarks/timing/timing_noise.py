"""How noisy is a speed ratio? Separate `iree-benchmark-module` processes vs mltune's interleaved runner.

Compiles an example model once and times it against itself (A/A: the true ratio is 1),
`--pairs` times with each method:
- processes: one `iree-benchmark-module` process for A, then one for A again (5 reps each),
  ratio of their fastest repetitions;
- runner: `mltune.execution.runner.Runner` (calls alternating in one process, 3 rounds), its ratio.
Prints min / median / max of the ratios and the spread (max - min) / median.

    python benchmarks/timing/timing_noise.py [--example matmul_f32] [--pairs 8]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
from pathlib import Path

from mltune.execution.measurement import TimingPlan
from mltune.execution.runner import Runner
from mltune.input.files import InputFile
from mltune.input.tuning_input import Invocation

ROOT = Path(__file__).resolve().parents[2]
CPU_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
]


def process_ms(vmfb: Path, inputs: list[InputFile]) -> float:
    out = subprocess.run(
        [
            "iree-benchmark-module",
            f"--module={vmfb}",
            "--device=local-task",
            "--function=main",
            *[f.flag for f in inputs],
            "--benchmark_repetitions=5",
            "--benchmark_min_time=0.05",
            "--benchmark_format=json",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return min(b["real_time"] for b in json.loads(out)["benchmarks"] if b.get("run_type") == "iteration")


def describe(name: str, ratios: list[float]) -> str:
    mid = statistics.median(ratios)
    return (
        f"{name:<10} {min(ratios):6.3f} {mid:6.3f} {max(ratios):6.3f} {100 * (max(ratios) - min(ratios)) / mid:7.1f} %"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", default="matmul_f32")
    parser.add_argument("--pairs", type=int, default=8)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="timing_noise_"))
    source = ROOT / "examples" / f"{args.example}.mlir"
    vmfb = work / "a.vmfb"
    subprocess.run(["iree-compile", str(source), *CPU_FLAGS, "-o", str(vmfb)], check=True)
    from mltune.frontend.mlir import new_context, parse_module_file
    from mltune.input.tuning_input import write_random_inputs

    context = new_context()
    module = parse_module_file(source, context)
    with context:
        function = next(op for op in module.body.operations if op.operation.name == "func.func")
        inputs = list(write_random_inputs(function, work / "inputs", seed=0))
    runner = Runner(Invocation("main", tuple(inputs), False), "local-task", work)
    process_ratios, runner_ratios = [], []
    for _ in range(args.pairs):
        process_ratios.append(process_ms(vmfb, inputs) / process_ms(vmfb, inputs))
        runner_ratios.append(runner.measure(vmfb, [(0, vmfb)], TimingPlan())[0].ratio)
    print(f"A/A ratios of {args.example} over {args.pairs} pairs (true ratio 1.0)")
    print(f"{'method':<10} {'min':>6} {'median':>6} {'max':>6} {'spread':>9}")
    print(describe("processes", process_ratios))
    print(describe("runner", runner_ratios))


if __name__ == "__main__":
    main()
