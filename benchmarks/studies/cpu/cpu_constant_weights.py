"""How much of a data-tiled build's time is packing the weight on every call: the weight as an argument against
the weight as a compile-time constant, with plain IREE tools and numpy's BLAS in the same rounds.

`benchmarks/cpu/blas_comparison.py` passes both operands as arguments, as a one-op model has them, so IREE's
data-tiled build packs the weight on every call (BLAS packs its panels on every call too). In a real model the
weight is a constant and IREE packs it once, at compile time (`--iree-opt-const-eval`). For each shape this
builds IREE's default and the data-tiled mmt4d-microkernel build (IREE's own flags, the candidate mltune keeps
on most f32 shapes) twice: with the weight an argument and with it a `dense_resource` constant (random values,
so nothing folds). Times are `iree-benchmark-module` (`local-task`, fastest of 5 repetitions of >= 0.1 s) and
numpy's matmul on the same number of threads, interleaved; prints medians over rounds with GFLOP/s and the
spread. Holds `--lock` per shape.

    python benchmarks/studies/cpu/cpu_constant_weights.py [--rounds 5] [--lock /tmp/mltune-cpu.lock] [--only NAME ...]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/: its helpers and groups
from cpu.blas_comparison import blas_ms, blas_operands
from cpu.cpu_ukernel_variants import interleaved_ms, per_shape_main
from whole_models.tune_examples import CPU_FLAGS

from mltune.frontend.one_op_model import ContractionShape, contraction_model
from mltune.spaces import cpu_data_tiling

DATA_TILED = cpu_data_tiling.compile_flags(
    {
        "lowering": cpu_data_tiling.DATA_TILED_UKERNEL,
        "dt_tile_kib": cpu_data_tiling.IREE_DEFAULT_TILE_KIB,
        "dt_threads": cpu_data_tiling.IREE_DEFAULT_THREADS,
    }
)
DEFAULT_SHAPES = (
    "mm_8x4096x1024_f32f32_nn",
    "mm_128x3072x768_f32f32_nn",
    "mm_197x2304x768_f32f32_nn",
    "mm_784x128x1152_f32f32_nn",
)


def constant_weight_model(shape: ContractionShape, seed: int = 0) -> str:
    """`@main(lhs) -> lhs @ W` with W a random f32 K x N constant held as a resource blob."""
    weight = np.random.default_rng(seed).standard_normal((shape.k, shape.n), dtype=np.float32)
    blob = "0x04000000" + weight.tobytes().hex()  # a resource blob starts with its alignment (4, little-endian)
    source = contraction_model(shape)
    rhs = f"tensor<{shape.k}x{shape.n}xf32>"
    source = source.replace(f", %rhs: {rhs})", ")").replace(
        "  %zero =", f"  %rhs = arith.constant dense_resource<weight> : {rhs}\n  %zero =", 1
    )
    return source + f'{{-#\n  dialect_resources: {{\n    builtin: {{\n      weight: "{blob}"\n    }}\n  }}\n#-}}\n'


def compare(shape: ContractionShape, rounds: int, work: Path) -> None:
    lhs = f"--input={shape.m}x{shape.k}xf32=1\n"
    sources = {
        "argument": (contraction_model(shape), lhs + f"--input={shape.k}x{shape.n}xf32=1\n"),
        "constant": (constant_weight_model(shape), lhs),
    }
    builds = {}
    for weight, (text, inputs) in sources.items():
        source, flags = work / f"{shape.name}.{weight}.mlir", work / f"{shape.name}.{weight}.flags"
        source.write_text(text)
        flags.write_text(inputs)
        for lowering, extra in (("IREE default", ()), ("data-tiled ukernel", DATA_TILED)):
            vmfb = work / f"{shape.name}.{weight}.{len(builds)}.vmfb"
            subprocess.run(
                ["iree-compile", str(source), *CPU_FLAGS, *extra, "-o", str(vmfb)],
                check=True,
                capture_output=True,
                text=True,
            )
            builds[f"{lowering}, weight {weight}"] = (vmfb, flags)
    call, threads = blas_operands(shape), os.cpu_count() or 1
    times = interleaved_ms(builds, rounds, {"BLAS": lambda: blas_ms(call, threads)})
    gflop = 2e-9 * shape.m * shape.n * shape.k
    for name, ms in times.items():
        middle = statistics.median(ms)
        print(
            f"| {shape.name} | {name} | {middle:.3f} ({gflop / middle * 1e3:.0f}) | {min(ms):.3f}-{max(ms):.3f} |",
            flush=True,
        )


def f32_weight_major(shape: ContractionShape) -> bool:
    """The shapes `constant_weight_model` writes: f32, one K x N weight, no batch."""
    return not shape.batch and not shape.transpose_rhs and shape.in_type == "f32"


if __name__ == "__main__":
    sys.exit(
        per_shape_main(
            __doc__,
            DEFAULT_SHAPES,
            "| shape | build | median ms (GFLOP/s) | min-max ms |\n| --- | --- | --- | --- |",
            compare,
            f32_weight_major,
        )
    )
