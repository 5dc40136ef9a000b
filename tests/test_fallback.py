"""A result the final checks withdraw is followed by the next finalists: which ones (synthetic finals, no tools), and
a slow first choice withdrawn by the real end-to-end timing, then its dispatch's next finalist kept (real compiles,
real timing, real numerics), as the report and `summary.json` say; and a result the run times once more as the user
builds it is not timed alone before that (real compiles, no timing)."""

from __future__ import annotations

from math import nan

import pytest

from mltune.emit.apply import SpecApplier
from mltune.execution.build import Builder, BuildResult
from mltune.execution.devices import make_runner
from mltune.execution.kernel_timing import MeasuredBuilds
from mltune.execution.measurement import Measurement, TimingPlan
from mltune.frontend.one_op_model import ContractionShape, contraction_model
from mltune.input.dispatches import read_dispatches
from mltune.input.tuning_input import prepare_input
from mltune.runs.report import TuneReport
from mltune.runs.report_text import print_report
from mltune.runs.summary import summary
from mltune.search.results import DispatchResult, Trial
from mltune.spaces.cpu_contraction import CpuContraction
from mltune.targets import CpuTarget
from mltune.whole_model.fallback import Attempt, Pick, fallbacks, finish_with_fallbacks, winners
from mltune.whole_model.finish import FinalChecks, ModelOutcome, finish_model
from mltune.whole_model.merge import read_starter_spec
from mltune.whole_model.verify import Config, ConfigCheck

MIN_SPEEDUP = 1.03
PLAIN = {"wg_m": 16, "wg_n": 16, "vec_m": 4, "vec_n": 16, "vec_k": 8}
DATA_TILED = {"lowering": 1, "dt_tile_kib": 256, "dt_threads": 8}


def _claimed(speedup: float, index: int = 0) -> Measurement:
    """Synthetic: a finalist's re-measure that claims `speedup` over IREE's default, 9 rounds a little apart."""
    return Measurement(index, "ok", tuple(1.0 + 0.01 * (r % 3) for r in range(9)), (speedup,) * 9)


def _result(name: str, problem, finals: list[tuple[dict[str, int], str, float]]) -> DispatchResult:
    """Synthetic finals (knobs, compilation info, claimed speedup), best first, the first kept as the winner."""
    trials = [
        Trial(i, i, knobs, BuildResult(i, "ok", None), _claimed(s, i), info)
        for i, (knobs, info, s) in enumerate(finals)
    ]
    result = DispatchResult(
        name, problem, len(finals), trials, [(t, t.measurement) for t in trials], min_speedup=MIN_SPEEDUP
    )
    result.winner = result.finals[0]
    return result


def _withdrawn(picks: tuple[Pick, ...], kept: list[Pick]) -> Attempt:
    """Synthetic: the final checks withdrew the result of `picks`, leave-one-out having kept `kept`'s configs."""
    return Attempt(picks, ModelOutcome(None, ConfigCheck([p.config for p in kept]), None, None, withdrawn="slower"))


def test_dispatches_of_a_withdrawn_result_fall_back_to_their_next_finalist_that_passed(
    dumps, context, tmp_path, capsys
):
    """Synthetic finals on three real problems: a finalist below the keep rule is skipped, a dispatch
    with no finalist left drops out while the other falls back, one that leave-one-out dropped is not retried; a
    data-tiled winner (compile flags) falls back to a plain finalist (a spec); a result whose every config
    leave-one-out dropped falls back as a withdrawn one does, every dispatch in it; the report says when every
    fallback lost too."""
    tiny = dumps["tiny"]
    space = CpuContraction(tiny.problem, tiny.cpu, context, data_tiling=True)
    plain, tiled = space.compilation_info(PLAIN), space.compilation_info(DATA_TILED)
    a = _result("a", tiny.problem, [(DATA_TILED, tiled, 1.37), (PLAIN, plain, 1.01), (PLAIN, plain, 1.25)])
    b = _result("b", dumps["matmul"].problem, [(PLAIN, plain, 1.3)])
    c = _result("c", dumps["batch_matmul"].problem, [(PLAIN, plain, 1.3), (PLAIN, plain, 1.2)])
    first = winners([a, b, c])
    assert [p.rank for p in first] == [0, 0, 0]
    following = fallbacks(_withdrawn(first, kept=first[:2]))  # c was dropped by leave-one-out
    assert [(p.result.name, p.rank) for p in following] == [("a", 2)]  # 1.01x is below the keep rule; b has none
    applier = SpecApplier(context)
    withdrawn, fallback = (applier.apply(tiny.problem, p.config.compilation_info) for p in (first[0], following[0]))
    assert "--iree-opt-data-tiling" in withdrawn.flags and not withdrawn.text
    assert fallback.text and not fallback.flags
    emptied = Attempt(
        first, ModelOutcome(None, ConfigCheck([], dropped=[p.result.problem.key for p in first]), None, None)
    )
    assert emptied.lost and not emptied.kept
    assert [(p.result.name, p.rank) for p in fallbacks(emptied)] == [("a", 2), ("c", 1)]
    last = _withdrawn(following, kept=list(following))
    assert fallbacks(last) == ()
    attempts = [_withdrawn(first, kept=first[:2]), last]
    report = TuneReport(
        "model",
        nan,
        [],
        [a, b, c],
        None,
        tmp_path / "spec.mlir",
        1.0,
        1.0,
        tmp_path / "r.jsonl",
        model=last.outcome,
        attempts=attempts,
    )
    assert [s["kept"] for s in summary(report)["attempts"]] == [False, False]
    print_report(report)
    out = capsys.readouterr().out
    assert "The first result: a finalist 1 (lowering=1 dt_tile_kib=256 dt_threads=8); b finalist 1" in out
    assert "Fallback 1: a finalist 3 (wg_m=16" in out and "Every fallback lost too; no dispatch" in out
    assert "No tuning spec written: nothing is recommended: slower." in out


