"""`mltune tune`: from an input file to a tuning spec, a run directory and dataset records."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median

from iree.compiler import ir
from iree.compiler.dialects import iree_codegen

from mltune.dataset import Record, RecordWriter, device_id
from mltune.errors import UserError
from mltune.inputs import TuningInput, prepare_input
from mltune.mlir import parse_module_file
from mltune.problem import Problem, Untunable, read_root_ops
from mltune.rankers import make_ranker
from mltune.search.apply import make_applier
from mltune.search.build import Builder
from mltune.search.configure import make_configurator
from mltune.search.loop import DispatchResult, LoopSettings, TuningLoop
from mltune.search.devices import make_runner
from mltune.targets import Target, TargetFacts, facts_from_executable_target


@dataclass(frozen=True)
class TuneRequest:
    input_path: Path
    target: Target
    ranker: str
    settings: LoopSettings
    output: Path
    run_dir: Path
    dataset_dir: Path
    function: str | None = None
    seed: int = 0
    jobs: int = 2
    devices: tuple[str, ...] = ("local-task",)


@dataclass(frozen=True)
class Dispatch:
    name: str
    problem: Problem | Untunable
    facts: TargetFacts
    bench: Path


@dataclass
class TuneReport:
    """What a run found, for the final table and `summary.json`."""

    input_level: str  # model | dispatch
    baseline_us: float
    dispatches: list[Dispatch]
    results: list[DispatchResult]
    spec_path: Path | None
    requested_output: Path
    wall_seconds: float
    tool_seconds: float
    records_path: Path
    output_kind: str = "spec"  # spec | source (CUDA: the input annotated with the winners' compilation_info)

    @property
    def overhead_fraction(self) -> float:
        return max(0.0, self.wall_seconds - self.tool_seconds) / self.wall_seconds if self.wall_seconds else 0.0


def _dispatch_name(bench: Path) -> str:
    return bench.stem.removeprefix("module_").removesuffix("_benchmark")


def read_dispatches(tuning_input: TuningInput, context: ir.Context) -> list[Dispatch]:
    """The root op of every dumped dispatch, with the target facts from its executable target."""
    dispatches = []
    for bench in tuning_input.dispatch_files:
        module = parse_module_file(bench, context)
        with context:
            variants = iree_codegen.get_executable_variant_ops(module)
            if not variants:
                continue
            facts = facts_from_executable_target(variants[0].attributes["target"])
            roots = read_root_ops(module)
        if not roots:
            dispatches.append(Dispatch(_dispatch_name(bench), Untunable("(none)", "no root op marked"), facts, bench))
        dispatches.extend(Dispatch(_dispatch_name(bench), root, facts, bench) for root in roots)
    return dispatches


def check_target_matches(dispatches: list[Dispatch], target: Target) -> None:
    """A dumped dispatch carries its own target: it must be the kind `--target` names."""
    for dispatch in dispatches:
        if dispatch.facts.kind != target.kind:
            raise UserError(f"{dispatch.name} was compiled for {dispatch.facts.kind} ({dispatch.facts.arch}), "
                            f"not for --target {target.name} ({target.kind})")


def configurators(tunable: list[Dispatch], context: ir.Context, work_dir: Path):
    """Each distinct problem once (one spec matches every op equal to it), with its configurator."""
    seen: set[str] = set()
    for dispatch in tunable:
        problem = dispatch.problem
        assert isinstance(problem, Problem)
        if problem.key in seen:
            continue
        seen.add(problem.key)
        yield dispatch, make_configurator(problem, dispatch.facts, context, dispatch.bench, work_dir)


def _check_writable(path: Path) -> None:
    """Fail before any work if the spec cannot be written; leave no empty file behind."""
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a"):
            pass
    except OSError as err:
        raise UserError(f"cannot write {path}: {err.strerror}") from None
    if not existed:
        path.unlink()


def tune(request: TuneRequest, context: ir.Context) -> TuneReport:
    started = time.perf_counter()
    _check_writable(request.output)
    request.run_dir.mkdir(parents=True, exist_ok=True)
    tuning_input = prepare_input(request.input_path, request.target, request.run_dir, context, request.function, request.seed)
    dispatches = read_dispatches(tuning_input, context)
    check_target_matches(dispatches, request.target)
    tunable = [d for d in dispatches if isinstance(d.problem, Problem)]
    if not tunable:
        reasons = "; ".join(f"{d.name}: {d.problem.reason}" for d in dispatches) or "no dispatches"
        raise UserError(f"nothing tunable in {request.input_path} ({reasons})")
    facts = tunable[0].facts
    make_ranker(request.ranker, request.seed, facts)  # a ranker missing its model for this target stops here
    builder = Builder(tuning_input, request.run_dir / "candidates", request.jobs)
    baseline = builder.compile(-1, None, "baseline")
    if baseline.status != "ok":
        raise UserError(f"the input does not compile without a spec: {baseline.detail}")
    runner = make_runner(tuning_input.invocation, request.devices, request.run_dir)
    level = "dispatch" if tuning_input.invocation.dispatch_level else "model"
    run_id = request.run_dir.name
    writers = [RecordWriter(request.dataset_dir / facts.arch / f"{run_id}.jsonl"), RecordWriter(request.run_dir / "results.jsonl")]

    def write(record: Record) -> None:
        for writer in writers:
            writer.append(record)

    record_fields = {"arch": facts.arch, "device": device_id(",".join(request.devices), facts.cores),
                     "run_id": run_id, "level": level}
    applier = make_applier(request.target.kind, tuning_input.source, context)
    loop = TuningLoop(builder, runner, baseline.vmfb, facts, applier, request.settings, context, write, record_fields)
    results: list[DispatchResult] = []
    try:
        for dispatch, configurator in configurators(tunable, context, request.run_dir / "spaces"):
            if isinstance(configurator, Untunable):
                dispatches[dispatches.index(dispatch)] = Dispatch(dispatch.name, configurator, dispatch.facts, dispatch.bench)
                continue
            assert isinstance(dispatch.problem, Problem)
            results.append(loop.tune(dispatch.name, dispatch.problem, configurator, make_ranker(request.ranker, request.seed)))
    finally:
        for writer in writers:
            writer.close()
    baseline_us = _baseline_us(results)
    winners = [(r.problem, r.winner[0].compilation_info) for r in results if r.winner]
    spec_path, output_kind = None, "spec"
    if winners:
        combined = applier.combine(winners, request.run_dir)
        for path in (request.output, request.run_dir / ("best_spec.mlir" if combined.kind == "spec" else "annotated.mlir")):
            path.write_text(combined.text)
        spec_path, output_kind = request.output, combined.kind
    wall = time.perf_counter() - started
    tool_seconds = baseline.seconds + loop.compile_seconds + runner.seconds_in_children
    report = TuneReport(level, baseline_us, dispatches, results, spec_path, request.output, wall, tool_seconds,
                        writers[0].path, output_kind)
    (request.run_dir / "summary.json").write_text(json.dumps(summary(report), indent=2))
    return report


def _baseline_us(results: list[DispatchResult]) -> float:
    samples = [b for r in results for t in r.trials if t.measurement for b in t.measurement.baseline_us]
    return median(samples) if samples else float("nan")


def summary(report: TuneReport) -> dict:
    """The run's outcome as plain data (written to `summary.json`)."""
    return {
        "level": report.input_level,
        "baseline_us": report.baseline_us,
        "spec": str(report.spec_path) if report.spec_path else None,
        "wall_seconds": round(report.wall_seconds, 2),
        "tuner_overhead_fraction": round(report.overhead_fraction, 4),
        "untunable": [{"dispatch": d.name, "op": d.problem.op_name, "reason": d.problem.reason}
                      for d in report.dispatches if isinstance(d.problem, Untunable)],
        "dispatches": [
            {
                "dispatch": r.name, "problem": r.problem.key, "candidates": r.candidates,
                "compiled": sum(1 for t in r.trials if t.build.status == "ok"), "tried": len(r.trials),
                "benchmarked": r.benchmarked, "stop_reason": r.stop_reason,
                "finalists": [{"knobs": t.knobs, "speedup": 1 / m.ratio if m.ratio else None} for t, m in r.finals],
                "winner": ({"knobs": r.winner[0].knobs, "speedup": 1 / r.winner[1].ratio} if r.winner else None),
            }
            for r in report.results
        ],
    }
