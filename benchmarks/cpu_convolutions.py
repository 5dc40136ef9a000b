"""Batch-1 convolutions as vision models hold them, on llvm-cpu: mltune's best within a budget against IREE's default.

For each shape (a ResNet-50 3x3 and 7x7 stride-2 stem as PyTorch exports them, NCHW; a MobileNet depthwise 3x3,
NHWC; a ResNet-50 stride-2 3x3 with `--only`): IREE's default configuration is read from the dispatch, the
heuristic's first BUDGET candidates and shuffle's (seed 0) first BUDGET are compiled with plain `iree-compile` and
the candidate's tuning spec, and each build is timed once with `iree-benchmark-module` (fastest of 5 repetitions of
>= 0.1 s, splat inputs), IREE's default timed again after every 10. The best build of each order is then timed
again, interleaved with IREE's default, for ROUNDS rounds: the ratio is the median per-round default / best (> 1:
faster). The position is the 1-based place, in each order, of the first candidate within 5 % of the best time of
all builds timed. Compiling holds `--lock` shared, timing holds it exclusively.

    python benchmarks/cpu_convolutions.py [--budget 30] [--rounds 5] [--lock /tmp/mltune-cpu.lock] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from measure_lock import held
from tune_examples import CPU_FLAGS, benchmark_ms

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from iree.compiler import ir  # noqa: E402
from iree.compiler.dialects import iree_codegen  # noqa: E402

from mltune.emit.spec import build_spec  # noqa: E402
from mltune.evaluate import first_near_optimal  # noqa: E402
from mltune.mlir import parse_module_file  # noqa: E402
from mltune.problem import read_root_ops  # noqa: E402
from mltune.rankers import RankingInput, make_ranker  # noqa: E402
from mltune.spaces.cpu_convolution import CpuConvolution, knobs_of_levels  # noqa: E402
from mltune.targets.cpu import CpuInfo  # noqa: E402

TOLERANCE = 0.05
NCHW, DEPTHWISE = "linalg.conv_2d_nchw_fchw", "linalg.depthwise_conv_2d_nhwc_hwc"
SHAPES = {  # name: (named op, input, filter, output, stride); inputs pre-padded, as the dispatch reads them
    "resnet50_3x3_56x56x64_nchw": (NCHW, (1, 64, 58, 58), (64, 64, 3, 3), (1, 64, 56, 56), 1),
    "resnet50_stem_7x7s2_nchw": (NCHW, (1, 3, 230, 230), (64, 3, 7, 7), (1, 64, 112, 112), 2),
    "mobilenet_dw3x3_112x112x32_nhwc": (DEPTHWISE, (1, 114, 114, 32), (3, 3, 32), (1, 112, 112, 32), 1),
    "resnet50_3x3s2_28x28x128_nchw": (NCHW, (1, 128, 57, 57), (128, 128, 3, 3), (1, 128, 28, 28), 2),
}
DEFAULT_ONLY = tuple(list(SHAPES)[:3])


def source(op: str, image: tuple, weights: tuple, result: tuple, stride: int) -> str:
    x, k, o = (f"tensor<{'x'.join(map(str, shape))}xf32>" for shape in (image, weights, result))
    return f"""func.func @main(%x: {x}, %w: {k}) -> {o} {{
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : {o}
  %acc = linalg.fill ins(%zero : f32) outs(%empty : {o}) -> {o}
  %r = {op} {{dilations = dense<1> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}} ins(%x, %w : {x}, {k}) outs(%acc : {o}) -> {o}
  return %r : {o}
}}
"""


def compile_to(model: Path, out: Path, *flags: str) -> bool:
    done = subprocess.run(["iree-compile", str(model), *CPU_FLAGS, *flags, "-o", str(out)], capture_output=True,
                          text=True)
    return done.returncode == 0


def dispatch(model: Path, work: Path, context: ir.Context):
    """The problem, target facts, configurator and IREE's default knobs of the model's one dispatch."""
    bench_dir = work / "bench"
    assert compile_to(model, work / "dump.vmfb", "--iree-codegen-add-tuner-attributes",
                      f"--iree-hal-dump-executable-benchmarks-to={bench_dir}")
    (bench,) = bench_dir.glob("*.mlir")
    module = parse_module_file(bench, context)
    with context:
        (problem,) = read_root_ops(module)
        variant = iree_codegen.get_executable_variant_ops(module)[0]
        cpu = CpuInfo.from_executable_target(str(variant.attributes["target"]))
        (root,) = iree_codegen.get_tuner_root_ops(module)
        text = str(root.attributes["lowering_config"])
    levels = {name: [int(v) for v in values.split(",") if v.strip()] for name, values in
              re.findall(r"(\w+) = \[([^\]]*)\]", text)}
    configurator = CpuConvolution(problem, cpu, context)
    return problem, cpu, configurator, knobs_of_levels(problem, levels)


def first(ranker: str, problem, cpu, candidates, budget: int) -> list[int]:
    chosen = make_ranker(ranker, 0)
    chosen.start(RankingInput(problem, cpu, candidates))
    return [int(i) for i in chosen.ask(budget)]


def study(name: str, budget: int, rounds: int, lock: Path | None, work: Path, context: ir.Context) -> str:
    op, image, weights, result, stride = SHAPES[name]
    work.mkdir()
    model, inputs = work / "model.mlir", work / "inputs.flags"
    model.write_text(source(op, image, weights, result, stride))
    inputs.write_text("".join(f"--input={'x'.join(map(str, shape))}xf32=1\n" for shape in (image, weights)))
    with held(lock, shared=True):
        problem, cpu, configurator, default_knobs = dispatch(model, work, context)
        candidates = configurator.candidates()
        orders = {ranker: first(ranker, problem, cpu, candidates, budget) for ranker in ("heuristic", "shuffle")}
        default = work / "default.vmfb"
        assert compile_to(model, default)
        builds: dict[int, Path] = {}
        for index in dict.fromkeys(orders["heuristic"] + orders["shuffle"]):
            spec, vmfb = work / f"{index}.spec.mlir", work / f"{index}.vmfb"
            spec.write_text(build_spec(problem, configurator.compilation_info(candidates.knobs(index)), context))
            if compile_to(model, vmfb, f"--iree-codegen-tuning-spec-path={spec}"):
                builds[index] = vmfb
    with held(lock):
        times = {index: float("inf") for index in dict.fromkeys(orders["heuristic"] + orders["shuffle"])}
        defaults = [benchmark_ms(default, inputs)]
        for count, (index, vmfb) in enumerate(builds.items(), 1):
            times[index] = benchmark_ms(vmfb, inputs)
            if count % 10 == 0:
                defaults.append(benchmark_ms(default, inputs))
        best = {ranker: min(order, key=times.__getitem__) for ranker, order in orders.items()}
        again: dict[str, list[float]] = {"default": [], **{ranker: [] for ranker in best}}
        for _ in range(rounds):
            again["default"].append(benchmark_ms(default, inputs))
            for ranker, index in best.items():
                again[ranker].append(benchmark_ms(builds[index], inputs))
    pool = list(times)
    measured = [times[i] for i in pool]
    position = {ranker: first_near_optimal(np.asarray(measured), [pool.index(i) for i in order], TOLERANCE)
                if any(times[i] <= (1 + TOLERANCE) * min(measured) for i in order) else f">{budget}"
                for ranker, order in orders.items()}
    ratio = {ranker: statistics.median(d / t for d, t in zip(again["default"], again[ranker])) for ranker in best}
    default_index = candidates.index_of(default_knobs)
    in_lists = {ranker: (orders[ranker].index(default_index) + 1 if default_index in orders[ranker] else "-")
                for ranker in orders}
    spread = {key: f"{statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f})" for key, v in again.items()}
    return (f"| {name} | {len(candidates)} | {len(builds)}/{len(times)} | {spread['default']} "
            f"| {spread['heuristic']} | {ratio['heuristic']:.2f}x | {position['heuristic']} "
            f"| {spread['shuffle']} | {ratio['shuffle']:.2f}x | {position['shuffle']} "
            f"| {min(defaults):.3f}-{max(defaults):.3f} | {in_lists['heuristic']} / {in_lists['shuffle']} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lock", type=Path, default=None, help="flock(1) lock: shared to compile, exclusive to time")
    parser.add_argument("--only", nargs="*", default=list(DEFAULT_ONLY), choices=list(SHAPES))
    args = parser.parse_args()
    print("load average before: %.2f %.2f %.2f" % os.getloadavg())
    print("| shape | space | compiled | default ms median (min-max) | heuristic best ms | default / heuristic "
          "| heuristic first within 5 % | shuffle best ms | default / shuffle | shuffle first within 5 % "
          "| default ms during screening | IREE default's place (heuristic / shuffle) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    context = ir.Context()
    with tempfile.TemporaryDirectory(prefix="mltune-conv-study-") as work:
        for name in args.only:
            print(study(name, args.budget, args.rounds, args.lock, Path(work) / name, context), flush=True)
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
