"""IREE's CPU lowerings of one contraction, each a set of compile flags, timed interleaved with plain IREE tools.

Which of IREE 3.13's microkernels are worth offering as candidates on this CPU: for each shape, IREE's default
build, data tiling (`--iree-opt-data-tiling`, codegen mmt4d), data tiling with the mmt4d microkernel (the
candidate lowering mltune offers) and data tiling with the pack and unpack microkernels too (`=all`, and the
explicit list). Each build is timed with `iree-benchmark-module` (`local-task`, fastest of 5 repetitions of
>= 0.1 s) on splat inputs, the builds interleaved in every round; prints the median over rounds, the spread
(min-max) and the median per-round ratio to IREE's default (> 1: faster). Holds `--lock` per shape.

    python benchmarks/cpu/cpu_ukernel_variants.py [--rounds 5] [--lock /tmp/mltune-cpu.lock] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from cpu.blas_comparison import SHAPES
from measure_lock import held
from whole_models.tune_examples import CPU_FLAGS, benchmark_ms

from mltune.frontend.one_op_model import ContractionShape, contraction_model

DATA_TILING = "--iree-opt-data-tiling"
VARIANTS: dict[str, tuple[str, ...]] = {
    "IREE default": (),
    "data tiling": (DATA_TILING,),
    "data tiling + mmt4d ukernel": (DATA_TILING, "--iree-llvmcpu-enable-ukernels=mmt4d"),
    "data tiling + ukernels=all": (DATA_TILING, "--iree-llvmcpu-enable-ukernels=all"),
    "data tiling + mmt4d,pack,unpack ukernels": (DATA_TILING, "--iree-llvmcpu-enable-ukernels=mmt4d,pack,unpack"),
}
DEFAULT_SHAPES = (
    "mm_100x1000x300_f32f32_nn",
    "bmm_12x128x128x64_f32f32_nn",
    "mm_128x3072x768_f16f32_nt",
    "mm_256x3072x768_bf16f32_nn",
)


def input_flags(shape: ContractionShape) -> str:
    """`--input=` flags of splat operands (the time of a dense contraction does not depend on the values)."""
    lead = (shape.batch,) if shape.batch else ()
    rhs = (shape.n, shape.k) if shape.transpose_rhs else (shape.k, shape.n)
    operands = ((shape.m, shape.k), rhs)
    return "".join(f"--input={'x'.join(map(str, lead + dims))}x{shape.in_type}=1\n" for dims in operands)


def build(source: Path, flags: Sequence[str], out: Path) -> str:
    """Compile `source` for this CPU with `flags` to `out`; the compiler's last error line, or "" when it compiled."""
    done = subprocess.run(
        ["iree-compile", str(source), *CPU_FLAGS, *flags, "-o", str(out)], capture_output=True, text=True
    )
    return done.stderr.strip().splitlines()[-1][:200] if done.returncode else ""


def interleaved_ms(
    builds: dict[str, tuple[Path, Path]], rounds: int, others: dict[str, Callable[[], float]] | None = None
) -> dict[str, list[float]]:
    """Each build's (vmfb, input flags) time and each other timer's, all of them once in every round."""
    others = others or {}
    times: dict[str, list[float]] = {name: [] for name in (*builds, *others)}
    for _ in range(rounds):
        for name, (vmfb, flags) in builds.items():
            times[name].append(benchmark_ms(vmfb, flags))
        for name, timer in others.items():
            times[name].append(timer())
    return times


def compare(shape: ContractionShape, rounds: int, work: Path) -> None:
    source, flags = work / f"{shape.name}.mlir", work / f"{shape.name}.flags"
    source.write_text(contraction_model(shape))
    flags.write_text(input_flags(shape))
    built = {}
    for name, extra in VARIANTS.items():
        vmfb = work / f"{shape.name}.{len(built)}.vmfb"
        error = build(source, extra, vmfb)
        if error:
            print(f"{shape.name} | {name} | does not compile: {error}")
            continue
        built[name] = (vmfb, flags)
    times = interleaved_ms(built, rounds)
    default = times.get("IREE default")
    for name, ms in times.items():
        ratio = statistics.median(d / t for d, t in zip(default, ms)) if default else float("nan")
        print(
            f"| {shape.name} | {name} | {statistics.median(ms):.3f} | {min(ms):.3f}-{max(ms):.3f} | {ratio:.2f}x |",
            flush=True,
        )


def per_shape_main(
    doc: str,
    default_shapes: Sequence[str],
    header: str,
    compare: Callable[[ContractionShape, int, Path], None],
    keep: Callable[[ContractionShape], bool] = lambda shape: True,
) -> int:
    """The command line both CPU studies share: shapes of `blas_comparison` by name, rounds, the lock per shape."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lock", type=Path, default=None, help="flock(1) lock held while each shape is measured")
    parser.add_argument("--only", nargs="*", default=list(default_shapes), help="shape names of blas_comparison")
    args = parser.parse_args()
    shapes = [shape for shape, _ in SHAPES if shape.name in args.only and keep(shape)]
    print(header)
    with tempfile.TemporaryDirectory(prefix="mltune-cpu-study-") as work:
        for shape in shapes:
            with held(args.lock):
                compare(shape, args.rounds, Path(work))
    return 0


if __name__ == "__main__":
    sys.exit(
        per_shape_main(
            __doc__,
            DEFAULT_SHAPES,
            "| shape | build | median ms | min-max ms | default / build |\n| --- | --- | --- | --- | --- |",
            compare,
        )
    )
