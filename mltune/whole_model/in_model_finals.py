"""The model stage of a screened run where the device times each dispatch inside the model (`mltune.whole_model.in_model`):
every dispatch's finalists timed in a few builds of the whole model instead of one build each.

Build j holds the j-th finalist of every dispatch (one linked spec; a dispatch with fewer finalists keeps IREE's
default there). IREE's default build and the combined builds run under profiling in turn, `rounds` times, and each
finalist is measured by the time of its problem's dispatches inside the model, round by round, against the default
build's in the same round. That takes a few builds where one build per finalist took most of a run, and picks
about as well as timing each finalist alone (docs/whole-model-tuning.md).
A dispatch whose fastest finalist is fast enough at the median but not beyond the noise (one slow round of five
spoils it) has its build timed `rounds` more times with IREE's default: a second look, and every finalist's
interval is read at the level of two looks. The configs' check and the end-to-end timing then decide on the
whole model, as after one build per finalist.

Records of these measurements have `level` "in-model": their ratio is the dispatch's inside the model, not the
whole model's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

from mltune.emit.apply import Applier
from mltune.execution.build import Builder, BuildResult
from mltune.execution.measurement import Measurement
from mltune.rankers.base import RankingInput
from mltune.records.dataset import Record
from mltune.search.loop import SearchTask
from mltune.search.results import DispatchResult, Trial, trial_record
from mltune.search.settings import LoopSettings
from mltune.system.progress import display
from mltune.targets import TargetFacts
from mltune.whole_model.in_model_timer import InModelTimer, ProblemTimes

LEVEL = "in-model"
GROUP = "in_model"  # the builder's folder of the combined builds
LOOKS = 2  # the rounds, then as many again where a dispatch's fastest finalist is not yet decided


@dataclass(frozen=True)
class _Finalist:
    index: int
    knobs: dict[str, int]
    compilation_info: str
    earlier: Trial | None  # an interrupted run of this stage measured it


@dataclass
class ProfiledFinals:
    """Everything the stage needs besides the tasks."""

    builder: Builder
    applier: Applier
    facts: TargetFacts
    timer: InModelTimer
    default_vmfb: Path
    settings: LoopSettings
    on_record: Callable[[Record], None]
    record_fields: dict
    work_dir: Path
    tool_seconds: float = 0.0  # compiling and profiling: the stage is little else
    _space_sizes: dict[str, int] = field(default_factory=dict)

    def run(self, tasks: Sequence[SearchTask]) -> list[DispatchResult]:
        """Each task's finalists (its ranker's order, `budget` long) measured inside the model; the results in the
        tasks' order, each with its finals and a winner where one is faster beyond the noise."""
        started = time.perf_counter()
        chosen = [self._finalists(task) for task in tasks]
        if any(chosen) and all(f.earlier is not None for found in chosen for f in found):  # resumed: the stage was done
            print("note: every finalist was timed inside the model by the interrupted run: its measurements are kept")
            return [self._earlier_result(task, found) for task, found in zip(tasks, chosen)]
        builds = self._build(tasks, chosen)  # timed together or not at all: the rounds compare builds of one stage
        built = [(b.index, b.vmfb) for b in builds if b.status == "ok"]
        with display().phase(f"time {len(builds)} builds of every dispatch's finalists inside the model"):
            default, combined = self.timer.time(self.default_vmfb, built)
        timed = _Timed({index: list(default) for index, _ in built}, combined)
        again = {
            index for task, found in zip(tasks, chosen) if (index := self._undecided(task, found, timed)) is not None
        }
        if again:
            with display().phase(
                f"time {len(again)} of those builds again: a dispatch's fastest finalist in each is not yet decided"
            ):
                more_default, more = self.timer.time(
                    self.default_vmfb, [b for b in built if b[0] in again], first_round=self.timer.rounds
                )
            for index in again:
                timed.default[index] += more_default
                timed.combined[index] += more[index]
        self.tool_seconds += time.perf_counter() - started
        return [self._result(task, found, builds, timed) for task, found in zip(tasks, chosen)]

    def _undecided(self, task: SearchTask, found: Sequence[_Finalist], timed: _Timed) -> int | None:
        """The build of `task`'s fastest finalist, where it reaches the speedup asked for at the median but its
        interval does not lie above 1."""
        return second_look(
            {j: timed.measurement(f.index, task.problem.key, j) for j, f in enumerate(found) if j in timed.combined},
            self.settings.min_speedup,
        )

    def _finalists(self, task: SearchTask) -> list[_Finalist]:
        candidates = task.configurator.candidates()
        self._space_sizes[task.name] = len(candidates)  # enumerated once: the result reports it too
        task.ranker.start(RankingInput(task.problem, self.facts, candidates))
        earlier = {trial.index: trial for trial in (task.earlier_of(candidates) if task.earlier_of else ())}
        found = []
        for index in task.ranker.ask(task.budget):
            knobs = candidates.knobs(index)
            found.append(_Finalist(index, knobs, task.configurator.compilation_info(knobs), earlier.get(index)))
        return found

    def _build(self, tasks: Sequence[SearchTask], chosen: Sequence[list[_Finalist]]) -> list[BuildResult]:
        """Build j: every task's j-th finalist, linked into one spec."""
        jobs = []
        for j in range(max((len(found) for found in chosen), default=0)):
            linked = self.work_dir / f"link_{j}"
            linked.mkdir(parents=True, exist_ok=True)
            jobs.append(
                (
                    j,
                    self.applier.combine(
                        [
                            (task.problem, found[j].compilation_info)
                            for task, found in zip(tasks, chosen)
                            if j < len(found)
                        ],
                        linked,
                    ),
                )
            )
        with display().phase(f"compile {len(jobs)} builds of every dispatch's finalists"):
            return self.builder.compile_many(jobs, group=GROUP)

    def _result(
        self, task: SearchTask, found: Sequence[_Finalist], builds: Sequence[BuildResult], timed: _Timed
    ) -> DispatchResult:
        result = self._new_result(
            task,
            f"{len(found)} finalists timed inside the model, in {len(builds)} builds of every dispatch's finalists",
        )
        for position, (finalist, build) in enumerate(zip(found, builds)):
            measurement = None
            if build.status == "ok":
                measurement = timed.measurement(finalist.index, task.problem.key, build.index)
            trial = Trial(finalist.index, position, finalist.knobs, build, measurement, finalist.compilation_info)
            result.trials.append(trial)
            self.on_record(
                trial_record(
                    task.problem,
                    task.configurator.pipeline_of(finalist.knobs),
                    trial,
                    task.ranker.name,
                    {**self.record_fields, "level": LEVEL},
                )
            )
        return self._decided(result)

    def _earlier_result(self, task: SearchTask, found: Sequence[_Finalist]) -> DispatchResult:
        """The stage as an interrupted run measured it; each finalist's build is that run's build of its rank."""
        result = self._new_result(task, f"{len(found)} finalists timed inside the model by the interrupted run")
        for position, finalist in enumerate(found):
            assert finalist.earlier is not None
            trial = finalist.earlier
            vmfb = self.builder.candidate_vmfb(GROUP, position)
            result.trials.append(replace(trial, build=replace(trial.build, vmfb=vmfb if vmfb.is_file() else None)))
        return self._decided(result)

    def _new_result(self, task: SearchTask, stop_reason: str) -> DispatchResult:
        return DispatchResult(
            task.name,
            task.problem,
            self._space_sizes[task.name],
            min_speedup=self.settings.min_speedup,
            timed="its dispatches' time inside the model, all dispatches' finalists together",
            stop_reason=stop_reason,
        )

    def _decided(self, result: DispatchResult) -> DispatchResult:
        """The result's finals (`screen_first_of_the_fastest`), and its winner where the first wins beyond the noise:
        the fallback attempts and the report take a dispatch's config from its finals in that order."""
        measured = [(t, t.measurement) for t in result.trials if t.measurement is not None]
        result.finals = screen_first_of_the_fastest(measured, self.settings.min_speedup)
        if result.finals and result.finals[0][1].wins(self.settings.min_speedup):
            result.winner = result.finals[0]
        return result