def test_a_spent_time_budget_shortens_the_checks_and_tries_no_fallback(dumps, context, capsys):
    """Synthetic finals and checks: once the run's --time-budget is spent, no fallback is tried after a result
    that lost (one line says so), and the checks' plan is the shortest, not extended."""
    tiny = dumps["tiny"]
    space = CpuContraction(tiny.problem, tiny.cpu, context)
    plain = space.compilation_info(PLAIN)
    first = winners([_result("a", tiny.problem, [(PLAIN, plain, 1.3), (PLAIN, plain, 1.2)])])
    tried = []

    def check(configs, attempt):
        tried.append(attempt)
        return _withdrawn(first, kept=list(first)).outcome

    assert len(finish_with_fallbacks(first, check)) == 2 and tried == [0, 1]
    tried.clear()
    assert len(finish_with_fallbacks(first, check, out_of_time=lambda: True)) == 1 and tried == [0]
    assert "no fallback tried: the --time-budget is spent" in capsys.readouterr().out
    plan = TimingPlan(rounds=15, max_rounds=45)
    fields = dict.fromkeys(
        (
            "starter",
            "measured",
            "default_build",
            "builder",
            "runner",
            "applier",
            "context",
            "work_dir",
            "numerics_device",
        )
    )
    assert FinalChecks(**fields, plan=plan)._plan() == plan
    assert FinalChecks(**fields, plan=plan, deadline=0.0)._plan() == TimingPlan(rounds=5, max_rounds=0)


# Four configs of a 64x512 @ 512x1024 f32 matmul, slowest first, each at least twice as fast as the one before
# (`benchmarks/timing/fallback_test_configs.py` on a 2-core AVX2 znver3 VM: 31, 6.9 and 1.36 ms median for the last
# three): scalar code in one workgroup (the user's starter spec here), 4-wide in one workgroup, 4 x 4 register tiles
# in one workgroup (the build that stands in for IREE's default: IREE's own is too close to any fixed config on some
# machines for a verdict a test can rely on), and 4 x 16 tiles in 8 x 4 workgroups. The stand-in is 5x slower than
# the last, so that a host that lends the timing one core of two still reads it well above 1.
SCALAR = {"wg_m": 64, "wg_n": 1024, "vec_m": 1, "vec_n": 1, "vec_k": 1}
NARROW = {"wg_m": 64, "wg_n": 1024, "vec_m": 1, "vec_n": 4, "vec_k": 1}
STAND_IN = {"wg_m": 64, "wg_n": 1024, "vec_m": 4, "vec_n": 4, "vec_k": 1}
GOOD = {"wg_m": 8, "wg_n": 256, "vec_m": 4, "vec_n": 16, "vec_k": 1}


def _knobs_text(knobs: dict[str, int]) -> str:
    return " ".join(f"{name}={value}" for name, value in knobs.items())


@pytest.fixture
def one_op(tmp_path, context):
    """A 64x512 @ 512x1024 f32 matmul as mltune prepares a model (dispatch dumped, arguments written)."""
    source = tmp_path / "matmul.mlir"
    source.write_text(contraction_model(ContractionShape(64, 1024, 512)))
    tuning_input = prepare_input(source, CpuTarget(), tmp_path / "run", context)
    (dispatch,) = read_dispatches(tuning_input, context)
    return tuning_input, dispatch


