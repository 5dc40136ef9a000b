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
from mltune.search.build import Builder
from mltune.search.cpu_contraction import CpuContraction
from mltune.search.loop import DispatchResult, LoopSettings, TuningLoop
from mltune.search.run import Runner
from mltune.search.spec import link_specs
from mltune.targets.cpu import CpuInfo, CpuTarget


@dataclass(frozen=True)
class TuneRequest:
    input_path: Path
    target: CpuTarget
    ranker: str
    settings: LoopSettings
    output: Path
    run_dir: Path
    dataset_dir: Path
    function: str | None = None
    seed: int = 0
    jobs: int = 2


@dataclass(frozen=True)
class Dispatch:
    name: str
    problem: Problem | Untunable
    cpu: CpuInfo


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

    @property
    def overhead_fraction(self) -> float:
        return max(0.0, self.wall_seconds - self.tool_seconds) / self.wall_seconds if self.wall_seconds else 0.0


def _dispatch_name(bench: Path) -> str:
    return bench.stem.removeprefix("module_").removesuffix("_benchmark")


def read_dispatches(tuning_input: TuningInput, context: ir.Context) -> list[Dispatch]:
    """The root op of every dumped dispatch, with the CPU facts from its executable target."""
    dispatches = []
    for bench in tuning_input.dispatch_files:
        module = parse_module_file(bench, context)
        with context:
            variants = iree_codegen.get_executable_variant_ops(module)
            if not variants:
                continue
            cpu = CpuInfo.from_executable_target(str(variants[0].attributes["target"]))
            roots = read_root_ops(module)
        if not roots:
            dispatches.append(Dispatch(_dispatch_name(bench), Untunable("(none)", "no root op marked"), cpu))
        dispatches.extend(Dispatch(_dispatch_name(bench), root, cpu) for root in roots)
    return dispatches


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
    tunable = [d for d in dispatches if isinstance(d.problem, Problem)]
    if not tunable:
        reasons = "; ".join(f"{d.name}: {d.problem.reason}" for d in dispatches) or "no dispatches"
        raise UserError(f"nothing tunable in {request.input_path} ({reasons})")
    cpu = tunable[0].cpu
    make_ranker(request.ranker, request.seed, cpu)  # a ranker missing its model for this CPU stops here
    builder = Builder(tuning_input, request.run_dir / "candidates", request.jobs)
    baseline = builder.compile(-1, None, "baseline")
    if baseline.status != "ok":
        raise UserError(f"the input does not compile without a spec: {baseline.detail}")
    runner = Runner(tuning_input.invocation, request.target.runtime_device, request.run_dir)
    level = "dispatch" if tuning_input.invocation.dispatch_level else "model"
    run_id = request.run_dir.name
    writers = [RecordWriter(request.dataset_dir / cpu.arch / f"{run_id}.jsonl"), RecordWriter(request.run_dir / "results.jsonl")]

    def write(record: Record) -> None:
        for writer in writers:
            writer.append(record)

    record_fields = {"arch": cpu.arch, "device": device_id(request.target.runtime_device, cpu.cores),
                     "run_id": run_id, "level": level}
    loop = TuningLoop(builder, runner, baseline.vmfb, cpu, request.settings, context, write, record_fields)
    results: list[DispatchResult] = []
    seen: set[str] = set()
    try:
        for dispatch in tunable:
            problem = dispatch.problem
            assert isinstance(problem, Problem)
            if problem.key in seen:  # the same op twice: one spec matches both
                continue
            seen.add(problem.key)
            configurator = CpuContraction(problem, dispatch.cpu, context)
            results.append(loop.tune(dispatch.name, problem, configurator, make_ranker(request.ranker, request.seed)))
    finally:
        for writer in writers:
            writer.close()
    baseline_us = _baseline_us(results)
    winners = [r.winner[0].spec_text for r in results if r.winner]
    spec_path = None
    if winners:
        spec_text = link_specs(winners, context, request.run_dir)
        for path in (request.output, request.run_dir / "best_spec.mlir"):
            path.write_text(spec_text)
        spec_path = request.output
    wall = time.perf_counter() - started
    tool_seconds = baseline.seconds + loop.compile_seconds + runner.seconds_in_children
    report = TuneReport(level, baseline_us, dispatches, results, spec_path, request.output, wall, tool_seconds,
                        writers[0].path)
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
