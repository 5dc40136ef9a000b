"""What moving a model's inlined weights out of every build saves: compile seconds per build, inlined against split.

For each exported model (weights inlined, as iree-turbine writes them by default) this splits the weights once
(`mltune.whole_model.weights`), then compiles, in alternating order and `--repeats` times each, IREE's default build and
one tuning candidate (a spec for the model's first configurable dispatch, the heuristic's first pick), from the
model as given and from the split module. It also checks that the split changes nothing the tuner relies on:
both default builds run on the same input and their outputs are compared bit for bit, and the split default
build is timed against the inlined one with mltune's own timing worker (ratio ~1: the split build runs as fast).

    flock -x /tmp/mltune-cpu.lock python benchmarks/studies/whole_models/weights_split.py /work/exports/bert.mlir \
        /work/exports/resnet50.mlir [--repeats 3] [--work /tmp/weights-split]

An input `MODEL.input0.npy` beside a model (what `examples/export/export_models.py` writes) is used for the
numerics and the timing; without one those columns read n/a. The models' MLIR may be torch-dialect: only
iree-compile reads them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from iree.compiler import ir

from mltune.emit.apply import Applied, make_applier
from mltune.execution.build import Builder
from mltune.execution.measurement import TimingPlan
from mltune.execution.runner import Runner
from mltune.frontend.problem import Problem, Untunable
from mltune.input.dispatches import read_dispatches
from mltune.input.files import NUMPY_TYPES, InputFile
from mltune.input.tuning_input import Invocation, TuningInput
from mltune.rankers import RankingInput, make_ranker
from mltune.spaces.configure import make_configurator
from mltune.system.tools import run_tool, tool_path
from mltune.targets import CpuTarget
from mltune.whole_model import weights
from mltune.whole_model.numerics import compare, run_outputs

COMPILE_TIMEOUT_S = 900.0  # measured, not searched: a slow compile is a result here
PLAN = TimingPlan(rounds=5, min_calls=3, timeout_factor=60)  # a whole model's call takes up to a second here
TYPE_NAMES = {np.dtype(t).name: name for name, t in NUMPY_TYPES.items()}


@dataclass
class Row:
    model: str
    mlir_mb: float
    archive_mb: float = float("nan")
    split_s: float = float("nan")
    seconds: dict[str, list[float]] = field(default_factory=dict)  # build name -> seconds per repeat
    numerics: str = "n/a"
    runtime_ratio: str = "n/a"


def _invocation(model: Path) -> Invocation:
    """The model's `main` on its exported example input, if there is one beside it."""
    npy = model.with_name(f"{model.stem}.input0.npy")
    if not npy.is_file():
        return Invocation("main", (), False)
    values = np.load(npy)
    return Invocation("main", (InputFile(npy, tuple(values.shape), TYPE_NAMES[values.dtype.name]),), False)


def _candidate(split: TuningInput, work: Path, context: ir.Context) -> tuple[str, Applied]:
    """The heuristic ranker's first candidate (the first one a search compiles) for the first configurable
    dispatch, dumped from the split module."""
    dump = work / "dispatches"
    dump.mkdir(parents=True, exist_ok=True)
    result = run_tool(
        [
            tool_path("iree-compile"),
            str(split.source),
            *split.compile_flags,
            "--iree-codegen-add-tuner-attributes",
            f"--iree-hal-dump-executable-benchmarks-to={dump}",
            "-o",
            str(dump / "model.vmfb"),
        ],
        600,
    )
    if not result.ok:
        sys.exit(f"cannot dump {split.source}: {result.describe_failure()}")
    dumped = TuningInput(split.source, split.invocation, tuple(sorted(dump.glob("*_benchmark.mlir"))), ())
    for dispatch in read_dispatches(dumped, context):
        if not isinstance(dispatch.problem, Problem):
            continue
        configurator = make_configurator(dispatch.problem, dispatch.facts, context, dispatch.bench, work / "space")
        if isinstance(configurator, Untunable):
            continue
        candidates = configurator.candidates()
        ranker = make_ranker("heuristic", 0, dispatch.facts)
        ranker.start(RankingInput(dispatch.problem, dispatch.facts, candidates))
        info = configurator.compilation_info(candidates.knobs(ranker.ask(1)[0]))
        return dispatch.problem.key, make_applier("cpu", split.source, context).apply(dispatch.problem, info)
    sys.exit(f"{split.source}: no configurable dispatch")