@pytest.mark.slow  # 8 s: a whole withdrawal and fallback, end to end
def test_a_first_choice_slower_end_to_end_is_withdrawn_and_the_next_finalist_kept(one_op, context, tmp_path, capsys):
    """The winner's config, slower than the default build, was claimed 1.37x by (synthetic) finals: leave-one-out
    keeps it, since the user's starter spec it replaces is slower still, and the real end-to-end timing against the
    default build (`STAND_IN`) withdraws it; the second finalist, measured again as a fallback, is kept."""
    tuning_input, dispatch = one_op
    space = CpuContraction(dispatch.problem, dispatch.facts, context)
    applier = SpecApplier(context)
    starter_path = tmp_path / "starter.mlir"
    starter_path.write_text(applier.apply(dispatch.problem, space.compilation_info(SCALAR)).text)
    starter = read_starter_spec(starter_path, context)
    finals = [(NARROW, space.compilation_info(NARROW), 1.37), (GOOD, space.compilation_info(GOOD), 1.25)]
    result = _result("main_dispatch_0", dispatch.problem, finals)
    builder = Builder(tuning_input, tmp_path / "run" / "candidates", jobs=2)
    default_build = builder.compile(-1, applier.apply(dispatch.problem, space.compilation_info(STAND_IN)), "baseline")
    runner = make_runner(tuning_input.invocation, ("local-task",), tmp_path / "run")
    plan = TimingPlan(rounds=5, round_seconds=0.05, max_rounds=15)
    checks = FinalChecks(
        starter,
        MeasuredBuilds(builder, default_build, None),
        default_build,
        builder,
        runner,
        applier,
        plan,
        context,
        tmp_path / "run",
        "local-task",
    )
    attempts = finish_with_fallbacks(winners([result]), checks.run)

    first, second = attempts
    assert first.outcome.check.kept == [Config(dispatch.problem, space.compilation_info(NARROW))]
    assert "end-to-end" in first.outcome.withdrawn and not first.outcome.timing.estimate("recommended").faster(1.0)
    assert [p.rank for p in second.picks] == [1] and second.kept and second.outcome.numerics.ok
    assert second.outcome.timing.estimate("recommended").faster(1.0)
    assert (tmp_path / "run" / "candidates" / "fallback_1" / "verify_all" / "module.vmfb").is_file()

    report = TuneReport(
        "model",
        nan,
        [],
        [result],
        tmp_path / "spec.mlir",
        tmp_path / "spec.mlir",
        1.0,
        1.0,
        tmp_path / "records.jsonl",
        model=second.outcome,
        attempts=attempts,
    )
    stored = summary(report)
    assert [a["kept"] for a in stored["attempts"]] == [False, True] and stored["withdrawn"] == ""
    assert stored["attempts"][0]["withdrawn"] == first.outcome.withdrawn
    assert stored["attempts"][0]["end_to_end"]["speedup"] < 1.0 < stored["attempts"][1]["end_to_end"]["speedup"]
    assert [a["finalists"][0]["rank"] for a in stored["attempts"]] == [1, 2]
    assert stored["attempts"][1]["finalists"][0]["knobs"] == GOOD
    print_report(report)
    out = capsys.readouterr().out
    assert (
        f"The first result: main_dispatch_0 finalist 1 ({_knobs_text(NARROW)})\n  withdrawn: "
        f"{first.outcome.withdrawn}" in out
    )
    assert (
        f"Fallback 1: main_dispatch_0 finalist 2 ({_knobs_text(GOOD)})\n  kept: the checks below are this "
        "result's" in out
    )


class _NeverTimed:
    """A runner the test expects no timing to reach: any use of it fails the test."""

    def __getattr__(self, name):
        raise AssertionError(f"the end-to-end timing ran ({name})")


def _keep_all(configs, merge) -> ConfigCheck:
    """A configs' check that keeps every config, measuring nothing."""
    return ConfigCheck(list(configs))


def test_a_result_timed_as_built_next_is_not_timed_alone_before(one_op, context, tmp_path):
    """Where the run times the result once more as the user builds it (a model split from its weights), the
    recommended build alone is not timed end to end first: that timing would compare it with nothing else, and the
    one as built decides. With a starter spec to compare it with, it is timed here as before."""
    tuning_input, dispatch = one_op
    space = CpuContraction(dispatch.problem, dispatch.facts, context)
    applier = SpecApplier(context)
    builder = Builder(tuning_input, tmp_path / "run" / "candidates", jobs=2)
    default_build = builder.compile(-1, applier.apply(dispatch.problem, space.compilation_info(STAND_IN)), "baseline")
    configs = [Config(dispatch.problem, space.compilation_info(GOOD))]
    outcome = finish_model(
        configs,
        None,
        default_build,
        default_build,
        builder,
        _NeverTimed(),
        applier,
        TimingPlan(),
        context,
        tmp_path / "run",
        None,
        _keep_all,
        timed_as_built=True,
    )
    assert outcome.result is not None and outcome.recommends and outcome.timing is None
    starter_path = tmp_path / "starter.mlir"
    starter_path.write_text(applier.apply(dispatch.problem, space.compilation_info(SCALAR)).text)
    with pytest.raises(AssertionError, match="end-to-end timing ran"):
        finish_model(
            configs,
            read_starter_spec(starter_path, context),
            default_build,
            default_build,
            builder,
            _NeverTimed(),
            applier,
            TimingPlan(),
            context,
            tmp_path / "run",
            None,
            _keep_all,
            timed_as_built=True,
        )
