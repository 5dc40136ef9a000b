"""The budgeted tuning loop for one dispatch: ask, compile in parallel, benchmark, tell, repeat.

Compiling and benchmarking alternate in phases (never both at once: a compile beside a
benchmark slows it by 50-75 %). The budget counts benchmarked candidates. At the end the
best few are measured again, longer, against the baseline, and a winner is kept only if
it beats the baseline by more than the noise margin.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from iree.compiler import ir
from tqdm import tqdm

from mltune.dataset import Record
from mltune.problem import Problem
from mltune.rankers.base import Ranker, RankingInput
from mltune.search.apply import Applied, Applier
from mltune.search.build import BuildResult, Builder
from mltune.search.candidate import Configurator
from mltune.search.run import Measurement, Runner, TimingPlan
from mltune.targets import TargetFacts


@dataclass(frozen=True)
class LoopSettings:
    budget: int = 50
    time_budget_s: float | None = None
    batch_size: int = 8
    max_tries_per_benchmark: int = 4  # stop when compile failures outnumber benchmarks this much
    finalists: int = 4
    min_speedup: float = 1.03  # a winner's median ratio must beat the baseline by this factor ...
    min_rounds_won: float = 0.75  # ... and it must win this fraction of the re-measured rounds
    screening: TimingPlan = TimingPlan()
    final: TimingPlan = TimingPlan(rounds=9, round_seconds=0.25)


@dataclass(frozen=True)
class Trial:
    """A candidate that was compiled, and measured if it compiled."""

    index: int
    position: int
    knobs: dict[str, int]
    build: BuildResult
    measurement: Measurement | None
    compilation_info: str


@dataclass
class DispatchResult:
    """What tuning one dispatch found: every trial, the re-measured finalists and the winner (if any)."""

    name: str
    problem: Problem
    candidates: int
    trials: list[Trial] = field(default_factory=list)
    finals: list[tuple[Trial, Measurement]] = field(default_factory=list)
    winner: tuple[Trial, Measurement] | None = None
    stop_reason: str = ""

    @property
    def benchmarked(self) -> int:
        return sum(1 for t in self.trials if t.measurement is not None)


@dataclass
class TuningLoop:
    """Drives one ranker over one dispatch's candidates with a builder and a runner."""

    builder: Builder
    runner: Runner
    baseline_vmfb: Path
    facts: TargetFacts
    applier: Applier
    settings: LoopSettings
    context: ir.Context
    on_record: Callable[[Record], None]
    record_fields: dict
    compile_seconds: float = 0.0

    def _record(self, problem: Problem, pipeline: str, trial: Trial, ranker: str) -> Record:
        measurement = trial.measurement
        if measurement is not None:
            status, detail = measurement.status, measurement.detail and f"run: {measurement.detail}"
        else:
            status, detail = trial.build.status, trial.build.detail and f"compile: {trial.build.detail}"
        return Record(
            problem=problem.to_record(), pipeline=pipeline, knobs=trial.knobs, status=status,
            time_us=list(measurement.time_us) if measurement else [],
            baseline_us=list(measurement.baseline_us) if measurement else [],
            ranker=ranker, position=trial.position, detail=detail, **self.record_fields,
        )

    def _compile(self, name: str, problem: Problem, configurator: Configurator, indices: Sequence[int],
                 knobs_of: Callable[[int], dict[str, int]]) -> list[tuple[int, str, BuildResult]]:
        infos = [(i, configurator.compilation_info(knobs_of(i))) for i in indices]
        applied: list[tuple[int, Applied]] = [(i, self.applier.apply(problem, info)) for i, info in infos]
        start = time.perf_counter()
        builds = self.builder.compile_many(applied, group=name)
        self.compile_seconds += time.perf_counter() - start
        return [(i, info, build) for (i, info), build in zip(infos, builds)]

    def tune(self, name: str, problem: Problem, configurator: Configurator, ranker: Ranker) -> DispatchResult:
        candidates = configurator.candidates()
        result = DispatchResult(name, problem, len(candidates))
        ranker.start(RankingInput(problem, self.facts, candidates))
        started = time.monotonic()
        progress = tqdm(total=self.settings.budget, desc=name, unit="bench", dynamic_ncols=True, disable=None)
        try:
            while result.benchmarked < self.settings.budget:
                if self.settings.time_budget_s is not None and time.monotonic() - started > self.settings.time_budget_s:
                    result.stop_reason = "time budget spent"
                    break
                if len(result.trials) >= self.settings.max_tries_per_benchmark * self.settings.budget:
                    result.stop_reason = "too many candidates failed to compile"
                    break
                want = min(self.settings.batch_size, self.settings.budget - result.benchmarked)
                indices = ranker.ask(want)
                if not indices:
                    result.stop_reason = "every candidate in the space was tried"
                    break
                compiled = self._compile(name, problem, configurator, indices, candidates.knobs)
                ok = [(i, build.vmfb) for i, _, build in compiled if build.status == "ok"]
                measured = {m.index: m for m in self.runner.measure(self.baseline_vmfb, ok, self.settings.screening)}
                for i, info, build in compiled:
                    trial = Trial(i, len(result.trials), candidates.knobs(i), build, measured.get(i), info)
                    result.trials.append(trial)
                    self.on_record(self._record(problem, configurator.pipeline_of(trial.knobs), trial, ranker.name))
                    # a compile failure is told as inf too: adaptive rankers learn where candidates fail
                    ranker.tell(i, trial.measurement.ratio if trial.measurement is not None else float("inf"))
                    if trial.measurement is not None:
                        progress.update(1)
                best = min((t.measurement.ratio for t in result.trials if t.measurement), default=float("inf"))
                progress.set_postfix_str(f"best {1 / best:.2f}x" if best < float("inf") else "")
            else:
                result.stop_reason = "budget spent"
        finally:
            progress.close()
        self._finish(result)
        return result

    def _finish(self, result: DispatchResult) -> None:
        """Re-measure the best few together with the baseline; keep a winner only beyond the noise."""
        measured = sorted((t for t in result.trials if t.measurement and t.measurement.status == "ok"),
                          key=lambda t: t.measurement.ratio)
        finalists = [t for t in measured[: self.settings.finalists] if t.measurement.ratio < 1.0]
        if not finalists:
            return
        remeasured = self.runner.measure(self.baseline_vmfb, [(t.index, t.build.vmfb) for t in finalists],
                                         self.settings.final)
        result.finals = sorted(zip(finalists, remeasured), key=lambda pair: pair[1].ratio)
        trial, measurement = result.finals[0]
        if measurement.wins(self.settings.min_speedup, self.settings.min_rounds_won):
            result.winner = (trial, measurement)
