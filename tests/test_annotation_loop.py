"""CUDA's way of applying candidates (annotating the op instead of a spec) through the whole loop, run on
the host CPU (the only device here): compiled, measured, and the winner's annotated model compiles with
its configuration."""

from __future__ import annotations

import pytest
from iree_helpers import HOST_FLAGS, compile_with_configs_dump

from mltune.emit.apply import AnnotationApplier
from mltune.execution.build import Builder
from mltune.execution.local import LocalExecutor
from mltune.execution.measurement import TimingPlan
from mltune.execution.runner import Runner
from mltune.input.dispatches import read_dispatches
from mltune.input.tuning_input import prepare_input
from mltune.rankers import make_ranker
from mltune.search.loop import TuningLoop
from mltune.search.settings import LoopSettings
from mltune.spaces.cpu_contraction import CpuContraction, tile_lists
from mltune.targets import CpuTarget
from mltune.tuning.tune import SEARCH_SHARE, with_deadline

pytestmark = pytest.mark.e2e


@pytest.mark.slow  # 6 s: a whole search loop over annotated sources
def test_loop_with_annotated_sources(tiny, context, tmp_path):
    tuning_input = prepare_input(tiny.source, CpuTarget(), tmp_path, context)
    (dispatch,) = read_dispatches(tuning_input, context)
    builder = Builder(tuning_input, tmp_path / "candidates", jobs=2)
    baseline = builder.compile(-1, None, "baseline")
    assert baseline.status == "ok", baseline.detail
    applier = AnnotationApplier(tuning_input.source, context)
    records = []
    settings = LoopSettings(
        budget=3,
        batch_size=3,
        screening=TimingPlan(rounds=1, round_seconds=0.03),
        final=TimingPlan(rounds=2, round_seconds=0.03),
    )
    executor = LocalExecutor(builder, Runner(tuning_input.invocation, "local-task", tmp_path), baseline.vmfb, 3)
    loop = TuningLoop(
        executor,
        dispatch.facts,
        applier,
        settings,
        context,
        records.append,
        {"arch": dispatch.facts.arch, "device": "test", "run_id": "r", "level": "model"},
    )
    configurator = CpuContraction(dispatch.problem, dispatch.facts, context)
    result = loop.tune(dispatch.name, dispatch.problem, configurator, make_ranker("heuristic"))
    assert result.benchmarked == 3 and len(records) == 3
    assert all(t.build.status == "ok" and t.measurement.status == "ok" for t in result.trials)
    annotated = sorted((tmp_path / "candidates").glob("*/candidate_*/annotated.mlir"))
    assert len(annotated) == 3 and not list((tmp_path / "candidates").glob("*/candidate_*/spec.mlir"))
    # the combined result is the model with the chosen op annotated; the compiler uses that configuration
    trial = result.trials[1]
    combined = applier.combine([(dispatch.problem, trial.compilation_info)], tmp_path)
    assert combined.kind == "source" and "{compilation_info = #" in combined.text
    (tmp_path / "winner.mlir").write_text(combined.text)
    configs = compile_with_configs_dump(tmp_path / "winner.mlir", tmp_path / "winner", flags=HOST_FLAGS)
    assert configs["linalg.matmul"] == [tile_lists(dispatch.problem, trial.knobs)]


@pytest.mark.slow  # 2 s each
@pytest.mark.parametrize("budget", ["dispatch", "run"])
def test_a_time_budget_ends_the_search_within_about_one_candidate(budget, tiny, context, tmp_path):
    """A 1.5 s time budget with room for a batch of 8: the search starts with one candidate, then only as many as
    fit in the time left, so it ends about one candidate's time after the budget (a first batch of 8 ran 10x over);
    the same for the run's deadline (`--time-budget`, of which the search has a share)."""
    import time

    from mltune.emit.apply import SpecApplier

    tuning_input = prepare_input(tiny.source, CpuTarget(), tmp_path, context)
    (dispatch,) = read_dispatches(tuning_input, context)
    builder = Builder(tuning_input, tmp_path / "candidates", jobs=2)
    baseline = builder.compile(-1, None, "baseline")
    concluded: list[float] = []
    settings = LoopSettings(
        budget=50, batch_size=8, time_budget_s=1.5, finalists=0, screening=TimingPlan(rounds=1, round_seconds=0.03)
    )
    if budget == "run":
        settings = with_deadline(settings, time.monotonic() + 1.5 * (1 - SEARCH_SHARE["dispatch"]), "dispatch")
        assert settings.time_budget_s is None and settings.deadline is not None
    executor = LocalExecutor(builder, Runner(tuning_input.invocation, "local-task", tmp_path), baseline.vmfb, 8)
    loop = TuningLoop(
        executor,
        dispatch.facts,
        SpecApplier(context),
        settings,
        context,
        lambda record: concluded.append(time.monotonic()),
        {"arch": dispatch.facts.arch, "device": "test", "run_id": "r", "level": "model"},
    )
    start = time.monotonic()
    result = loop.tune(
        dispatch.name,
        dispatch.problem,
        CpuContraction(dispatch.problem, dispatch.facts, context),
        make_ranker("heuristic"),
    )
    assert result.stop_reason == "time budget spent" and 1 <= len(result.trials) < 8
    per_candidate = (concluded[-1] - start) / len(concluded)
    assert concluded[-1] - start <= 1.5 + 2 * per_candidate