def screen_first_of_the_fastest(
    measured: Sequence[tuple[Trial, Measurement]], min_speedup: float
) -> list[tuple[Trial, Measurement]]:
    """The finalists fastest first, except that where the fastest wins beyond the noise, the one the screen ranked
    first of those that win too and whose median lies within the fastest's interval goes first: a dispatch's own
    time inside the model cannot order them, nor does it show what a config does to the dispatches around it: on
    BERT-base the in-model pick, a little faster there than the screen's first, ran the whole model slower
    (docs/whole-model-tuning.md)."""
    fastest_first = sorted(measured, key=lambda pair: pair[1].ratio)
    if not fastest_first or not fastest_first[0][1].wins(min_speedup):
        return fastest_first
    low = fastest_first[0][1].estimate.low
    chosen = min(
        (pair for pair in fastest_first if pair[1].wins(min_speedup) and pair[1].estimate.speedup >= low),
        key=lambda pair: pair[0].position,
    )
    return [chosen, *(pair for pair in fastest_first if pair is not chosen)]


def second_look(finals: dict[int, Measurement], min_speedup: float) -> int | None:
    """Of one dispatch's finalists by build, the build to time again: the fastest finalist's, where it reaches
    `min_speedup` at the median but its interval does not lie above 1 (None: decided either way)."""
    if not finals:
        return None
    build = min(finals, key=lambda j: finals[j].ratio)
    best = finals[build]
    return build if best.estimate.speedup >= min_speedup and not best.wins(min_speedup) else None


@dataclass(frozen=True)
class _Timed:
    """Each build's rounds (by build index) and IREE's default build's rounds paired with them."""

    default: dict[int, list[ProblemTimes]]
    combined: dict[int, list[ProblemTimes]]

    def measurement(self, candidate: int, key: str, build: int) -> Measurement:
        """Candidate `candidate` of problem `key`, timed in build `build`, read as a plan of two looks."""
        return Measurement(
            candidate,
            "ok",
            tuple(times[key] for times in self.combined[build]),
            tuple(times[key] for times in self.default[build]),
            looks=LOOKS,
        )
