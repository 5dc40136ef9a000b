"""Reductions and normalisations as models hold them, on llvm-cpu: mltune's best within a budget against IREE's default.

For each shape (BERT-base / GPT-2 and ViT-B/16 layer norms, BERT-base's attention softmax as an unfused attention
has it, the ResNet-50 global mean pool; an RMS norm with `--only`): IREE's default configuration is read from the
dispatch, the heuristic's first BUDGET candidates and shuffle's (seed 0) first BUDGET are compiled with plain
`iree-compile` and the candidate's tuning spec, and each build is timed once with `iree-benchmark-module` (fastest
of 5 repetitions of >= 0.1 s, splat inputs), IREE's default timed again after every 10. The best build of each
order is then timed again, interleaved with IREE's default, for ROUNDS rounds: the ratio is the median per-round
default / best (> 1: faster). The position is the 1-based place, in each order, of the first candidate within 5 %
of the best time of all builds timed. Compiling holds `--lock` shared, timing holds it exclusively.
(`cpu_convolutions.py` does the same for convolutions; this script reuses its build list, timing and table.)

    python benchmarks/cpu_reductions.py [--budget 30] [--rounds 5] [--lock /tmp/mltune-cpu.lock] [--jobs 2]
                                        [--only NAME ...] [--details FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

from cpu_convolutions import Study, compile_to, first, measure, row
from joblib import Parallel, delayed
from measure_lock import held

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from iree.compiler import ir  # noqa: E402
from iree.compiler.dialects import iree_codegen  # noqa: E402

from mltune.emit.spec import build_spec  # noqa: E402
from mltune.mlir import parse_module_file  # noqa: E402
from mltune.one_op_reduction import ReductionShape, reduction_model  # noqa: E402
from mltune.problem import read_root_ops  # noqa: E402
from mltune.spaces.cpu_reduction import CpuReduction, knobs_of_levels  # noqa: E402
from mltune.targets.cpu import CpuInfo  # noqa: E402

SHAPES = {
    "bert_base_layernorm_128x768": ReductionShape("layernorm", (128, 768)),
    "vit_b16_layernorm_197x768": ReductionShape("layernorm", (197, 768)),
    "bert_base_softmax_12x128x128": ReductionShape("softmax", (12, 128, 128)),
    "resnet50_meanpool_2048x7x7": ReductionShape("meanpool", (1, 2048, 7, 7)),
    "llama_rmsnorm_128x4096": ReductionShape("rmsnorm", (128, 4096)),
}
DEFAULT_ONLY = tuple(list(SHAPES)[:4])


def dispatch(model: Path, work: Path, context: ir.Context):
    """The problem, target facts, configurator and IREE's default knobs of the model's reduction (a layer norm's two
    dispatches are one problem: one spec configures both)."""
    bench_dir = work / "bench"
    assert compile_to(model, work / "dump.vmfb", "--iree-codegen-add-tuner-attributes",
                      f"--iree-hal-dump-executable-benchmarks-to={bench_dir}")
    found = {}
    for bench in sorted(bench_dir.glob("*.mlir")):
        module = parse_module_file(bench, context)
        with context:
            (problem,) = read_root_ops(module)
            variant = iree_codegen.get_executable_variant_ops(module)[0]
            cpu = CpuInfo.from_executable_target(str(variant.attributes["target"]))
            (root,) = iree_codegen.get_tuner_root_ops(module)
            found.setdefault(problem.key, (problem, cpu, str(root.attributes["lowering_config"])))
    assert len(found) == 1, f"one reduction problem expected, found {sorted(found)}"
    ((problem, cpu, text),) = found.values()
    levels = {name: [int(v) for v in values.split(",") if v.strip()] for name, values in
              re.findall(r"(\w+) = \[([^\]]*)\]", text)}
    return problem, cpu, CpuReduction(problem, cpu, context), knobs_of_levels(problem, levels)


def build(name: str, budget: int, jobs: int, work: Path, context: ir.Context) -> Study:
    """Compile IREE's default build and each ranker's first `budget` candidates of one shape."""
    shape = SHAPES[name]
    work.mkdir()
    model, inputs = work / "model.mlir", work / "inputs.flags"
    model.write_text(reduction_model(shape))
    inputs.write_text("".join(f"--input={'x'.join(map(str, dims))}xf32=1\n" for dims in shape.inputs))
    problem, cpu, configurator, default_knobs = dispatch(model, work, context)
    candidates = configurator.candidates()
    orders = {ranker: first(ranker, problem, cpu, candidates, budget) for ranker in ("heuristic", "shuffle")}
    default_index = candidates.index_of(default_knobs)
    place = {ranker: order.index(default_index) + 1 if default_index in order else "-"
             for ranker, order in orders.items()}
    default = work / "default.vmfb"
    assert compile_to(model, default)
    pool = list(dict.fromkeys(orders["heuristic"] + orders["shuffle"]))
    for index in pool:
        info = configurator.compilation_info(candidates.knobs(index))
        (work / f"{index}.spec.mlir").write_text(build_spec(problem, info, context))
    compiled = Parallel(n_jobs=jobs, prefer="threads")(
        delayed(compile_to)(model, work / f"{index}.vmfb", f"--iree-codegen-tuning-spec-path={work}/{index}.spec.mlir")
        for index in pool)
    builds = {index: work / f"{index}.vmfb" for index, ok in zip(pool, compiled) if ok}
    knobs = {index: candidates.knobs(index) for index in pool}
    print(f"{name}: {problem.key}, {len(candidates)} candidates, IREE's default {default_knobs}", flush=True)
    return Study(name, len(candidates), orders, place, inputs, default, builds, knobs,
                 {index: float("inf") for index in pool})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lock", type=Path, default=None, help="flock(1) lock: shared to compile, exclusive to time")
    parser.add_argument("--only", nargs="*", default=list(DEFAULT_ONLY), choices=list(SHAPES))
    parser.add_argument("--jobs", type=int, default=2, help="parallel compiles")
    parser.add_argument("--details", type=Path, default=None, help="write every candidate's knobs and time (JSON)")
    args = parser.parse_args()
    context = ir.Context()
    with tempfile.TemporaryDirectory(prefix="mltune-reduction-study-") as work:
        with held(args.lock, shared=True):
            studies = [build(name, args.budget, args.jobs, Path(work) / name, context) for name in args.only]
        with held(args.lock):
            print("load average before timing: %.2f %.2f %.2f" % os.getloadavg(), flush=True)
            for study in studies:
                measure(study, args.rounds)
            print("load average after timing: %.2f %.2f %.2f" % os.getloadavg())
    print("| shape | space | compiled (of those, failing at run time) | default ms median (min-max) | heuristic best ms "
          "| default / heuristic | heuristic first within 5 % | shuffle best ms | default / shuffle "
          "| shuffle first within 5 % | default ms during screening | IREE default's place (heuristic / shuffle) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for study in studies:
        print(row(study, args.budget))
    if args.details:
        args.details.write_text(json.dumps({study.name: {
            "orders": study.orders, "screening_default_ms": study.screening_defaults,
            "candidates": [{"index": i, "knobs": study.knobs[i], "ms": study.times[i]} for i in study.times]}
            for study in studies}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
