"""The budgeted tuning loop for one dispatch: ask, compile in parallel, benchmark, tell, repeat.

Compiling and benchmarking alternate in phases (never both at once: a compile beside a
benchmark slows it by 50-75 %). The budget counts benchmarked candidates, those of an earlier,
interrupted run of the same problem included (they are told to the ranker, never measured
again). Each result is recorded as soon as it is measured. At the end the best few are
measured again, sequentially, against the baseline, and a winner is kept only if its median
speedup reaches `min_speedup` and the confidence interval of its speedup lies above 1.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

from iree.compiler import ir

from mltune.dataset import Record
from mltune.emit.apply import Applied, Applier
from mltune.execution.build import Builder, BuildResult
from mltune.execution.run import Measurement, Runner, TimingPlan
from mltune.problem import Problem
from mltune.progress import Phase, display
from mltune.rankers.base import Ranker, RankingInput
from mltune.spaces.candidate import CandidateSet, Configurator
from mltune.targets import TargetFacts


@dataclass(frozen=True)
class LoopSettings:
    budget: int = 50
    time_budget_s: float | None = None
    batch_size: int = 8
    max_tries_per_benchmark: int = 4  # stop when compile failures outnumber benchmarks this much
    finalists: int = 4
    min_speedup: float = 1.03  # a winner's median speedup must reach this, its whole interval must be above 1
    screening: TimingPlan = TimingPlan()
    final: TimingPlan = TimingPlan(rounds=9, round_seconds=0.25, max_rounds=30)


@dataclass(frozen=True)
class Trial:
    """A candidate that was compiled, and measured if it compiled."""

    index: int
    position: int
    knobs: dict[str, int]
    build: BuildResult
    measurement: Measurement | None
    compilation_info: str

    @property
    def told_ratio(self) -> float:
        """What the ranker is told: the measured ratio, inf for a compile failure (adaptive rankers learn where
        candidates fail)."""
        return self.measurement.ratio if self.measurement is not None else float("inf")


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
    min_speedup: float = 1.0  # what a finalist had to reach to be kept

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
            ranker=ranker, position=trial.position, detail=detail,
            busy_cores=[round(b, 3) for b in measurement.busy_cores] if measurement else [], **self.record_fields,
        )

    def _compile(self, name: str, problem: Problem, configurator: Configurator, indices: Sequence[int],
                 knobs_of: Callable[[int], dict[str, int]]) -> list[tuple[int, str, BuildResult]]:
        infos = [(i, configurator.compilation_info(knobs_of(i))) for i in indices]
        applied: list[tuple[int, Applied]] = [(i, self.applier.apply(problem, info)) for i, info in infos]
        start = time.perf_counter()
        builds = self.builder.compile_many(applied, group=name)
        self.compile_seconds += time.perf_counter() - start
        return [(i, info, build) for (i, info), build in zip(infos, builds)]

    def tune(self, name: str, problem: Problem, configurator: Configurator, ranker: Ranker,
             earlier_of: Callable[[CandidateSet], Sequence[Trial]] | None = None) -> DispatchResult:
        """Tune one problem; `earlier_of(candidates)` gives the trials an interrupted run of it already recorded."""
        candidates = configurator.candidates()
        earlier = list(earlier_of(candidates)) if earlier_of is not None else []
        result = DispatchResult(name, problem, len(candidates), trials=list(earlier),
                                min_speedup=self.settings.min_speedup)
        ranker.start(RankingInput(problem, self.facts, candidates))
        for trial in earlier:
            ranker.tell(trial.index, trial.told_ratio)
        tried = {t.index for t in earlier}
        started = time.monotonic()
        progress = display().phase(f"search {name}", total=self.settings.budget,
                                   initial=min(result.benchmarked, self.settings.budget), unit="benchmarks")
        try:
            while result.benchmarked < self.settings.budget:
                if self.settings.time_budget_s is not None and time.monotonic() - started > self.settings.time_budget_s:
                    result.stop_reason = "time budget spent"
                    break
                if len(result.trials) >= self.settings.max_tries_per_benchmark * self.settings.budget:
                    result.stop_reason = "too many candidates failed to compile"
                    break
                indices = _ask_untried(ranker, min(self.settings.batch_size, self.settings.budget - result.benchmarked),
                                       tried)
                if not indices:
                    result.stop_reason = "every candidate in the space was tried"
                    break
                tried.update(indices)
                self._run_batch(name, problem, configurator, ranker, candidates, indices, result, progress)
                best = min((t.measurement.ratio for t in result.trials if t.measurement), default=float("inf"))
                progress.set_postfix_str(f"best {1 / best:.2f}x" if best < float("inf") else "")
            else:
                result.stop_reason = "budget spent"
        finally:
            progress.close()
        self._finish(name, problem, configurator, result)
        return result

    def _run_batch(self, name: str, problem: Problem, configurator: Configurator, ranker: Ranker,
                   candidates: CandidateSet, indices: Sequence[int], result: DispatchResult, progress: Phase) -> None:
        """Compile a batch, then measure what compiled; every trial is recorded and told the moment it is known."""

        def conclude(i: int, info: str, build: BuildResult, measurement: Measurement | None) -> None:
            trial = Trial(i, len(result.trials), candidates.knobs(i), build, measurement, info)
            result.trials.append(trial)
            self.on_record(self._record(problem, configurator.pipeline_of(trial.knobs), trial, ranker.name))
            ranker.tell(i, trial.told_ratio)
            if measurement is not None:
                progress.update(1)

        compiled = self._compile(name, problem, configurator, indices, candidates.knobs)
        for i, info, build in compiled:
            if build.status != "ok":
                conclude(i, info, build, None)
        built = {i: (info, build) for i, info, build in compiled if build.status == "ok"}
        self.runner.measure(self.baseline_vmfb, [(i, build.vmfb) for i, (_, build) in built.items()],
                            self.settings.screening, lambda m: conclude(m.index, *built[m.index], m))

    def _finish(self, name: str, problem: Problem, configurator: Configurator, result: DispatchResult) -> None:
        """Re-measure the best few together with the baseline, sequentially; keep a winner only beyond the noise.
        A finalist measured by an interrupted run is compiled again (its module may be gone)."""
        measured = sorted((t for t in result.trials if t.measurement and t.measurement.status == "ok"),
                          key=lambda t: t.measurement.ratio)
        finalists = [t for t in measured[: self.settings.finalists] if t.measurement.ratio < 1.0]
        stale = [t for t in finalists if t.build.vmfb is None or not t.build.vmfb.exists()]
        if stale:
            rebuilt = {i: build for i, _, build in self._compile(name, problem, configurator, [t.index for t in stale],
                                                                  lambda i: next(t.knobs for t in stale if t.index == i))}
            finalists = [replace(t, build=rebuilt[t.index]) if t.index in rebuilt else t for t in finalists]
            finalists = [t for t in finalists if t.build.status == "ok"]
        if not finalists:
            return
        with display().phase(f"re-measure {len(finalists)} finalists of {name} against IREE's default"):
            remeasured = self.runner.measure(self.baseline_vmfb, [(t.index, t.build.vmfb) for t in finalists],
                                             self.settings.final)
        result.finals = sorted(zip(finalists, remeasured), key=lambda pair: pair[1].ratio)
        trial, measurement = result.finals[0]
        if measurement.wins(self.settings.min_speedup):
            result.winner = (trial, measurement)


def _ask_untried(ranker: Ranker, want: int, tried: set[int]) -> list[int]:
    """Up to `want` indices the ranker proposes that were not tried yet (a resumed run tried some already)."""
    picked: list[int] = []
    while len(picked) < want:
        batch = ranker.ask(want - len(picked))
        if not batch:
            break
        picked.extend(i for i in batch if i not in tried and i not in picked)
    return picked
