"""Two-stage search of a whole model: screen every candidate on a small module, time only the finalists whole.

Compiling and timing a real model for every candidate is what limits a model's search (a compile of seconds to
minutes each). The screen (`--screen`) spends a dispatch's budget on its small module instead
(`mltune.search.screen_module`): each candidate compiled into it and timed against IREE's default build of that
same module, interleaved in one process, by the same executor, runner and plan as the model's candidates; the
ranker is told the screen's ratios. The screen's best `finalists` then go to the model: compiled whole and
measured once against IREE's default model with the finals' plan (they are the finalists; a screening measurement
of the model before it would only repeat it), and then the configs' check, numerics and the end to end timing, all
on the model. A screen disagrees with the model at times (dumped benchmarks read never-written
memory, a one-op model leaves out the fused ops: `docs/dispatch-benchmarks-vs-model.md`), which is why no verdict
rests on it; `docs/whole-model-tuning.md` measures how often its order misses the model's best.

Records of screened candidates carry `screen` (the screen's kind), and `level` "dispatch" for a dumped benchmark:
their ratios are the small module's, never to be read as the model's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Callable, Sequence

from iree.compiler import ir
from iree.compiler import version as compiler_version

from mltune.emit.apply import make_applier
from mltune.execution.build import NOT_APPLIED, Builder
from mltune.execution.devices import make_runner
from mltune.execution.executor import Workload
from mltune.execution.local import LocalExecutor
from mltune.rankers.base import RankingInput, StaticRanker
from mltune.records.dataset import Record
from mltune.search.loop import SearchTask, TuningLoop
from mltune.search.settings import LoopSettings
from mltune.search.results import DispatchResult
from mltune.search.resume import earlier_trials
from mltune.search.screen_module import ScreenModule, screen_module
from mltune.system.progress import display
from mltune.targets import Target, TargetFacts

AUTO_SCREEN = "dispatch"  # what `auto` screens with: chosen by `benchmarks/whole_models/screen_agreement.py`


def screen_group(name: str) -> str:
    """The name a dispatch's screen is searched under, apart from its model stage on the same executor."""
    return f"screen of {name}"


def screen_kind(choice: str, dispatch_level: bool, dispatches: int, flags_in_space: bool = False) -> str | None:
    """The screen a run uses: none for a dispatch benchmark or a model of one dispatch (its whole model is already
    the small module), `auto`'s kind for a model of several. Where candidates carry compile flags that form the
    dispatches (a contraction's data-tiled lowering), a dump cannot screen them: the one-op model does."""
    if choice == "none" or dispatch_level or (choice == "auto" and dispatches <= 1):
        return None
    kind = AUTO_SCREEN if choice == "auto" else choice
    return "one-op" if kind == "dispatch" and flags_in_space else kind


class ScreenedOrder(StaticRanker):
    """The model stage's ranker: the screen's finalists, best first; it learns nothing more."""

    def __init__(self, order: Sequence[int], name: str):
        super().__init__()
        self.finalists, self.name = list(order), name

    def order(self, ranking_input: RankingInput) -> list[int]:
        return self.finalists


def finalists_of(result: DispatchResult, count: int) -> list[int]:
    """The `count` candidates the screen measured fastest, fastest first (slower than the default too: the screen
    can be wrong by more than their distance from it)."""
    measured = sorted(
        (t for t in result.trials if t.measurement and t.measurement.status == "ok"), key=lambda t: t.measurement.ratio
    )
    return [t.index for t in measured[:count]]


