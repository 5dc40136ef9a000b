"""Does IREE's default GPU build compute ResNet-50's strided 1x1 projections right? One op each, against llvm-cpu.

ResNet-50 exported in f16 runs wrong on an H100 with IREE 3.13's default sm_90 build (error RMS 0.90 of the outputs',
docs/evaluation/sm_90/f16_scale/README.md). 98 % of its time is in three strided 1x1 projections, which IREE configures
as reductions (`VectorDistribute`, 32 threads) and runs in 13-17 ms. This script builds each projection alone as the
exporter writes it (`linalg.conv_2d_nchw_fchw`, stride 2, f16 operands, f32 accumulation, the result truncated to f16, a
ReLU before it), with plain `iree-compile` for the host CPU and for each GPU target (sm_90: the target attribute mltune
writes, `mltune.targets.gpu`; others: `--iree-cuda-target`), runs each with `iree-run-module` on the same seeded inputs
and compares with the host's outputs: mltune's tolerance (`mltune.whole_model.numerics.compare`) and the error's RMS
relative to the outputs'. A wrong projection here is a small reproducer; a right one points at the model's other
dispatches.

    python benchmarks/gpu/strided_projection_numerics.py [--device cuda://0] [--targets sm_90,sm_80] [--work DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mltune.frontend.mlir import new_context  # noqa: E402
from mltune.whole_model.host_reference import relative_error  # noqa: E402
from mltune.whole_model.numerics import compare  # noqa: E402
from mltune.system.tools import tool_path  # noqa: E402
from mltune.targets import CpuTarget, parse_target  # noqa: E402

# (input channels, input height = width, output channels): ResNet-50's three downsampling projections
PROJECTIONS = ((256, 56, 512), (512, 28, 1024), (1024, 14, 2048))


def projection_source(channels: int, size: int, filters: int, stride: int = 2) -> str:
    """The strided 1x1 convolution as a PyTorch export lowers it (batch 1, NCHW, f32 accumulation), fed by a ReLU as
    in the model: fed by a function argument, IREE slices the strided input into a dispatch of its own and
    configures the convolution as a matmul, not as the model's reduction."""
    out = (size - 1) // stride + 1
    x, w = f"tensor<1x{channels}x{size}x{size}xf16>", f"tensor<{filters}x{channels}x1x1xf16>"
    acc, res = f"tensor<1x{filters}x{out}x{out}xf32>", f"tensor<1x{filters}x{out}x{out}xf16>"
    identity = "affine_map<(n, f, i, j) -> (n, f, i, j)>"
    parallel = 'iterator_types = ["parallel", "parallel", "parallel", "parallel"]'
    return f"""func.func @main(%x: {x}, %w: {w}) -> {res} {{
  %zero = arith.constant 0.0 : f32
  %zero_h = arith.constant 0.0 : f16
  %xe = tensor.empty() : {x}
  %relu = linalg.generic {{indexing_maps = [{identity}, {identity}], {parallel}}} ins(%x : {x}) outs(%xe : {x}) {{
  ^bb0(%a: f16, %o: f16):
    %m = arith.maximumf %a, %zero_h : f16
    linalg.yield %m : f16
  }} -> {x}
  %e = tensor.empty() : {acc}
  %acc = linalg.fill ins(%zero : f32) outs(%e : {acc}) -> {acc}
  %c = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}}
      ins(%relu, %w : {x}, {w}) outs(%acc : {acc}) -> {acc}
  %h = tensor.empty() : {res}
  %r = linalg.generic {{indexing_maps = [{identity}, {identity}], {parallel}}} ins(%c : {acc}) outs(%h : {res}) {{
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  }} -> {res}
  return %r : {res}
}}
"""


def build(source: Path, target: str, out: Path) -> Path:
    """`source` compiled by plain `iree-compile` for `target` (`host`, or a CUDA architecture)."""
    if target == "host":
        flags = CpuTarget().compile_flags()
    else:
        gpu = parse_target(target)
        source = gpu.prepare_source(source, out.parent, new_context())
        flags = gpu.compile_flags()
    subprocess.run([tool_path("iree-compile"), str(source), *flags, "-o", str(out)], check=True)
    return out


def run(vmfb: Path, device: str, inputs: list[Path], out: Path) -> np.ndarray:
    subprocess.run(
        [
            tool_path("iree-run-module"),
            f"--module={vmfb}",
            f"--device={device}",
            "--function=main",
            *(f"--input=@{i}" for i in inputs),
            f"--output=@{out}",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return np.load(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda://0")
    parser.add_argument("--targets", default="sm_90,sm_80", help="GPU targets, comma-separated")
    parser.add_argument("--work", type=Path, default=None, help="keep the sources, modules and outputs here")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="projections_"))
    work.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)  # seeded inputs: activations ~ N(0, 1), weights ~ N(0, 1 / channels)
    print("| projection | target | error RMS / outputs' RMS | mltune's tolerance |\n| --- | --- | --- | --- |")
    for channels, size, filters in PROJECTIONS:
        name = f"{size // 2}x{size // 2}x{filters}x{channels}_s2"
        folder = work / name
        folder.mkdir(exist_ok=True)
        source = folder / "projection.mlir"
        source.write_text(projection_source(channels, size, filters))
        inputs = [folder / "x.npy", folder / "w.npy"]
        np.save(inputs[0], rng.normal(size=(1, channels, size, size)).astype(np.float16))
        np.save(inputs[1], (rng.normal(size=(filters, channels, 1, 1)) / np.sqrt(channels)).astype(np.float16))
        reference = run(build(source, "host", folder / "host.vmfb"), "local-task", inputs, folder / "host.npy")
        for target in args.targets.split(","):
            got = run(build(source, target, folder / f"{target}.vmfb"), args.device, inputs, folder / f"{target}.npy")
            verdict = compare([reference], [got])
            print(
                f"| {name} | {target} | {relative_error(reference, got):.2e} | "
                f"{'agrees' if verdict.ok else 'DIFFERS: ' + verdict.detail} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
