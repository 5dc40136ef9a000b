"""The budgeted tuning loop for one dispatch: ask, compile, benchmark, tell, repeat.

The loop talks to an executor only (`mltune.execution.executor`): it submits compile and benchmark jobs and
is handed each result as it completes. It keeps the executor's `window` of candidates in flight, refilling as
results arrive when the executor is pipelined (a cluster), or once the window is done (one machine, where
compiles and benchmarks alternate in phases). The budget counts benchmarked candidates, those of an earlier,
interrupted run of the same problem included (they are told to the ranker, never measured again). Each result
is recorded and told to the ranker as soon as it is known, in completion order. At the end the best few are
measured again against the baseline, and a winner is kept only if its median speedup reaches `min_speedup`
and the confidence interval of its speedup lies above 1.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from iree.compiler import ir

from mltune.dataset import Record
from mltune.emit.apply import Applier
from mltune.execution.build import BuildResult
from mltune.execution.executor import BenchmarkJob, CompileJob, Executor, Result
from mltune.execution.run import Measurement, TimingPlan
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
    """Drives one ranker over one dispatch's candidates through an executor."""

    executor: Executor
    facts: TargetFacts
    applier: Applier
    settings: LoopSettings
    context: ir.Context
    on_record: Callable[[Record], None]
    record_fields: dict

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

    def _results(self, submit: Callable[[], None]) -> dict[int, Result]:
        """Submit jobs, run the executor until they are done, and return their results by candidate index."""
        results: dict[int, Result] = {}
        submit()
        self.executor.run(lambda r: results.__setitem__(r.index, r))
        return results

    def _compile(self, name: str, problem: Problem, configurator: Configurator,
                 knobs_of: dict[int, dict[str, int]]) -> dict[int, BuildResult]:
        def submit() -> None:
            for i, knobs in knobs_of.items():
                applied = self.applier.apply(problem, configurator.compilation_info(knobs))
                self.executor.submit_compile(CompileJob(i, applied, name))

        return self._results(submit)  # type: ignore[return-value]

    def _measure(self, items: Sequence[Trial], plan: TimingPlan) -> list[Measurement]:
        def submit() -> None:
            for trial in items:
                self.executor.submit_benchmark(BenchmarkJob(trial.index, trial.build.vmfb, plan))

        results = self._results(submit)
        return [results[t.index] for t in items]  # type: ignore[misc]

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
        progress = display().phase(f"search {name}", total=self.settings.budget,
                                   initial=min(result.benchmarked, self.settings.budget), unit="benchmarks")
        search = _Search(self, name, problem, configurator, ranker, candidates, result, progress,
                         tried={t.index for t in earlier})
        try:
            search.refill()
            self.executor.run(search.on_result)
        finally:
            progress.close()
        self._finish(name, problem, configurator, result)
        return result

    def _finish(self, name: str, problem: Problem, configurator: Configurator, result: DispatchResult) -> None:
        """Re-measure the best few together with the baseline; keep a winner only beyond the noise.
        A finalist measured by an interrupted run is compiled again (its module may be gone)."""
        measured = sorted((t for t in result.trials if t.measurement and t.measurement.status == "ok"),
                          key=lambda t: t.measurement.ratio)
        finalists = [t for t in measured[: self.settings.finalists] if t.measurement.ratio < 1.0]
        stale = [t for t in finalists if t.build.vmfb is None or not t.build.vmfb.exists()]
        if stale:
            rebuilt = self._compile(name, problem, configurator, {t.index: t.knobs for t in stale})
            finalists = [replace(t, build=rebuilt[t.index]) if t.index in rebuilt else t for t in finalists]
            finalists = [t for t in finalists if t.build.status == "ok"]
        if not finalists:
            return
        with display().phase(f"re-measure {len(finalists)} finalists of {name} against IREE's default"):
            remeasured = self._measure(finalists, self.settings.final)
        result.finals = sorted(zip(finalists, remeasured), key=lambda pair: pair[1].ratio)
        trial, measurement = result.finals[0]
        if measurement.wins(self.settings.min_speedup):
            result.winner = (trial, measurement)


@dataclass
class _Search:
    """One dispatch's search in flight: which candidates are compiling or being measured, and when to stop."""

    loop: TuningLoop
    name: str
    problem: Problem
    configurator: Configurator
    ranker: Ranker
    candidates: CandidateSet
    result: DispatchResult
    progress: Phase
    tried: set[int]
    started: float = field(default_factory=time.monotonic)
    in_flight: dict[int, str] = field(default_factory=dict)  # index -> compilation info
    built: dict[int, BuildResult] = field(default_factory=dict)

    def refill(self) -> None:
        """Ask the ranker for more candidates when there is room; set the stop reason when the search is over."""
        loop, settings, result = self.loop, self.loop.settings, self.result
        if result.stop_reason or (self.in_flight and not loop.executor.pipelined):
            return
        want = min(loop.executor.window - len(self.in_flight),
                   settings.budget - result.benchmarked - len(self.in_flight))
        if result.benchmarked >= settings.budget:
            if not self.in_flight:
                result.stop_reason = "budget spent"
            return
        if want <= 0:
            return
        if settings.time_budget_s is not None and time.monotonic() - self.started > settings.time_budget_s:
            result.stop_reason = "time budget spent"
        elif len(result.trials) + len(self.in_flight) >= settings.max_tries_per_benchmark * settings.budget:
            result.stop_reason = "too many candidates failed to compile"
        elif not (indices := _ask_untried(self.ranker, want, self.tried)):
            if not self.in_flight:
                result.stop_reason = "every candidate in the space was tried"
        else:
            self.tried.update(indices)
            for i in indices:
                info = self.configurator.compilation_info(self.candidates.knobs(i))
                self.in_flight[i] = info
                applied = loop.applier.apply(self.problem, info)
                loop.executor.submit_compile(CompileJob(i, applied, self.name))

    def on_result(self, outcome: Result) -> None:
        """A compile that failed or a measurement concludes a trial; a compile that succeeded is sent to be
        measured."""
        if isinstance(outcome, BuildResult) and outcome.status == "ok":
            self.built[outcome.index] = outcome
            self.loop.executor.submit_benchmark(BenchmarkJob(outcome.index, outcome.vmfb,
                                                             self.loop.settings.screening))
            return
        if isinstance(outcome, BuildResult):
            self._conclude(outcome.index, outcome, None)
        else:
            self._conclude(outcome.index, self.built.pop(outcome.index), outcome)
        self.refill()

    def _conclude(self, index: int, build: BuildResult, measurement: Measurement | None) -> None:
        result = self.result
        trial = Trial(index, len(result.trials), self.candidates.knobs(index), build, measurement,
                      self.in_flight.pop(index))
        result.trials.append(trial)
        self.loop.on_record(self.loop._record(self.problem, self.configurator.pipeline_of(trial.knobs), trial,
                                              self.ranker.name))
        self.ranker.tell(index, trial.told_ratio)
        if measurement is not None:
            self.progress.update(1)
            best = min((t.measurement.ratio for t in result.trials if t.measurement), default=float("inf"))
            self.progress.set_postfix_str(f"best {1 / best:.2f}x" if best < float("inf") else "")

def _ask_untried(ranker: Ranker, want: int, tried: set[int]) -> list[int]:
    """Up to `want` indices the ranker proposes that were not tried yet (a resumed run tried some already)."""
    picked: list[int] = []
    while len(picked) < want:
        batch = ranker.ask(want - len(picked))
        if not batch:
            break
        picked.extend(i for i in batch if i not in tried and i not in picked)
    return picked
