"""Re-time one dispatch's screen of a finished `mltune tune` run: the candidates its dump screen measured, in the
same order, screened again on the dispatch's dump by the screen stage as a run screens them (default plans).

Printed: how many candidates took effect (a build unlike IREE's default build of the dump) and how many distinct
builds they gave, each candidate's screened speedup with its interval, and the load around the measurement. A run
whose spec matched nothing in the dump (ResNet-50's strided projections before `mltune.emit.sliced`) had every
candidate built to the default, byte for byte.

    PYTHONPATH=. python benchmarks/whole_models/rescreen_dispatch.py RUN_DIR 'main$async_dispatch_15_embedded_elf_x86_64' \\
        --work /tmp/rescreen --lock /tmp/mltune-cpu.lock
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers
from measure_lock import held

from iree.compiler.dialects import iree_codegen

from mltune.frontend.mlir import new_context, parse_module_file
from mltune.frontend.problem import Problem
from mltune.frontend.root_ops import read_root_ops
from mltune.records.dataset import Record, knobs_over, read_records
from mltune.input.dispatches import Dispatch
from mltune.search.loop import SearchTask
from mltune.search.settings import LoopSettings
from mltune.search.screen import ScreenedOrder, ScreenStage
from mltune.targets import facts_from_executable_target, parse_target
from mltune.tuning.prepare import configurators


def _dispatch(bench: Path, name: str, context) -> Dispatch:
    module = parse_module_file(bench, context)
    with context:
        facts = facts_from_executable_target(iree_codegen.get_executable_variant_ops(module)[0].attributes["target"])
        (problem,) = [p for p in read_root_ops(module) if isinstance(p, Problem)]
    return Dispatch(name, problem, facts, bench)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="a finished screened run's folder (`--run-dir`)")
    parser.add_argument("dispatch", help="the dispatch's name, as its screen folder is named")
    parser.add_argument("--work", type=Path, required=True, help="a new folder for the screen's builds")
    parser.add_argument("--lock", type=Path, default=None, help="flock file held while measuring")
    args = parser.parse_args()
    context = new_context()
    dispatch = _dispatch(args.run_dir / "dispatches" / f"module_{args.dispatch}_benchmark.mlir", args.dispatch, context)
    ((_, configurator),) = configurators([dispatch], context, args.work / "spaces")
    candidates = configurator.candidates()
    screened = sorted(
        (
            r
            for r in read_records(args.run_dir / "results.jsonl")
            if r.get("screen") == "dispatch" and Problem.from_record(r["problem"]).key == dispatch.problem.key
        ),
        key=lambda r: r["position"],
    )
    order = [candidates.index_of(knobs_over(r["knobs"], candidates.names)) for r in screened]
    records: list[Record] = []
    stage = ScreenStage(
        "dispatch",
        4,
        parse_target("host"),
        dispatch.facts,
        LoopSettings(budget=len(order)),
        context,
        records.append,
        {"arch": dispatch.facts.arch, "device": "rescreen", "run_id": "rescreen", "level": "model"},
        args.work / "screen",
        {dispatch.name: dispatch.bench},
        [],
        "rescreen",
        ("local-task",),
        2,
    )
    task = SearchTask(dispatch.name, dispatch.problem, configurator, ScreenedOrder(order, "recorded"), len(order))
    load = os.getloadavg()[0]
    with held(args.lock):
        (forwarded,) = stage.run([task])
    print(f"{dispatch.problem.key}: {len(order)} candidates re-screened; load {load:.2f} -> {os.getloadavg()[0]:.2f}")
    builds = args.work / "screen" / dispatch.name / "candidates"
    baseline = _sha256(builds / "baseline" / "module.vmfb")
    hashes = [_sha256(path) for path in sorted(builds.glob("*/candidate_*/module.vmfb"))]
    print(f"builds: {len(set(hashes))} distinct among {len(hashes)}, {hashes.count(baseline)} identical to the default")
    _, result = stage.screened[dispatch.name]
    for trial in result.trials:
        m = trial.measurement
        verdict = (
            f"{m.estimate.describe()}, median {median(m.time_us):.0f} us against {median(m.baseline_us):.0f} us"
            if m is not None and m.status == "ok"
            else trial.build.status
        )
        print(f"  {trial.position}: {verdict}  {trial.knobs}")
    measured = [t.measurement.ratio for t in result.trials if t.measurement and t.measurement.status == "ok"]
    if measured:
        print(f"best screened speedup {1 / min(measured):.2f}x; finalists forwarded {forwarded.ranker.finalists}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