def measure(model: Path, repeats: int, work: Path, context: ir.Context) -> Row:
    work.mkdir(parents=True, exist_ok=True)
    row = Row(model.name, model.stat().st_size / 1e6)
    inlined = TuningInput(model, _invocation(model), (), tuple(CpuTarget().compile_flags()))
    started = time.perf_counter()
    made = weights.split(inlined.source, inlined.compile_flags, work / "weights", 0, weights.MIN_CONSTANT_BYTES)
    row.split_s = time.perf_counter() - started
    if made is None:
        sys.exit(f"{model}: nothing to split")
    row.archive_mb = made.archive.path.stat().st_size / 1e6
    split = weights.compiled_from(inlined, made)
    key, candidate = _candidate(split, work, context)
    print(
        f"{model.name}: candidate for {key}; split in {row.split_s:.1f} s ({made.weight_bytes / 1e6:.0f} MB of "
        f"weights)",
        flush=True,
    )
    builders = {
        "inlined": Builder(inlined, work / "inlined", 1, COMPILE_TIMEOUT_S),
        "split": Builder(split, work / "split", 1, COMPILE_TIMEOUT_S),
    }
    builds = {}
    for repeat in range(repeats):
        order = ["inlined", "split"] if repeat % 2 == 0 else ["split", "inlined"]
        for what, applied in (("default", None), ("candidate", candidate)):
            for side in order:
                build = builders[side].compile(repeat, applied, f"{what}_{repeat}")
                if build.status != "ok":
                    sys.exit(f"{model.name}: {what} {side} did not compile: {build.detail}")
                row.seconds.setdefault(f"{what} {side}", []).append(build.seconds)
                builds[f"{what} {side}"] = build
                print(f"  {what:9} {side:7} {build.seconds:6.1f} s", flush=True)
    if inlined.invocation.inputs:
        reference = run_outputs(builds["default inlined"].vmfb, inlined.invocation, "local-task", work / "ref")
        got = run_outputs(builds["default split"].vmfb, split.invocation, "local-task", work / "got")
        identical = all(np.array_equal(a, b) for a, b in zip(reference, got))
        row.numerics = "identical" if identical else ("within tolerance" if compare(reference, got).ok else "DIFFER")
        (timed,) = Runner(split.invocation, "local-task", work).measure(
            builds["default inlined"].vmfb, [(0, builds["default split"].vmfb)], PLAN
        )
        ratios = timed.round_ratios
        row.runtime_ratio = (
            f"{statistics.median(ratios):.3f} [{min(ratios):.3f}-{max(ratios):.3f}]" if ratios else timed.detail
        )
    return row


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):6.1f} [{min(values):.1f}-{max(values):.1f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("/tmp/weights-split"))
    args = parser.parse_args()
    context = ir.Context()
    print(f"load before: {Path('/proc/loadavg').read_text().strip()}")
    rows = [measure(model, args.repeats, args.work / model.stem, context) for model in args.models]
    print(f"load after: {Path('/proc/loadavg').read_text().strip()}")
    print("\ncompile seconds per build, median [min-max] of", args.repeats)
    print(
        f"{'model':14} {'MLIR MB':>8} {'irpa MB':>8} {'split s':>7} | {'default inlined':>18} {'default split':>18} "
        f"{'ratio':>6} | {'cand. inlined':>18} {'cand. split':>18} {'ratio':>6} | numerics   runtime split/inlined"
    )
    for row in rows:
        s = row.seconds
        ratio = {
            w: statistics.median(s[f"{w} inlined"]) / statistics.median(s[f"{w} split"])
            for w in ("default", "candidate")
        }
        print(
            f"{row.model:14} {row.mlir_mb:8.1f} {row.archive_mb:8.1f} {row.split_s:7.1f} | "
            f"{_spread(s['default inlined']):>18} {_spread(s['default split']):>18} {ratio['default']:5.1f}x | "
            f"{_spread(s['candidate inlined']):>18} {_spread(s['candidate split']):>18} {ratio['candidate']:5.1f}x | "
            f"{row.numerics:10} {row.runtime_ratio}"
        )


if __name__ == "__main__":
    main()
