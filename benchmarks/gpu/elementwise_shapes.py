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

from mltune.system.tools import tool_path  # noqa: E402
from mltune.targets import parse_target  # noqa: E402


def generic(ins: list[tuple[str, str]], out: tuple[str, str], body: str, loops: int, captured: str = "") -> str:
    """`@main` of one `linalg.generic`: `ins` and `out` are (indexing map results, tensor type); `captured`: an
    argument the body reads without it being an operand (a gather's table)."""
    dims = ", ".join(f"d{i}" for i in range(loops))
    maps = ", ".join(f"affine_map<({dims}) -> ({results})>" for results, _ in [*ins, out])
    args = ", ".join([captured] * bool(captured) + [f"%a{i}: {kind}" for i, (_, kind) in enumerate(ins)])
    operands = ", ".join(f"%a{i}" for i in range(len(ins)))
    kinds = ", ".join(kind for _, kind in ins)
    iterators = ", ".join(['"parallel"'] * loops)
    return f"""func.func @main({args}) -> {out[1]} {{
  %e = tensor.empty() : {out[1]}
  %r = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{iterators}]}} ins({operands} : {kinds}) outs(%e : {out[1]}) {{
{body}
  }} -> {out[1]}
  return %r : {out[1]}
}}
"""


ADD = """  ^bb0(%x: f32, %b: f32, %o: f32):
    %y = arith.addf %x, %b : f32
    linalg.yield %y : f32"""
GELU = """  ^bb0(%x: f32, %b: f32, %o: f32):
    %h = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.constant 0.70710678 : f32
    %v = arith.addf %x, %b : f32
    %z = arith.mulf %v, %s : f32
    %f = math.erf %z : f32
    %p = arith.addf %f, %one : f32
    %q = arith.mulf %p, %h : f32
    %y = arith.mulf %q, %v : f32
    linalg.yield %y : f32"""
SILU = """  ^bb0(%x: f32, %b: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %v = arith.addf %x, %b : f32
    %n = arith.negf %v : f32
    %x2 = math.exp %n : f32
    %d = arith.addf %x2, %one : f32
    %y = arith.divf %v, %d : f32
    linalg.yield %y : f32"""
GATHER = """  ^bb0(%id: i64, %p: f32, %o: f32):
    %col = linalg.index 1 : index
    %row = arith.index_cast %id : i64 to index
    %w = tensor.extract %table[%row, %col] : tensor<30522x768xf32>
    %y = arith.addf %w, %p : f32
    linalg.yield %y : f32"""

MODELS = {
    "bert_b8_heads_bias": generic([("d0, d1, d2", "tensor<12x4096x64xf32>"), ("d0, d2", "tensor<12x64xf32>")],
                                  ("d1, d0, d2", "tensor<4096x12x64xf32>"), ADD, 3),
    "bert_b8_mlp_gelu": generic([("d0, d1", "tensor<4096x3072xf32>"), ("d1", "tensor<3072xf32>")],
                                ("d0, d1", "tensor<4096x3072xf32>"), GELU, 2),
    "bert_b8_bias_transposed": generic([("d0, d1", "tensor<4096x768xf32>"), ("d1", "tensor<768xf32>")],
                                       ("d1, d0", "tensor<768x4096xf32>"), ADD, 2),
    "bert_b8_embedding": generic([("d0", "tensor<4096xi64>"), ("d0, d1", "tensor<4096x768xf32>")],
                                 ("d0, d1", "tensor<4096x768xf32>"), GATHER, 2, "%table: tensor<30522x768xf32>"),
    "sd_unet_silu": generic([("d0, d1, d2, d3", "tensor<2x320x64x64xf32>"), ("d1", "tensor<320xf32>")],
                            ("d0, d1, d2, d3", "tensor<2x320x64x64xf32>"), SILU, 4),
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
            subprocess.run([tool_path("iree-compile"), str(prepared), *target.compile_flags(),
                            "--iree-codegen-add-tuner-attributes", f"--iree-hal-dump-executable-benchmarks-to={tmp}/d",
                            "-o", f"{tmp}/m.vmfb"], check=True)
            (bench,) = Path(tmp, "d").glob("*_benchmark.mlir")
            shutil.copy(bench, args.out / f"{name}.mlir")
            print(name, "->", args.out / f"{name}.mlir")


if __name__ == "__main__":
    main()
