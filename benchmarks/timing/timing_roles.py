"""Does mltune's timing favour whichever build sits in the candidate's seat? Both seats, and plain tools, on one shape.

mltune times a candidate against a baseline in one process (`mltune.execution.timing_worker`). For two builds
A and B of one model this times A as the candidate against B as the baseline, then B against A, in alternating
rounds, and plain `iree-benchmark-module` on both in the same rounds. Without a bias towards either seat, the
speedup of A over B read from the first seat equals the inverse of the second's ratio: the product of the two
ratios is 1. A product below 1 says both seats saw their candidate as faster than it is. Prints, per round, the
speedup of A over B read three ways, then their medians and spreads.

    python benchmarks/timing/timing_roles.py --shape 32x2304x768 --flags "--iree-opt-data-tiling \
        --iree-llvmcpu-enable-ukernels=mmt4d" [--rounds 5] [--lock /tmp/mltune-cpu.lock]

A is the build with `--flags`; B is IREE's default build. `--flags ''` times a build against itself.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from cpu.cpu_ukernel_variants import build, interleaved_ms
from measure_lock import held

from mltune.execution.measurement import TimingPlan
from mltune.execution.runner import Runner
from mltune.frontend.one_op_model import ContractionShape, contraction_model
from mltune.input.files import InputFile
from mltune.input.tuning_input import Invocation

PLAN = TimingPlan(rounds=3)  # the search's own plan: 3 rounds of >= 0.12 s per candidate


def inputs(shape: ContractionShape, folder: Path) -> tuple[InputFile, ...]:
    """Seeded random f32 operands on disk, as mltune writes them."""
    rng = np.random.default_rng(0)
    files = []
    for name, dims in (("lhs", (shape.m, shape.k)), ("rhs", (shape.k, shape.n))):
        path = folder / f"{name}.npy"
        np.save(path, rng.standard_normal(dims, dtype=np.float32))
        files.append(InputFile(path, dims, "f32"))
    return tuple(files)


def build_pair(shape_text: str, flags: str, work: Path) -> tuple[dict[str, Path], Runner]:
    """The one-op f32 model of `MxNxK` compiled as A (with `flags`) and as B (IREE's default), and a runner of it
    on its seeded inputs."""
    m, n, k = (int(x) for x in shape_text.split("x"))
    shape = ContractionShape(m, n, k)
    source = work / "model.mlir"
    source.write_text(contraction_model(shape))
    builds = {name: work / f"{name}.vmfb" for name in ("A", "B")}
    for name, extra in (("A", shlex.split(flags)), ("B", [])):
        error = build(source, extra, builds[name])
        if error:
            raise SystemExit(f"build {name} does not compile: {error}")
    return builds, Runner(Invocation("main", inputs(shape, work), False), "local-task", work)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", required=True, help="M x N x K of an f32 matmul, e.g. 32x2304x768")
    parser.add_argument(
        "--flags",
        required=True,
        help="iree-compile flags of build A (one flag: --flags=FLAG); B is IREE's default build, "
        "and with --flags '' A is "
        "that build compiled again: both seats should then read 1.00x",
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lock", type=Path, default=None, help="flock(1) file held while measuring")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        builds, runner = build_pair(args.shape, args.flags, work)
        flagfile = work / "inputs.txt"
        flagfile.write_text("".join(f.flag + "\n" for f in runner.invocation.inputs))
        seat_a, seat_b, plain = [], [], []
        print("| round | A in the candidate's seat | A in the baseline's seat | plain tools | product of seats |")
        print("| --- | --- | --- | --- | --- |")
        with held(args.lock):
            for number in range(args.rounds):
                (a_over_b,) = runner.measure(builds["B"], [(0, builds["A"])], PLAN)
                (b_over_a,) = runner.measure(builds["A"], [(0, builds["B"])], PLAN)
                times = interleaved_ms({name: (vmfb, flagfile) for name, vmfb in builds.items()}, 1)
                seat_a.append(1 / a_over_b.ratio)
                seat_b.append(b_over_a.ratio)
                plain.append(times["B"][0] / times["A"][0])
                print(
                    f"| {number + 1} | {seat_a[-1]:.3f}x | {seat_b[-1]:.3f}x | {plain[-1]:.3f}x "
                    f"| {a_over_b.ratio * b_over_a.ratio:.3f} |",
                    flush=True,
                )
    for label, values in (("candidate's seat", seat_a), ("baseline's seat", seat_b), ("plain tools", plain)):
        print(
            f"speedup of A over B, {label}: median {statistics.median(values):.3f}x, "
            f"spread {min(values):.3f}-{max(values):.3f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
