"""Batch-1 convolutions as vision models hold them, on llvm-cpu: mltune's best within a budget against IREE's default.

For each shape (a ResNet-50 3x3 and 7x7 stride-2 stem as PyTorch exports them, NCHW; a MobileNet depthwise 3x3,
NHWC; a ResNet-50 stride-2 3x3 with `--only`): IREE's default configuration is read from the dispatch, the
heuristic's first BUDGET candidates and shuffle's (seed 0) first BUDGET are compiled with plain `iree-compile` and
the candidate's tuning spec, and each build is timed once with `iree-benchmark-module` (fastest of 5 repetitions of
>= 0.1 s, splat inputs), IREE's default timed again after every 10. The best build of each order is then timed
again, interleaved with IREE's default, for ROUNDS rounds: the ratio is the median per-round default / best (> 1:
faster). The position is the 1-based place, in each order, of the first candidate within 5 % of the best time of
all builds timed. Compiling (all shapes first) holds `--lock` shared, timing (all shapes) holds it exclusively.

    python benchmarks/cpu/cpu_convolutions.py [--budget 30] [--rounds 5] [--lock /tmp/mltune-cpu.lock] [--jobs 2]
                                          [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from measure_lock import held
from whole_models.tune_examples import CPU_FLAGS, benchmark_ms

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from iree.compiler import ir  # noqa: E402
from iree.compiler.dialects import iree_codegen  # noqa: E402

from mltune.emit.spec import build_spec  # noqa: E402
from mltune.execution.build import COMPILE_TIMEOUT_S  # noqa: E402
from mltune.frontend.mlir import parse_module_file  # noqa: E402
from mltune.frontend.one_op_model import convolution_model  # noqa: E402
from mltune.frontend.problem import ELEMENTWISE, Problem  # noqa: E402
from mltune.frontend.root_ops import read_root_ops  # noqa: E402
from mltune.learn.scoring import first_near_optimal  # noqa: E402
from mltune.rankers import RankingInput, make_ranker  # noqa: E402
from mltune.spaces.cpu_convolution import CpuConvolution, knobs_of_levels  # noqa: E402
from mltune.system.tools import run_tool  # noqa: E402
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


def compile_to(model: Path, out: Path, *flags: str) -> bool:
    """Whether the build compiled; one that runs past mltune's compile timeout is killed, with the compiler process
    the `iree-compile` wrapper started, and counts as failed (`iree-compile` sometimes waits on a futex for good
    without using the CPU)."""
    return run_tool(["iree-compile", str(model), *CPU_FLAGS, *flags, "-o", str(out)], COMPILE_TIMEOUT_S).ok


def dispatch(model: Path, work: Path, context: ir.Context, configurator=CpuConvolution, knobs_of=knobs_of_levels):
    """The problem, target facts, configurator and IREE's default knobs of the model's one problem (one or several
    dispatches of it: a layer norm's mean and variance are one problem)."""
    bench_dir = work / "bench"
    assert compile_to(
        model,
        work / "dump.vmfb",
        "--iree-codegen-add-tuner-attributes",
        f"--iree-hal-dump-executable-benchmarks-to={bench_dir}",
    )
    found = {}
    for bench in sorted(bench_dir.glob("*.mlir")):
        module = parse_module_file(bench, context)
        with context:
            (problem,) = read_root_ops(module)
            if not isinstance(problem, Problem) or problem.op_kind == ELEMENTWISE:  # an elementwise producer's dispatch
                continue
            variant = iree_codegen.get_executable_variant_ops(module)[0]
            cpu = CpuInfo.from_executable_target(str(variant.attributes["target"]))
            (root,) = iree_codegen.get_tuner_root_ops(module)
            found.setdefault(problem.key, (problem, cpu, str(root.attributes["lowering_config"])))
    assert len(found) == 1, f"one problem expected, found {sorted(found)}"
    ((problem, cpu, text),) = found.values()
    levels = {
        name: [int(v) for v in values.split(",") if v.strip()]
        for name, values in re.findall(r"(\w+) = \[([^\]]*)\]", text)
    }
    return problem, cpu, configurator(problem, cpu, context), knobs_of(problem, levels)


def first(ranker: str, problem, cpu, candidates, budget: int) -> list[int]:
    chosen = make_ranker(ranker, 0)
    chosen.start(RankingInput(problem, cpu, candidates))
    return [int(i) for i in chosen.ask(budget)]


@dataclass
class Study:
    """One shape's builds (compiled), then its times (measured)."""

    name: str
    space: int
    orders: dict[str, list[int]]  # ranker: its first BUDGET candidates
    default_place: dict[str, int | str]  # ranker: IREE default's place in its list, "-" if absent
    inputs: Path
    default: Path
    builds: dict[int, Path]  # candidate: its module (the ones that compiled)
    knobs: dict[int, dict[str, int]]  # candidate: its knobs
    times: dict[int, float] = field(default_factory=dict)  # screening, ms (inf: did not compile)
    screening_defaults: list[float] = field(default_factory=list)
    again: dict[str, list[float]] = field(default_factory=dict)  # default and each ranker's best, per round


def build(name: str, budget: int, jobs: int, work: Path, context: ir.Context) -> Study:
    """Compile IREE's default build and each ranker's first `budget` candidates of one shape."""
    op, image, weights, result, stride = SHAPES[name]
    return build_study(
        name,
        convolution_model(op, image, weights, result, stride),
        (image, weights),
        dispatch,
        budget,
        jobs,
        work,
        context,
    )


def build_study(
    name: str, source: str, input_shapes, read_dispatch, budget: int, jobs: int, work: Path, context: ir.Context
) -> Study:
    """Compile IREE's default build of `source` (f32 splat inputs of `input_shapes`) and each ranker's first
    `budget` candidates of its one problem (`read_dispatch(model, work, context)`: problem, target, configurator,
    IREE's default knobs)."""
    work.mkdir()
    model, inputs = work / "model.mlir", work / "inputs.flags"
    model.write_text(source)
    inputs.write_text("".join(f"--input={'x'.join(map(str, shape))}xf32=1\n" for shape in input_shapes))
    problem, cpu, configurator, default_knobs = read_dispatch(model, work, context)
    candidates = configurator.candidates()
    orders = {ranker: first(ranker, problem, cpu, candidates, budget) for ranker in ("heuristic", "shuffle")}
    default_index = candidates.index_of(default_knobs)
    place = {
        ranker: order.index(default_index) + 1 if default_index in order else "-" for ranker, order in orders.items()
    }
    default = work / "default.vmfb"
    assert compile_to(model, default)
    pool = list(dict.fromkeys(orders["heuristic"] + orders["shuffle"]))
    for index in pool:
        info = configurator.compilation_info(candidates.knobs(index))
        (work / f"{index}.spec.mlir").write_text(build_spec(problem, info, context))
    compiled = Parallel(n_jobs=jobs, prefer="threads")(
        delayed(compile_to)(model, work / f"{index}.vmfb", f"--iree-codegen-tuning-spec-path={work}/{index}.spec.mlir")
        for index in pool
    )
    builds = {index: work / f"{index}.vmfb" for index, ok in zip(pool, compiled) if ok}
    knobs = {index: candidates.knobs(index) for index in pool}
    return Study(
        name, len(candidates), orders, place, inputs, default, builds, knobs, {index: float("inf") for index in pool}
    )


def runs_ms(vmfb: Path, inputs: Path) -> float:
    """`benchmark_ms`, or infinity for a build that compiled but fails when it runs."""
    try:
        return benchmark_ms(vmfb, inputs)
    except subprocess.CalledProcessError:
        return float("inf")


def measure(study: Study, rounds: int) -> None:
    """Every build once (IREE's default again after every 10), then each ranker's best against the default."""
    study.screening_defaults.append(benchmark_ms(study.default, study.inputs))
    for count, (index, vmfb) in enumerate(study.builds.items(), 1):
        study.times[index] = runs_ms(vmfb, study.inputs)
        if count % 10 == 0:
            study.screening_defaults.append(benchmark_ms(study.default, study.inputs))
    best = {ranker: min(order, key=study.times.__getitem__) for ranker, order in study.orders.items()}
    study.again = {"default": [], **{ranker: [] for ranker in best}}
    for _ in range(rounds):
        study.again["default"].append(benchmark_ms(study.default, study.inputs))
        for ranker, index in best.items():
            study.again[ranker].append(benchmark_ms(study.builds[index], study.inputs))


def row(study: Study, budget: int) -> str:
    pool = list(study.times)
    measured = np.asarray([study.times[i] for i in pool])
    near = measured <= (1 + TOLERANCE) * measured.min()
    position = {
        ranker: first_near_optimal(measured, [pool.index(i) for i in order], TOLERANCE)
        if near[[pool.index(i) for i in order]].any()
        else f">{budget}"
        for ranker, order in study.orders.items()
    }
    again = study.again
    ratio = {
        ranker: statistics.median(d / t for d, t in zip(again["default"], again[ranker])) for ranker in study.orders
    }
    spread = {key: f"{statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f})" for key, v in again.items()}
    screening = study.screening_defaults
    failed = sum(study.times[i] == float("inf") for i in study.builds)
    return (
        f"| {study.name} | {study.space} | {len(study.builds)}/{len(study.times)} ({failed} fail to run) "
        f"| {spread['default']} "
        f"| {spread['heuristic']} | {ratio['heuristic']:.2f}x | {position['heuristic']} "
        f"| {spread['shuffle']} | {ratio['shuffle']:.2f}x | {position['shuffle']} "
        f"| {min(screening):.3f}-{max(screening):.3f} "
        f"| {study.default_place['heuristic']} / {study.default_place['shuffle']} |"
    )


def main() -> int:
    return study_main(__doc__, list(SHAPES), DEFAULT_ONLY, build)


def study_main(doc: str, shapes: list[str], default_only, build_shape) -> int:
    """Parse the command line, build every shape asked for (`build_shape`, as `build`), time them, print the table."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--budget", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lock", type=Path, default=None, help="flock(1) lock: shared to compile, exclusive to time")
    parser.add_argument("--only", nargs="*", default=list(default_only), choices=shapes)
    parser.add_argument("--jobs", type=int, default=2, help="parallel compiles")
    parser.add_argument("--details", type=Path, default=None, help="write every candidate's knobs and time (JSON)")
    args = parser.parse_args()
    context = ir.Context()
    with tempfile.TemporaryDirectory(prefix="mltune-study-") as work:
        with held(args.lock, shared=True):
            studies = [build_shape(name, args.budget, args.jobs, Path(work) / name, context) for name in args.only]
        with held(args.lock):
            print("load average before timing: %.2f %.2f %.2f" % os.getloadavg(), flush=True)
            for study in studies:
                measure(study, args.rounds)
            print("load average after timing: %.2f %.2f %.2f" % os.getloadavg())
    print(
        "| shape | space | compiled (of those, failing at run time) | default ms median (min-max) | heuristic best ms | default / heuristic "
        "| heuristic first within 5 % | shuffle best ms | default / shuffle | shuffle first within 5 % "
        "| default ms during screening | IREE default's place (heuristic / shuffle) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for study in studies:
        print(row(study, args.budget))
    if args.details:
        args.details.write_text(
            json.dumps(
                {
                    study.name: {
                        "orders": study.orders,
                        "screening_default_ms": study.screening_defaults,
                        "candidates": [
                            {"index": i, "knobs": study.knobs[i], "ms": study.times[i]} for i in study.times
                        ],
                    }
                    for study in studies
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