@dataclass
class ScreenStage:
    """Everything the screen needs besides the tasks: where and how to build and time, and where records go."""

    kind: str
    finalists: int
    target: Target
    facts: TargetFacts
    settings: LoopSettings
    context: ir.Context
    on_record: Callable[[Record], None]
    record_fields: dict
    work_dir: Path
    benches: dict[str, Path]  # each dispatch's dumped benchmark, by name
    recorded: list[dict[str, Any]]  # an interrupted run's records: screened candidates are not screened again
    device: str
    devices: tuple[str, ...]
    jobs: int
    seed: int = 0
    compile_flags: tuple[str, ...] = ()
    screened: dict[str, tuple[str, DispatchResult]] = field(default_factory=dict)  # by dispatch: kind, result
    tool_seconds: float = 0.0  # compiling and timing: the run's report counts the rest as the tuner's overhead
    _screens: dict[str, _Screen] = field(default_factory=dict)  # a cluster's prepared screens, by dispatch

    def describe(self, result: DispatchResult) -> None:
        """Say in the dispatch's stop reason what its screen measured, for the report."""
        if result.name in self.screened:
            kind, screen = self.screened[result.name]
            which = "the best" if screen.benchmarked else "unscreened, the ranker's first"
            result.screened = screen.benchmarked
            result.stop_reason = (
                f"{screen.benchmarked} screened on its {'dump' if kind == 'dispatch' else kind}, "
                f"{screen.stop_reason}; {which} {result.benchmarked} timed in the model"
            )

    def run(self, tasks: Sequence[SearchTask]) -> list[SearchTask]:
        """On one machine: each task screened, one after another on its device; each comes back with the screen's
        finalists as its order and count as budget, for the model stage that follows."""
        screens = {task.name: screen for task in tasks if (screen := self._prepare(task)) is not None}
        for name, screen in screens.items():
            self.screened[name] = (screen.kind, self._search(screen))
        return [self._finalists(task, screens[task.name].kind) if task.name in screens else task for task in tasks]

    def workloads(self, tasks: Sequence[SearchTask]) -> dict[str, Workload]:
        """On a cluster, before `stream`: each task's screen prepared; their workloads by group, for the executor
        that runs the screens and the model stage together."""
        self._screens = {task.name: screen for task in tasks if (screen := self._prepare(task)) is not None}
        return {screen_group(name): screen.workload for name, screen in self._screens.items()}

    def stream(self, tasks: Sequence[SearchTask], loop: TuningLoop) -> list[tuple[SearchTask, DispatchResult]]:
        """On a cluster: every dispatch screened at once, and each dispatch's finalists timed in the model as soon
        as its own screen ends, all through `loop`, whose executor has `workloads`' groups besides the model. A
        model stage that waited for every screen, and then for its own executor and actors, left every GPU idle
        meanwhile (`docs/scaling.md`: what several GPUs reach this way). Each task's model-stage task and
        result, in the tasks' order; a task without a screen goes to the model at once."""
        model_tasks: dict[str, SearchTask] = {}

        def follow(task: SearchTask, kind: str, screened: DispatchResult) -> SearchTask:
            self.screened[task.name] = (kind, screened)
            model_tasks[task.name] = self._finalists(task, kind)
            return model_tasks[task.name]

        first = []
        for task in tasks:
            screen = self._screens.get(task.name)
            if screen is None:
                model_tasks[task.name] = task
                first.append(task)
            else:
                first.append(
                    replace(
                        screen.task, name=screen_group(task.name), finalists=0, then=partial(follow, task, screen.kind)
                    )
                )
        by_name = {result.name: result for result in loop.tune_all(first)}
        return [(model_tasks.get(task.name, task), by_name[task.name]) for task in tasks]

    def _module(self, task: SearchTask) -> ScreenModule:
        with display().phase(f"screen module of {task.name}"):
            return screen_module(
                self.kind,
                task.problem,
                self.benches[task.name],
                self.target,
                self.context,
                self.work_dir / task.name,
                self.compile_flags,
                self.seed,
            )

    def _prepare(self, task: SearchTask) -> _Screen | None:
        """The task's small module, IREE's default build of it, and the task as the screen searches it; None when
        the module does not compile (the dispatch is then searched on the whole model). A dump is built from the
        phase it was dumped at (`mltune.input.tuning_input.DUMP_PHASE_FLAG`), so it holds the model's op: a strided
        contraction's too, which global optimisation would slice if it ran on the dump again."""
        module = self._module(task)
        builder = Builder(module.tuning_input, self.work_dir / task.name / "candidates", self.jobs)
        default = builder.compile(-1, None, "baseline")
        self.tool_seconds += default.seconds
        if default.status != "ok":
            print(
                f"note: {task.name} is searched on the whole model: its {module.kind} screen does not compile "
                f"({default.detail[:200]})"
            )
            return None
        invocation = module.tuning_input.invocation
        earlier = partial(
            earlier_trials,
            self.recorded,
            task.problem,
            configurator=task.configurator,
            compiler=compiler_version.VERSION,
            device=self.device,
            vmfb_of=partial(builder.candidate_vmfb, task.name),
            screen=module.kind,
        )
        applier = make_applier(self.target.kind, module.tuning_input.source, self.context)
        fields = {"screen": module.kind, "level": "dispatch" if invocation.dispatch_level else "model"}
        return _Screen(
            module.kind,
            Workload(builder, default.vmfb, invocation),
            replace(task, earlier_of=earlier, applier=applier, record_fields=fields, default_sha256=default.sha256),
        )

    def _search(self, screen: _Screen) -> DispatchResult:
        """One screen on this machine: its module's builder, device and baseline."""
        workload = screen.workload
        runner = make_runner(workload.invocation, self.devices, self.work_dir / screen.task.name)
        executor = LocalExecutor(workload.builder, runner, workload.baseline, self.settings.batch_size)
        loop = TuningLoop(
            executor,
            self.facts,
            screen.task.applier,
            replace(self.settings, finalists=0),
            self.context,
            self.on_record,
            self.record_fields,
        )
        try:
            return loop.tune_all([screen.task])[0]
        finally:
            executor.close()
            self.tool_seconds += executor.tool_seconds + runner.seconds_in_children

    def _finalists(self, task: SearchTask, kind: str) -> SearchTask:
        """The task for the model stage: the screen's finalists, fastest first, its whole budget. Where no screened
        candidate took effect (each built to the small module's default: its spec matched nothing there), the
        screen ordered nothing, so the model stage takes as many from the ranker's own order, unscreened."""
        screen = self.screened[task.name][1]
        order = finalists_of(screen, self.finalists)
        if not order and any(t.build.status == NOT_APPLIED for t in screen.trials):
            print(
                f"note: no screened candidate of {task.name} took effect on its {kind} screen (each built to IREE's "
                f"default module): the first {min(self.finalists, task.budget)} of {task.ranker.name}'s order go "
                f"to the model unscreened"
            )
            return self._ranker_first(task)
        return replace(
            task,
            ranker=ScreenedOrder(order, f"{task.ranker.name}+{kind}-screen"),
            budget=len(order),
            finalists_only=len(order) <= self.settings.finalists,
        )

    def _ranker_first(self, task: SearchTask) -> SearchTask:
        """The task for the model stage without a screen's order: the ranker's first finalists."""
        count = min(self.finalists, task.budget)
        return replace(task, budget=count, finalists_only=count <= self.settings.finalists)


@dataclass(frozen=True)
class _Screen:
    """One dispatch ready to screen: its module's kind and workload, and its task."""

    kind: str
    workload: Workload
    task: SearchTask
