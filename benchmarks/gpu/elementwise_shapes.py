"""Elementwise one-op models at the sizes real layers reach beyond batch 1, dumped as their GPU dispatches: the
inputs `benchmarks/device/gpu_kinds.sh` tunes. A BERT-base or ViT layer at batch 1 moves 0.4-3 MB per elementwise
dispatch, which an H100 runs in about its launch latency, so no configuration of one can be told apart; these
move 12-100 MB. Each is the op as a PyTorch export's dispatch holds it: a bias add into BERT-base's heads (batch 8,
sequence 512), the MLP's bias and GELU, the bias add transposed back, the embedding gather with its position
embedding, and Stable Diffusion 1.5's UNet bias and SiLU (320 channels at 64 x 64, batch 2).

    python benchmarks/gpu/elementwise_shapes.py --target sm_90 --out DIR   (writes DIR/NAME.mlir, one dispatch each)
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from iree.compiler import ir  # noqa: E402

from mltune.frontend.one_op_elementwise import (  # noqa: E402
    BIAS_ADD,
    BIAS_GELU,
    BIAS_SILU,
    Operand,
    elementwise_model,
    gather_body,
)
from mltune.system.tools import tool_path  # noqa: E402
from mltune.targets import parse_target  # noqa: E402


MODELS = {
    "bert_b8_heads_bias": elementwise_model(
        [Operand("d0, d1, d2", "tensor<12x4096x64xf32>"), Operand("d0, d2", "tensor<12x64xf32>")],
        Operand("d1, d0, d2", "tensor<4096x12x64xf32>"),
        BIAS_ADD,
    ),
    "bert_b8_mlp_gelu": elementwise_model(
        [Operand("d0, d1", "tensor<4096x3072xf32>"), Operand("d1", "tensor<3072xf32>")],
        Operand("d0, d1", "tensor<4096x3072xf32>"),
        BIAS_GELU,
    ),
    "bert_b8_bias_transposed": elementwise_model(
        [Operand("d0, d1", "tensor<4096x768xf32>"), Operand("d1", "tensor<768xf32>")],
        Operand("d1, d0", "tensor<768x4096xf32>"),
        BIAS_ADD,
    ),
    "bert_b8_embedding": elementwise_model(
        [Operand("d0", "tensor<4096xi64>"), Operand("d0, d1", "tensor<4096x768xf32>")],
        Operand("d0, d1", "tensor<4096x768xf32>"),
        gather_body("tensor<30522x768xf32>"),
        "tensor<30522x768xf32>",
    ),
    "sd_unet_silu": elementwise_model(
        [Operand("d0, d1, d2, d3", "tensor<2x320x64x64xf32>"), Operand("d1", "tensor<320xf32>")],
        Operand("d0, d1, d2, d3", "tensor<2x320x64x64xf32>"),
        BIAS_SILU,
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default="sm_90")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    target = parse_target(args.target, probe=False)
    args.out.mkdir(parents=True, exist_ok=True)
    context = ir.Context()
    for name, text in MODELS.items():
        with tempfile.TemporaryDirectory() as tmp:
            source = Path(tmp) / f"{name}.mlir"
            source.write_text(text)
            prepared = target.prepare_source(source, Path(tmp), context)
            subprocess.run(
                [
                    tool_path("iree-compile"),
                    str(prepared),
                    *target.compile_flags(),
                    "--iree-codegen-add-tuner-attributes",
                    f"--iree-hal-dump-executable-benchmarks-to={tmp}/d",
                    "-o",
                    f"{tmp}/m.vmfb",
                ],
                check=True,
            )
            (bench,) = Path(tmp, "d").glob("*_benchmark.mlir")
            shutil.copy(bench, args.out / f"{name}.mlir")
            print(name, "->", args.out / f"{name}.mlir")


if __name__ == "__main__":
    main()
