"""`mltune tune --compile-only`: build candidates without benchmarking them.

For a target with no device on this machine (ROCm or CUDA on a CPU-only host), this still
checks the whole path up to the binary: dispatches dumped, spaces enumerated, candidates
ordered by the ranker, applied (spec or annotation) and compiled. It reports, per dispatch and
pipeline, how many candidates the space holds, how long enumerating them took, and the fraction of
the first `budget` candidates (in ranker order) that compiled.

Nothing is timed here, so where a candidate compiles or fails alike from the dumped executable as from
the whole model, the dumped executable (its configuration stripped) is compiled instead: it skips the
model's host and stream compilation (`benchmarks/gpu/rocm_dispatch_compile.py` measures the difference).
That holds for a tuning spec on ROCm contractions, convolutions and matvecs, the dump built from the phase it was
dumped at (compiled from the start, global optimization folds a matvec's unit M again and the spec matches no
contraction); not on CUDA (the candidate is an annotation of the model's op).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Sequence

from iree.compiler import ir

from mltune.emit.apply import Applier, make_applier
from mltune.execution.build import Builder, BuildResult
from mltune.frontend.dump_constants import restore_dropped_constants
from mltune.frontend.problem import Problem, Untunable
from mltune.input.tuning_input import executable_flags, strip_configuration
from mltune.rankers import RankingInput, make_ranker
from mltune.input.dispatches import Dispatch, read_checked_dispatches
from mltune.spaces.candidate import CandidateSet, Configurator
from mltune.tuning.request import TuneRequest
from mltune.tuning.shapes import specialised_request
from mltune.tuning.prepare import configurators, nothing_tunable, prepared_input

# (target kind, op kind) whose candidates compile from the dumped executable as from the model
DISPATCH_LEVEL_COMPILE = {("rocm", "contraction"), ("rocm", "convolution"), ("rocm", "matvec")}


@dataclass(frozen=True)
class CompileCheck:
    dispatch: str
    problem: str
    pipeline: str
    candidates: int
    generation_seconds: float
    tried: int
    compiled: int
    first_error: str

    @property
    def fraction(self) -> float:
        return self.compiled / self.tried if self.tried else 0.0


def compile_indices(
    problem: Problem,
    configurator: Configurator,
    candidates: CandidateSet,
    applier: Applier,
    builder: Builder,
    indices: Sequence[int],
    group: str = "",
) -> list[BuildResult]:
    """Compile the given candidates of one space, already enumerated (in parallel, `builder.jobs` at a time)."""
    jobs = [(i, applier.apply(problem, configurator.compilation_info(candidates.knobs(i)))) for i in indices]
    return builder.compile_many(jobs, group)


def dispatch_builder(
    builder: Builder, dispatch: Dispatch, target_kind: str, extra_flags: Sequence[str], work_dir: Path
) -> Builder:
    """A builder of `dispatch`'s dumped executable, stripped of IREE's configuration and compiled as a dump is
    (`executable_flags`: the user's own flags, the target is inside it, from the phase it was dumped at), where
    candidates compile from it as from the model; else `builder`. Constants the dump names without holding (a
    convolution's fused batch norm) are restored as zeros, or nothing compiles."""
    assert isinstance(dispatch.problem, Problem)
    already_dispatch = builder.tuning_input.invocation.dispatch_level  # the input is a dumped dispatch
    if already_dispatch or (target_kind, dispatch.problem.op_kind) not in DISPATCH_LEVEL_COMPILE:
        return builder
    work_dir.mkdir(parents=True, exist_ok=True)
    stripped = work_dir / f"{dispatch.name}.stripped.mlir"
    strip_configuration(dispatch.bench, stripped)
    source = restore_dropped_constants(stripped, work_dir / f"{dispatch.name}.restored.mlir")
    return replace(
        builder, tuning_input=replace(builder.tuning_input, source=source, compile_flags=executable_flags(extra_flags))
    )


def compile_only(request: TuneRequest, context: ir.Context) -> tuple[list[CompileCheck], list[tuple[str, Untunable]]]:
    request.run_dir.mkdir(parents=True, exist_ok=True)
    request, _ = specialised_request(request, context)  # --shape: the model as the full run would build it
    _, tuning_input = prepared_input(request, context)
    dispatches = read_checked_dispatches(tuning_input, request.target, context)
    untunable = [(d.name, d.problem) for d in dispatches if isinstance(d.problem, Untunable)]
    tunable = [d for d in dispatches if isinstance(d.problem, Problem)]
    if not tunable:
        raise nothing_tunable(request, dispatches)
    builder = Builder(tuning_input, request.run_dir / "candidates", request.jobs)
    applier = make_applier(request.target.kind, tuning_input.source, context)
    # started afresh for each dispatch: made (and loaded) once
    ranker = make_ranker(request.ranker, request.seed, model_dir=request.model_dir)
    checks = []
    for dispatch, configurator in configurators(
        tunable, context, request.run_dir / "spaces", source=tuning_input.source
    ):
        if isinstance(configurator, Untunable):
            untunable.append((dispatch.name, configurator))
            continue
        assert isinstance(dispatch.problem, Problem)
        started = time.perf_counter()
        candidates = configurator.candidates()
        generation = time.perf_counter() - started
        ranker.start(RankingInput(dispatch.problem, dispatch.facts, candidates))
        fast = dispatch_builder(
            builder, dispatch, request.target.kind, request.compile_flags, request.run_dir / "stripped"
        )
        builds = compile_indices(
            dispatch.problem,
            configurator,
            candidates,
            applier,
            fast,
            ranker.ask(request.settings.budget),
            dispatch.name,
        )
        pipelines = [configurator.pipeline_of(candidates.knobs(i)) for i in range(len(candidates))]
        for pipeline in dict.fromkeys(pipelines[b.index] for b in builds):  # one row per pipeline tried
            mine = [b for b in builds if pipelines[b.index] == pipeline]
            failed = [b.detail for b in mine if b.status != "ok"]
            checks.append(
                CompileCheck(
                    dispatch.name,
                    dispatch.problem.key,
                    pipeline,
                    pipelines.count(pipeline),
                    generation,
                    len(mine),
                    len(mine) - len(failed),
                    failed[0] if failed else "",
                )
            )
    (request.run_dir / "compile_only.json").write_text(json.dumps([asdict(c) for c in checks], indent=2))
    return checks, untunable
