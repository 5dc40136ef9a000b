"""The budgeted tuning loop: for each dispatch, ask, compile, benchmark, tell, repeat.

The loop talks to an executor only (`mltune.execution.executor`): it submits compile and benchmark jobs and is
handed each result as it completes. It keeps the executor's `window` of candidates in flight, refilling as results
arrive when the executor is pipelined (a cluster), or once the window is done (one machine, where compiles and
benchmarks alternate in phases). Dispatches are searched in the order given; when the searches under way leave part
of the window empty (one is near the end of its budget, or a cluster has more devices than one dispatch's batch
fills), the next dispatch starts in that room, so a whole model's dispatches are searched concurrently on a cluster.
A task may name what follows it (`then`): once its search is over, the task made from its result starts at the front
of the queue, so one dispatch's next stage runs while others are still in their first (a screen and the model stage
on one cluster). The budget of each counts benchmarked candidates, those of an earlier, interrupted run of the same
problem included (they are told to the ranker, never measured again). Each result is recorded and told to its
dispatch's ranker as soon as it is known, in completion order. At the end the best few of each dispatch are measured
again against the baseline (each re-measure recorded too, apart from the trials), and a winner is kept only if its
median speedup reaches `min_speedup` and the confidence interval of its speedup lies above 1. A task whose
candidates are its finalists already (a screen chose them) measures each once, with the finals' plan, and is not
measured again.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from iree.compiler import ir

from mltune.emit.apply import Applier
from mltune.execution.build import NOT_APPLIED, BuildResult, unapplied
from mltune.execution.executor import BenchmarkJob, CompileJob, Executor, Job, Result
from mltune.execution.measurement import Measurement, TimingPlan
from mltune.frontend.problem import Problem
from mltune.rankers.base import Ranker, RankingInput
from mltune.records.dataset import Record
from mltune.search.results import DispatchResult, Trial, trial_record
from mltune.search.settings import LoopSettings, passed
from mltune.spaces.candidate import CandidateSet, Configurator
from mltune.system.progress import Phase, display
from mltune.targets import TargetFacts

NONE_APPLIED = "no candidate took effect: every build was IREE's default module"


@dataclass(frozen=True)
class SearchTask:
    """One dispatch to tune: its ranker (its own: it keeps this dispatch's state), its budget of benchmarks,
    `earlier_of(candidates)`, the trials an interrupted run of it already recorded, and `finalists_only`: every
    candidate it measures is a finalist (a screen chose them), so each is measured with the finals' plan at once
    rather than screened first and measured again. A task searched on a module of its own (a screen's) brings
    that module's `applier` and the fields its records add to the loop's."""

    name: str
    problem: Problem
    configurator: Configurator
    ranker: Ranker
    budget: int
    earlier_of: Callable[[CandidateSet], Sequence[Trial]] | None = None
    finalists_only: bool = False
    applier: Applier | None = None  # None: the loop's
    record_fields: Mapping[str, Any] = field(default_factory=dict)
    default_sha256: str = ""  # of IREE's default build of the task's module: a candidate built to it is not timed
    finalists: int | None = None  # how many of its best are re-measured at the end; None: the loop's settings
    then: Callable[[DispatchResult], SearchTask | None] | None = None  # the task that follows once it is over


@dataclass
class TuningLoop:
    """Drives each dispatch's ranker over its candidates through one executor."""

    executor: Executor
    facts: TargetFacts
    applier: Applier
    settings: LoopSettings
    context: ir.Context
    on_record: Callable[[Record], None]
    record_fields: dict
    # a finalist's re-measure, recorded as it is measured and apart from the trials (a dataset's `RUN.finals.jsonl`):
    # the label of a candidate whose 3-round screening was lucky; None: not recorded
    on_final_record: Callable[[Record], None] | None = None

    def _results(
        self, submit: Callable[[], None], each: Callable[[Job, Result], None] | None = None
    ) -> dict[tuple[str, int], Result]:
        """Submit jobs, run the executor until they are done, and return their results by (group, index); `each`
        sees every result as it arrives."""
        results: dict[tuple[str, int], Result] = {}

        def keep(job: Job, result: Result) -> None:
            results[(job.group, job.index)] = result
            if each is not None:
                each(job, result)

        submit()
        self.executor.run(keep)
        return results

    def tune(
        self,
        name: str,
        problem: Problem,
        configurator: Configurator,
        ranker: Ranker,
        earlier_of: Callable[[CandidateSet], Sequence[Trial]] | None = None,
    ) -> DispatchResult:
        """Tune one problem with the settings' budget."""
        return self.tune_all([SearchTask(name, problem, configurator, ranker, self.settings.budget, earlier_of)])[0]

    def tune_all(self, tasks: Sequence[SearchTask]) -> list[DispatchResult]:
        """Search every task's dispatch (concurrently where the window has room), then re-measure each one's
        finalists; the results in the tasks' order."""
        searches = _Searches(self, deque(tasks))
        try:
            searches.fill()
            self.executor.run(searches.on_result)
        finally:
            searches.close()
        self._finish(searches.started)
        return [search.result for search in searches.started]

    def _finish(self, searches: Sequence[_Search]) -> None:
        """Re-measure each dispatch's best few together with the baseline; keep a winner only beyond the noise.
        A finalist measured by an interrupted run is compiled again (its module may be gone); one this run
        measured with the finals' plan already keeps that measurement."""
        by_name = {search.name: search for search in searches}
        ready: dict[str, list[Trial]] = {search.name: [] for search in searches}
        to_measure: dict[str, list[Trial]] = {search.name: [] for search in searches}
        for search in searches:
            for t in search.finalists():
                (ready if search.measured_as_final(t) else to_measure)[search.name].append(t)
        finals = {(name, t.index): t.measurement for name, trials in ready.items() for t in trials}

        def submit_rebuilds() -> None:
            for name, trials in to_measure.items():
                for t in trials:
                    if t.build.vmfb is None or not t.build.vmfb.exists():
                        by_name[name].submit_compile(t.index, t.knobs)

        rebuilt = self._results(submit_rebuilds)
        for name, trials in to_measure.items():
            trials = [replace(t, build=rebuilt[(name, t.index)]) if (name, t.index) in rebuilt else t for t in trials]
            to_measure[name] = [t for t in trials if t.build.status == "ok"]
        count = sum(1 for trials in to_measure.values() if trials)

        def submit_finals() -> None:
            for name, trials in to_measure.items():
                for t in trials:
                    self.executor.submit_benchmark(BenchmarkJob(t.index, t.build.vmfb, self.settings.final, name))

        def record_final(job: Job, outcome: Result) -> None:
            if self.on_final_record is not None and isinstance(outcome, Measurement):
                trial = next(t for t in to_measure[job.group] if t.index == job.index)
                self.on_final_record(by_name[job.group].record_of(replace(trial, measurement=outcome)))

        if count:
            what = next(name for name, trials in to_measure.items() if trials) if count == 1 else f"{count} dispatches"
            with display().phase(f"re-measure the finalists of {what} against IREE's default"):
                finals.update(self._results(submit_finals, record_final))
        for name, search in by_name.items():
            kept = ready[name] + to_measure[name]
            if not kept:
                continue
            result = search.result
            result.finals = sorted(((t, finals[(name, t.index)]) for t in kept), key=lambda pair: pair[1].ratio)
            trial, measurement = result.finals[0]
            if measurement.wins(self.settings.min_speedup):
                result.winner = (trial, measurement)


@dataclass
class _Searches:
    """The dispatch searches under way on one executor: each result goes to the search of its job's group, and
    room left in the window starts the next dispatch."""

    loop: TuningLoop
    pending: deque[SearchTask]
    started: list[_Search] = field(default_factory=list)
    active: dict[str, _Search] = field(default_factory=dict)  # by name: started and not over

    @property
    def room(self) -> int:
        return self.loop.executor.window - sum(len(search.in_flight) for search in self.active.values())

    def fill(self) -> None:
        """Refill the searches under way, in the order they started, then start dispatches while room is left.
        One machine refills only once nothing is in flight (its compiles and benchmarks alternate in phases)."""
        if not self.loop.executor.pipelined and any(search.in_flight for search in self.active.values()):
            return
        for search in list(self.active.values()):
            search.refill(self.room)
            self._close_if_over(search)
        while self.pending and self.room > 0:
            search = _Search.begin(self.loop, self.pending.popleft())
            self.started.append(search)
            self.active[search.name] = search
            search.refill(self.room)
            self._close_if_over(search)

    def _close_if_over(self, search: _Search) -> None:
        if search.result.stop_reason and not search.in_flight:
            search.progress.close()
            del self.active[search.name]
            if search.then is not None and (follows := search.then(search.result)) is not None:
                self.pending.appendleft(follows)

    def on_result(self, job: Job, outcome: Result) -> None:
        self.active[job.group].on_result(job, outcome)
        self.fill()

    def close(self) -> None:
        """Close the progress of searches cut short (Ctrl-C, a failure)."""
        for search in self.active.values():
            search.progress.close()


@dataclass
class _Search:
    """One dispatch's search in flight: which candidates are compiling or being measured, and when to stop."""

    loop: TuningLoop
    name: str
    problem: Problem
    configurator: Configurator
    ranker: Ranker
    budget: int
    candidates: CandidateSet
    result: DispatchResult
    progress: Phase
    tried: set[int]
    earlier: int = 0  # trials an interrupted run measured, not timed here
    finalists_only: bool = False
    applier: Applier | None = None
    record_fields: dict = field(default_factory=dict)
    default_sha256: str = ""
    finalist_count: int = 0
    then: Callable[[DispatchResult], SearchTask | None] | None = None
    started: float = field(default_factory=time.monotonic)
    in_flight: dict[int, str] = field(default_factory=dict)  # index -> compilation info
    built: dict[int, BuildResult] = field(default_factory=dict)

    @classmethod
    def begin(cls, loop: TuningLoop, task: SearchTask) -> _Search:
        """Start the ranker on the task's candidates and tell it what an interrupted run already measured."""
        candidates = task.configurator.candidates()
        earlier = list(task.earlier_of(candidates)) if task.earlier_of is not None else []
        result = DispatchResult(
            task.name, task.problem, len(candidates), trials=list(earlier), min_speedup=loop.settings.min_speedup
        )
        if not passed(loop.settings.deadline):  # past the run's deadline no candidate is asked for
            task.ranker.start(RankingInput(task.problem, loop.facts, candidates))
            for trial in earlier:
                task.ranker.tell(trial.index, trial.told_ratio)
        progress = display().phase(
            f"search {task.name}", total=task.budget, initial=min(result.benchmarked, task.budget), unit="benchmarks"
        )
        return cls(
            loop,
            task.name,
            task.problem,
            task.configurator,
            task.ranker,
            task.budget,
            candidates,
            result,
            progress,
            tried={t.index for t in earlier},
            earlier=len(earlier),
            finalists_only=task.finalists_only,
            applier=task.applier or loop.applier,
            record_fields={**loop.record_fields, **task.record_fields},
            default_sha256=task.default_sha256,
            then=task.then,
            finalist_count=loop.settings.finalists if task.finalists is None else task.finalists,
        )

    @property
    def plan(self) -> TimingPlan:
        """How each candidate is measured: the finals' plan when every candidate is a finalist."""
        return self.loop.settings.final if self.finalists_only else self.loop.settings.screening

    def measured_as_final(self, trial: Trial) -> bool:
        """Whether this run measured `trial` with the finals' plan (an interrupted run's trials are measured
        again: their plan is not recorded)."""
        return self.finalists_only and trial.position >= self.earlier and trial.measurement is not None

    def refill(self, room: int) -> None:
        """Ask the ranker for up to `room` more candidates; set the stop reason when the search is over."""
        settings, result = self.loop.settings, self.result
        if result.stop_reason:
            return
        want = min(room, self.budget - result.benchmarked - len(self.in_flight))
        if result.benchmarked >= self.budget:
            if not self.in_flight:
                result.stop_reason = "budget spent"
            return
        if settings.time_budget_s is not None or settings.deadline is not None:
            want = min(want, self._fits_in_time(settings))
            if want <= 0 and not self.in_flight:
                result.stop_reason = "time budget spent"
        if want <= 0:
            return
        if self._none_applied():
            if not self.in_flight:
                result.stop_reason = NONE_APPLIED
        elif len(result.trials) + len(self.in_flight) >= settings.max_tries_per_benchmark * self.budget:
            result.stop_reason = "too many candidates failed to compile"
        elif not (indices := _ask_untried(self.ranker, want, self.tried)):
            if not self.in_flight:
                result.stop_reason = "every candidate in the space was tried"
        else:
            self.tried.update(indices)
            for i in indices:
                self.in_flight[i] = self.submit_compile(i, self.candidates.knobs(i))

    def _none_applied(self) -> bool:
        """Whether a first batch of this run's candidates all built to IREE's default module (no op matched)."""
        mine = self.result.trials[self.earlier :]
        return len(mine) >= min(self.budget, self.loop.executor.window) and all(
            t.build.status == NOT_APPLIED for t in mine
        )

    def _fits_in_time(self, settings: LoopSettings) -> int:
        """How many more candidates fit in the time left (the dispatch's time budget, and the run's deadline): one
        to start with (its cost is unknown), then as many as the search's wall time per concluded candidate
        allows, so that the search ends within about one candidate's time of the budget (a whole batch of slow
        candidates would overrun it many times)."""
        elapsed = time.monotonic() - self.started
        budgets = [] if settings.time_budget_s is None else [settings.time_budget_s]
        if settings.deadline is not None:
            budgets.append(settings.deadline - self.started)
        time_budget_s = min(budgets)
        if elapsed >= time_budget_s:
            return 0
        concluded = len(self.result.trials) - self.earlier
        if concluded <= 0:
            return 0 if self.in_flight else 1
        return int((time_budget_s - elapsed) // (elapsed / concluded))

    def submit_compile(self, index: int, knobs: dict[str, int]) -> str:
        """Send candidate `index` to be compiled; its compilation info."""
        info = self.configurator.compilation_info(knobs)
        self.loop.executor.submit_compile(CompileJob(index, self.applier.apply(self.problem, info), self.name))
        return info

    def finalists(self) -> list[Trial]:
        """The best few measured candidates that screened faster than the baseline, fastest first."""
        measured = sorted(
            (t for t in self.result.trials if t.measurement and t.measurement.status == "ok"),
            key=lambda t: t.measurement.ratio,
        )
        return [t for t in measured[: self.finalist_count] if t.measurement.ratio < 1.0]

    def on_result(self, job: Job, outcome: Result) -> None:
        """A compile that failed, a build identical to IREE's default or a measurement concludes a trial; any other
        compile that succeeded is sent to be measured."""
        if isinstance(outcome, BuildResult):
            outcome = unapplied(outcome, self.default_sha256)
        if isinstance(outcome, BuildResult) and outcome.status == "ok":
            self.built[job.index] = outcome
            self.loop.executor.submit_benchmark(BenchmarkJob(job.index, outcome.vmfb, self.plan, self.name))
            return
        if isinstance(outcome, BuildResult):
            self._conclude(job.index, outcome, None)
        else:
            self._conclude(job.index, self.built.pop(job.index), outcome)

    def record_of(self, trial: Trial) -> Record:
        """The record a dataset keeps of one of this search's trials (or of a finalist's re-measure)."""
        return trial_record(
            self.problem, self.configurator.pipeline_of(trial.knobs), trial, self.ranker.name, self.record_fields
        )

    def _conclude(self, index: int, build: BuildResult, measurement: Measurement | None) -> None:
        result = self.result
        trial = Trial(
            index, len(result.trials), self.candidates.knobs(index), build, measurement, self.in_flight.pop(index)
        )
        result.trials.append(trial)
        self.loop.on_record(self.record_of(trial))
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
