"""A screen's candidates take effect on the module they are timed on, with the real compiler and runtime: a strided
1x1 projection's dumped benchmark holds the strided op, and a candidate built to IREE's default module is recorded
`not_applied`, never timed; a screen where none takes effect falls back to the ranker."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from iree_helpers import compile_with_dumps, parse_levels, strip_config

from mltune.execution.build import NOT_APPLIED
from mltune.execution.measurement import TimingPlan
from mltune.frontend.one_op_model import one_by_one_convolution_model
from mltune.frontend.problem import ELEMENTWISE, Problem
from mltune.input.dispatches import read_dispatches
from mltune.input.tuning_input import prepare_input
from mltune.rankers import make_ranker
from mltune.rankers.base import RankingInput
from mltune.records.dataset import Record
from mltune.search.loop import NONE_APPLIED, SearchTask
from mltune.search.screen import ScreenedOrder, ScreenStage
from mltune.search.settings import LoopSettings
from mltune.spaces.cpu_reduction import knobs_of_levels
from mltune.targets import parse_target
from mltune.tuning.prepare import configurators

pytestmark = pytest.mark.e2e

STRIDED = one_by_one_convolution_model(32, 7, 16, 2)  # a ReLU, then a strided 1x1 convolution: small on purpose
PROJECTION = one_by_one_convolution_model(32, 7, 16, 1, pad_output=1)  # without steps: its dump holds the model's op
SETTINGS = LoopSettings(batch_size=4, screening=TimingPlan(rounds=1, round_seconds=0.02))


def _read(source_text: str, root: Path, context):
    """The model's one tunable dispatch as `mltune tune` reads it, and its configurator."""
    source = root / "model.mlir"
    source.write_text(source_text)
    tuning_input = prepare_input(source, parse_target("host"), root / "run", context)
    (dispatch,) = [
        d
        for d in read_dispatches(tuning_input, context)
        if isinstance(d.problem, Problem) and d.problem.op_kind != ELEMENTWISE
    ]  # not the ReLU's
    ((_, configurator),) = configurators([dispatch], context, root / "spaces")
    return dispatch, configurator


@pytest.fixture(scope="module")
def strided(tmp_path_factory, context):
    dispatch, configurator = _read(STRIDED, tmp_path_factory.mktemp("strided"), context)
    return {"target": parse_target("host"), "dispatch": dispatch, "configurator": configurator, "context": context}


@pytest.fixture(scope="module")
def projection(tmp_path_factory, context):
    """The unstrided projection's dispatch, and IREE's own tiles for its dump compiled alone."""
    root = tmp_path_factory.mktemp("projection")
    dispatch, configurator = _read(PROJECTION, root, context)
    target = parse_target("host")
    plain = compile_with_dumps(strip_config(dispatch.bench, root / "stripped.mlir"), root / "plain")
    configured = "".join(path.read_text() for path in plain.glob("configured_*.mlir"))
    levels = parse_levels(re.search(r"lowering_config<([^>]*\bdistribution = [^>]*)>", configured).group(1))
    return {
        "target": target,
        "dispatch": dispatch,
        "configurator": configurator,
        "context": context,
        "dump_default": configurator.candidates().index_of(knobs_of_levels(dispatch.problem, levels)),
    }


def _stage(projection, tmp_path: Path, records: list[Record], finalists: int = 2) -> ScreenStage:
    dispatch = projection["dispatch"]
    facts = dispatch.facts
    return ScreenStage(
        "dispatch",
        finalists,
        projection["target"],
        facts,
        SETTINGS,
        projection["context"],
        records.append,
        {"arch": facts.arch, "device": "test", "run_id": "applied", "level": "model"},
        tmp_path / "screen",
        {dispatch.name: dispatch.bench},
        [],
        "test",
        ("local-task",),
        2,
    )


def _task(projection, order: list[int]) -> SearchTask:
    dispatch = projection["dispatch"]
    return SearchTask(
        dispatch.name, dispatch.problem, projection["configurator"], ScreenedOrder(order, "given"), len(order)
    )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_strided_projection_is_screened_on_its_dump_and_its_candidates_take_effect(strided, tmp_path):
    """Built from the phase it was dumped at, the dump holds the strided op (global optimisation, run again, would
    read the strided input through a slice and leave another op, which a spec of the model's op does not match):
    each screened candidate builds a module of its own and is timed."""
    records: list[Record] = []
    stage = _stage(strided, tmp_path, records)
    (forwarded,) = stage.run([_task(strided, [3, 4])])
    assert [r.status for r in records] == ["ok", "ok"] and all(r.time_us for r in records)
    modules = tmp_path / "screen" / strided["dispatch"].name / "candidates"
    built = [_sha256(path) for path in modules.glob("*/candidate_*/module.vmfb")]
    assert len(set(built)) == 2 and _sha256(modules / "baseline" / "module.vmfb") not in built
    assert isinstance(forwarded.ranker, ScreenedOrder) and sorted(forwarded.ranker.finalists) == [3, 4]


def test_a_projections_screen_candidates_take_effect(projection, tmp_path):
    """Each screened candidate builds to a module of its own and is timed."""
    default = projection["dump_default"]
    heuristic = make_ranker("heuristic", 0, projection["dispatch"].facts)
    heuristic.start(
        RankingInput(
            projection["dispatch"].problem, projection["dispatch"].facts, projection["configurator"].candidates()
        )
    )
    order = [i for i in heuristic.ask(3) if i != default][:2]
    records: list[Record] = []
    stage = _stage(projection, tmp_path, records)
    (forwarded,) = stage.run([_task(projection, order)])
    assert [r.status for r in records] == ["ok", "ok"] and all(r.time_us for r in records)
    modules = tmp_path / "screen" / projection["dispatch"].name / "candidates"
    baseline = _sha256(modules / "baseline" / "module.vmfb")
    built = [_sha256(path) for path in modules.glob("*/candidate_*/module.vmfb")]
    assert len(built) == 2 and baseline not in built
    assert isinstance(forwarded.ranker, ScreenedOrder) and sorted(forwarded.ranker.finalists) == sorted(order)


def test_a_candidate_built_to_the_default_is_recorded_not_applied_and_never_timed(projection, tmp_path):
    """IREE's own tiles for the dumped module, set by a spec, build its default module byte for byte."""
    default = projection["dump_default"]
    other = next(i for i in range(10) if i != default)
    records: list[Record] = []
    (forwarded,) = _stage(projection, tmp_path, records).run([_task(projection, [default, other])])
    by_status = {r.status: r for r in records}
    assert sorted(by_status) == [NOT_APPLIED, "ok"]
    assert by_status[NOT_APPLIED].time_us == [] and by_status[NOT_APPLIED].baseline_us == []
    assert "identical to IREE's default build" in by_status[NOT_APPLIED].detail
    assert forwarded.ranker.finalists == [other], "only a candidate that took effect is a finalist"


def test_a_screen_where_no_candidate_takes_effect_falls_back_to_the_rankers_order(projection, tmp_path, capsys):
    records: list[Record] = []
    stage = _stage(projection, tmp_path, records, finalists=3)
    task = _task(projection, [projection["dump_default"]])
    (forwarded,) = stage.run([task])
    assert [r.status for r in records] == [NOT_APPLIED]
    assert stage.screened[task.name][1].stop_reason == NONE_APPLIED
    assert forwarded.ranker is task.ranker and forwarded.budget == 1, "the ranker's first (no more than its budget)"
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "took effect" in line]
    assert task.name in line and "unscreened" in line
