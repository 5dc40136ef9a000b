"""How close IREE's own CPU kernels get to BLAS, with the operands already packed: the ceiling of any tuning.

For each f32 shape this times, interleaved in every round with plain `iree-benchmark-module` (`local-task`, both
cores) and numpy's BLAS pinned to the same threads:
- IREE's default build of the one-op model, and the data-tiled build mltune offers (`--iree-opt-data-tiling`,
  mmt4d microkernel: pack both operands, mmt4d, unpack the result on every call);
- the data-tiled model lowered through `iree_codegen.inner_tiled` instead of `linalg.mmt4d`
  (`--iree-llvmcpu-enable-inner-tiled`), with and without IREE's LLVM-bitcode `inner_tiled` microkernel;
- a model that is only the `linalg.mmt4d` on operands packed beforehand (the inner tiles IREE's x86 encoding
  resolver picks: 8 x 8 x 1 on AVX2, 16 x 16 x 1 on AVX-512), with the mmt4d microkernel and with codegen.

The last two say what IREE's kernel reaches when no packing is paid at all: if that is below 0.9x of BLAS, no
tiling, flag or spec mltune can choose reaches 0.9x on that shape. Prints each build's median time and GFLOP/s,
its spread, and the median per-round ratio to BLAS (> 1: faster than BLAS). Holds `--lock` per shape.

    python benchmarks/studies/cpu/cpu_kernel_ceiling.py [--rounds 5] [--lock /tmp/mltune-cpu.lock] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/: its helpers and groups
from cpu.blas_comparison import SHAPES, blas_ms, blas_operands
from cpu.cpu_ukernel_variants import DATA_TILING, build, input_flags, interleaved_ms
from measure_lock import held

from mltune.frontend.one_op_model import ContractionShape, contraction_model

MODEL_VARIANTS: dict[str, tuple[str, ...]] = {
    "IREE default": (),
    "data tiling + mmt4d ukernel": (DATA_TILING, "--iree-llvmcpu-enable-ukernels=mmt4d"),
    "data tiling, inner_tiled": (DATA_TILING, "--iree-llvmcpu-enable-inner-tiled"),
    "data tiling, inner_tiled ukernel": (
        DATA_TILING,
        "--iree-llvmcpu-enable-inner-tiled",
        "--iree-llvmcpu-enable-llvm-ukernels=inner_tiled",
    ),
}
PACKED_VARIANTS: dict[str, tuple[str, ...]] = {
    "mmt4d alone, ukernel": ("--iree-llvmcpu-enable-ukernels=mmt4d",),
    "mmt4d alone, codegen": (),
}
DEFAULT_SHAPES = (
    "mm_100x1000x300_f32f32_nn",
    "mm_128x3072x768_f32f32_nn",
    "mm_197x2304x768_f32f32_nn",
    "mm_64x2048x2048_f32f32_nt",
    "mm_784x128x1152_f32f32_nn",
    "mm_3136x64x576_f32f32_nn",
)


def f32_lanes() -> int:
    """f32 lanes of this CPU's widest vectors, which IREE's x86 encoding resolver uses for M0 and N0."""
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    return 16 if " avx512f" in flags else 8


def packed_model(shape: ContractionShape, lanes: int) -> tuple[str, str]:
    """MLIR of `linalg.mmt4d` on operands packed beforehand (M and N padded up to whole tiles), and its input flags."""
    m0 = next(t for t in (1, 2, 4, 8, 16) if t >= min(shape.m, lanes))
    m1, n1 = -(-shape.m // m0), -(-shape.n // lanes)
    lhs, rhs, out = f"{m1}x{shape.k}x{m0}x1xf32", f"{n1}x{shape.k}x{lanes}x1xf32", f"{m1}x{n1}x{m0}x{lanes}xf32"
    source = f"""func.func @main(%lhs: tensor<{lhs}>, %rhs: tensor<{rhs}>) -> tensor<{out}> {{
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<{out}>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<{out}>) -> tensor<{out}>
  %r = linalg.mmt4d ins(%lhs, %rhs : tensor<{lhs}>, tensor<{rhs}>) outs(%acc : tensor<{out}>) -> tensor<{out}>
  return %r : tensor<{out}>
}}
"""
    return source, f"--input={lhs}=1\n--input={rhs}=1\n"


def compare(shape: ContractionShape, rounds: int, work: Path) -> None:
    model, model_flags = work / f"{shape.name}.mlir", work / f"{shape.name}.flags"
    model.write_text(contraction_model(shape))
    model_flags.write_text(input_flags(shape))
    packed_source, packed_inputs = packed_model(shape, f32_lanes())
    packed, packed_flags = work / f"{shape.name}.packed.mlir", work / f"{shape.name}.packed.flags"
    packed.write_text(packed_source)
    packed_flags.write_text(packed_inputs)
    builds = {}
    for variants, source, inputs in ((MODEL_VARIANTS, model, model_flags), (PACKED_VARIANTS, packed, packed_flags)):
        for name, flags in variants.items():
            vmfb = work / f"{shape.name}.{len(builds)}.vmfb"
            error = build(source, flags, vmfb)
            if error:
                print(f"| {shape.name} | {name} | does not compile: {error} |", flush=True)
                continue
            builds[name] = (vmfb, inputs)
    blas_call, threads = blas_operands(shape), 2
    times = interleaved_ms(builds, rounds, {"BLAS": lambda: blas_ms(blas_call, threads)})
    gflop = 2e-9 * shape.m * shape.n * shape.k * max(1, shape.batch)
    for name, ms in times.items():
        ratio = statistics.median(b / t for b, t in zip(times["BLAS"], ms))
        median = statistics.median(ms)
        print(
            f"| {shape.name} | {name} | {median:.3f} ({gflop / median * 1e3:.0f}) | {min(ms):.3f}-{max(ms):.3f} "
            f"| {ratio:.2f}x |",
            flush=True,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lock", type=Path, default=None, help="flock(1) file held while each shape is measured")
    parser.add_argument("--only", nargs="*", default=None, help="shape names (default: the compute-bound f32 ones)")
    args = parser.parse_args()
    wanted = set(args.only or DEFAULT_SHAPES)
    shapes = [shape for shape, _ in SHAPES if shape.name in wanted and shape.in_type == "f32" and not shape.batch]
    print("| shape | build | ms (GFLOP/s), median | spread | BLAS / build |\n| --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for shape in shapes:
            with held(args.lock):
                compare(shape, args.rounds, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
