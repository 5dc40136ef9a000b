"""The two-stage search of a model (`mltune.search.screen`): candidates screened on a small module with the real
compiler and runtime, the screen's best forwarded to the model, screened records marked."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from statistics import median

import pytest
from iree_helpers import TWO_OP_SOURCE, mltune

from mltune.execution.build import Builder
from mltune.frontend.mlir import new_context
from mltune.frontend.one_op_model import ContractionShape, contraction_model
from mltune.frontend.problem import Problem
from mltune.input.dispatches import read_dispatches
from mltune.input.tuning_input import DUMP_PHASE_FLAG, prepare_input
from mltune.rankers import make_ranker
from mltune.rankers.seeded import SeededRanker
from mltune.records.dataset import Record
from mltune.search.loop import SearchTask
from mltune.search.screen import ScreenedOrder, ScreenStage, finalists_of, screen_kind
from mltune.search.screen_module import one_op_module, screen_module
from mltune.search.settings import LoopSettings
from mltune.targets import parse_target
from mltune.tuning.prepare import configurators
from mltune.whole_model.in_model_timer import ROUNDS

pytestmark = pytest.mark.e2e


def test_screen_kind_is_off_where_the_model_is_the_small_module():
    assert screen_kind("auto", False, 3) == "dispatch"
    assert screen_kind("auto", False, 1) is None  # a one-op model
    assert screen_kind("one-op", True, 1) is None  # a dispatch benchmark
    assert screen_kind("none", False, 5) is None
    assert screen_kind("one-op", False, 2) == "one-op"
    assert screen_kind("dispatch", False, 2, flags_in_space=True) == "one-op"  # data tiling forms the dispatch


def _tasks(tmp_path: Path, context, budget: int):
    source = tmp_path / "two_ops.mlir"
    source.write_text(TWO_OP_SOURCE)
    target = parse_target("host")
    tuning_input = prepare_input(source, target, tmp_path / "run", context)
    dispatches = [d for d in read_dispatches(tuning_input, context) if isinstance(d.problem, Problem)]
    tasks = [
        SearchTask(d.name, d.problem, c, SeededRanker(make_ranker("heuristic", 0, d.facts), []), budget)
        for d, c in configurators(dispatches, context, tmp_path / "spaces")
    ]
    return target, dispatches, tasks


def test_a_dumps_screen_is_built_with_the_users_flags(tmp_path):
    """The user's --iree-flag reaches every build of a dispatch's dump, as it reaches the model's (a screen built
    otherwise would time candidates the model never runs), and the dump is built from the phase it was dumped at."""
    context = new_context()
    target, dispatches, tasks = _tasks(tmp_path, context, budget=1)
    binaries = tmp_path / "binaries"
    flags = [f"--iree-hal-dump-executable-binaries-to={binaries}"]  # a flag whose effect shows on disk
    input_flags = ["--iree-input-type=onnx", "--iree-input-demote-i64-to-i32"]  # the model's import: a dump fails them
    bench = next(b for b in (tmp_path / "run" / "dispatches").glob("*_benchmark.mlir") if dispatches[0].name in b.name)
    module = screen_module(
        "dispatch", dispatches[0].problem, bench, target, context, tmp_path / "screen", [*input_flags, *flags], 0
    )
    assert module.kind == "dispatch" and module.tuning_input.compile_flags == (*flags, DUMP_PHASE_FLAG)
    assert Builder(module.tuning_input, tmp_path / "builds", 1).compile(-1, None, "baseline").status == "ok"
    assert [p.suffix for p in binaries.iterdir()] == [".so"]


@pytest.mark.slow  # 13 s: test_screen_applied screens a dump and forwards its fastest in the default run
@pytest.mark.parametrize("kind, level", [("dispatch", "dispatch"), ("one-op", "model")])
def test_screen_forwards_its_fastest_and_marks_its_records(tmp_path, kind, level):
    context = new_context()
    target, dispatches, tasks = _tasks(tmp_path, context, budget=4)
    tasks = tasks[:1] if kind == "one-op" else tasks  # the one-op model of the matmul; the dumps of both
    records: list[Record] = []
    facts = dispatches[0].facts
    stage = ScreenStage(
        kind,
        2,
        target,
        facts,
        LoopSettings(batch_size=4),
        context,
        records.append,
        {"arch": facts.arch, "device": "test", "run_id": "screen-test", "level": "model"},
        tmp_path / "screen",
        {d.name: d.bench for d in dispatches},
        [],
        "test",
        ("local-task",),
        2,
    )
    forwarded = stage.run(tasks)
    for before, after in zip(tasks, forwarded):
        mine = [r for r in records if Problem.from_record(r.problem).key == before.problem.key]
        assert len(mine) == 4 and {r.screen for r in mine} == {kind} and {r.level for r in mine} == {level}
        assert {r.ranker for r in mine} == {"heuristic"}
        measured = sorted(
            (r for r in mine if r.status == "ok"), key=lambda r: median(t / b for t, b in zip(r.time_us, r.baseline_us))
        )
        assert isinstance(after.ranker, ScreenedOrder) and after.ranker.name == f"heuristic+{kind}-screen"
        assert after.budget == len(after.ranker.finalists) == min(2, len(measured))
        space = before.configurator.candidates()
        assert [space.knobs(i) for i in after.ranker.finalists] == [r.knobs for r in measured[:2]]
        assert (tmp_path / "screen" / before.name / "candidates" / "baseline" / "module.vmfb").is_file()


@pytest.mark.slow
def test_cli_screens_a_model_then_decides_on_the_model(tmp_path):
    (tmp_path / "two_ops.mlir").write_text(TWO_OP_SOURCE)
    done = mltune(
        [
            "tune",
            "two_ops.mlir",
            "--budget",
            "16",
            "--top",
            "2",
            "--screen-finalists",
            "2",
            "--run-dir",
            "run",
            "--dataset-dir",
            "datasets",
            "-o",
            "spec.mlir",
            "-q",
        ],
        cwd=tmp_path,
    )
    assert done.returncode in (0, 1), done.stderr  # 1: a result refused, which the model decides
    records = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    screened = [r for r in records if r["screen"]]
    whole = [r for r in records if not r["screen"]]
    assert {r["screen"] for r in screened} == {"dispatch"} and {r["level"] for r in screened} == {"dispatch"}
    assert len(screened) == 16
    assert whole and all(r["ranker"].endswith("+dispatch-screen") for r in whole)
    # llvm-cpu: the finalists of both dispatches timed inside the model together, in one build per rank
    assert {r["level"] for r in whole} == {"in-model"} and all(len(r["time_us"]) in (ROUNDS, 2 * ROUNDS) for r in whole)
    per_problem = Counter(json.dumps(r["problem"], sort_keys=True) for r in whole)
    assert len(per_problem) == 2 and max(per_problem.values()) <= 2
    builds = sorted(p.name for p in (tmp_path / "run" / "candidates" / "in_model").iterdir())
    assert builds == [f"candidate_{j:06d}" for j in range(max(per_problem.values()))]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["level"] == "model" and "end_to_end" in summary
    check = summary["config_check"]  # the winners, if any, checked in one build profiled against none: no leave-one-out
    if check["kept"] or check["dropped"]:
        assert check["method"] == "inside the model"  # with all configs in, or in halves of them
        assert not list((tmp_path / "run").glob("**/verify_without_*"))


@pytest.mark.slow
def test_a_run_stopped_after_the_in_model_stage_resumes_without_timing_it_again(tmp_path):
    """SIGTERM while the winners are checked, after the in-model stage; the resumed run keeps that stage's records,
    and builds and times nothing of it again."""
    import signal
    import subprocess
    import sys
    import time

    (tmp_path / "two_ops.mlir").write_text(TWO_OP_SOURCE)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "tune",
            "two_ops.mlir",
            "--budget",
            "16",
            "--top",
            "2",
            "--screen-finalists",
            "2",
            "--run-dir",
            "run",
            "--dataset-dir",
            "datasets",
            "-o",
            "spec.mlir",
            "-q",
        ],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    results = tmp_path / "run" / "results.jsonl"

    def in_model() -> list[dict]:
        lines = results.read_text().split("\n")[:-1] if results.exists() else []  # whole lines: one may be half written
        return [r for r in map(json.loads, lines) if r["level"] == "in-model"]

    deadline = time.monotonic() + 240
    while not in_model():  # the stage records its finalists together, once all are timed (the winners' check,
        # which follows it, runs only where a finalist won: waiting for it failed a run where none did)
        assert proc.poll() is None and time.monotonic() < deadline, "the run never finished its in-model stage"
        time.sleep(0.05)
    time.sleep(0.2)  # the records after the first
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=120)
    if (tmp_path / "run" / "summary.json").exists():  # no finalist won: nothing was left to check after the stage
        pytest.skip("the run ended before the signal reached it")
    kept = in_model()
    builds = tmp_path / "run" / "candidates" / "in_model"
    stamps = {p: p.stat().st_mtime_ns for p in builds.rglob("module.vmfb")}
    done = mltune(["tune", "--resume", "run"], cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert "every finalist was timed inside the model by the interrupted run" in done.stdout
    assert in_model() == kept, "no finalist was timed inside the model again"
    assert {p: p.stat().st_mtime_ns for p in builds.rglob("module.vmfb")} == stamps, "no build was made again"
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["level"] == "model"


def _tiny_loop(tiny, context, tmp_path, settings: LoopSettings):
    """A loop over the tiny model's one dispatch on this machine, the plan of every benchmark it submits, its
    records, the dispatch and its configurator."""
    from mltune.emit.apply import SpecApplier
    from mltune.execution.build import Builder
    from mltune.execution.local import LocalExecutor
    from mltune.execution.runner import Runner
    from mltune.search.loop import TuningLoop
    from mltune.spaces.cpu_contraction import CpuContraction
    from mltune.targets import CpuTarget

    tuning_input = prepare_input(tiny.source, CpuTarget(), tmp_path, context)
    (dispatch,) = read_dispatches(tuning_input, context)
    builder = Builder(tuning_input, tmp_path / "candidates", jobs=2)
    baseline = builder.compile(-1, None, "baseline")
    executor = LocalExecutor(builder, Runner(tuning_input.invocation, "local-task", tmp_path), baseline.vmfb, 4)
    plans, records = [], []
    submit = executor.submit_benchmark
    executor.submit_benchmark = lambda job: (plans.append(job.plan), submit(job))[1]
    loop = TuningLoop(
        executor,
        dispatch.facts,
        SpecApplier(context),
        settings,
        context,
        records.append,
        {"arch": dispatch.facts.arch, "device": "test", "run_id": "r", "level": "model"},
    )
    return loop, plans, records, dispatch, CpuContraction(dispatch.problem, dispatch.facts, context)


@pytest.mark.slow  # test_a_task_that_ends_starts_the_task_that_follows_it checks the finals' plan in the default run
def test_finalists_chosen_by_a_screen_are_measured_once_with_the_finals_plan(tiny, context, tmp_path):
    """A model stage whose candidates are its finalists: each is measured with the finals' plan (2 rounds here,
    the screening plan 1) and that measurement decides; nothing is benchmarked a second time."""
    from mltune.execution.measurement import TimingPlan

    settings = LoopSettings(
        budget=3,
        batch_size=4,
        finalists=3,
        screening=TimingPlan(rounds=1, round_seconds=0.03),
        final=TimingPlan(rounds=2, round_seconds=0.03, slow_factor=1e9),
    )  # no early stop
    loop, plans, records, dispatch, configurator = _tiny_loop(tiny, context, tmp_path, settings)
    order = ScreenedOrder([0, 1, 2], "heuristic+dispatch-screen")
    task = SearchTask(dispatch.name, dispatch.problem, configurator, order, 3, finalists_only=True)
    (result,) = loop.tune_all([task])
    assert plans == [settings.final] * 3 and len(records) == 3
    assert all(len(r.time_us) == 2 for r in records if r.status == "ok")
    faster = sorted(
        (t for t in result.trials if t.measurement and t.measurement.ratio < 1), key=lambda t: t.measurement.ratio
    )
    assert [(t.index, t.measurement) for t in faster] == [(t.index, m) for t, m in result.finals]


@pytest.mark.slow  # 6 s: two stages of a search loop, timed
def test_a_task_that_ends_starts_the_task_that_follows_it(tiny, context, tmp_path):
    """A first stage that keeps no finalists hands its fastest candidate to the task that follows it, in the same
    loop: that one is measured with the finals' plan, once; the first stage's candidates are not measured again."""
    from mltune.execution.measurement import TimingPlan

    settings = LoopSettings(
        budget=3,
        batch_size=4,
        finalists=3,
        screening=TimingPlan(rounds=1, round_seconds=0.03),
        final=TimingPlan(rounds=2, round_seconds=0.03, slow_factor=1e9),
    )
    loop, plans, records, dispatch, configurator = _tiny_loop(tiny, context, tmp_path, settings)
    heuristic = make_ranker("heuristic")
    second = SearchTask(dispatch.name, dispatch.problem, configurator, heuristic, 1, finalists_only=True)
    handed: list[int] = []

    def then(result):
        handed.extend(finalists_of(result, 1))
        return replace(second, ranker=ScreenedOrder(handed, "heuristic+screen"))

    first = replace(
        second, name="screen", ranker=make_ranker("heuristic"), budget=3, finalists_only=False, finalists=0, then=then
    )
    results = loop.tune_all([first])
    assert [r.name for r in results] == ["screen", dispatch.name]
    assert plans == [settings.screening] * 3 + [settings.final]
    assert [t.index for t in results[1].trials] == handed and not results[0].finals
    assert len(records) == 4


def test_a_unit_batch_matmul_is_screened_on_a_one_op_model_iree_dispatches_alike(tmp_path):
    """A model's `linalg.batch_matmul` with a batch of 1 (each BERT layer's projections, as iree-turbine exports
    them) gets a one-op model that IREE dispatches as the same problem: written as a `linalg.generic`, its unit
    batch loop was folded away and the problem could only be screened on its dump."""
    context, target = new_context(), parse_target("host")
    source = tmp_path / "batch_matmul.mlir"
    source.write_text(contraction_model(ContractionShape(64, 96, 32, batch=1)))
    tuning_input = prepare_input(source, target, tmp_path / "model", context)
    (dispatch,) = read_dispatches(tuning_input, context)
    problem = dispatch.problem
    assert isinstance(problem, Problem) and problem.op_name == "linalg.batch_matmul" and problem.bounds[0] == 1
    module = one_op_module(problem, target, context, tmp_path / "one_op", (), 0)
    assert module is not None and module.kind == "one-op"
