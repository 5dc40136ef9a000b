"""Inside the model: the configs' check (each config's gain from one build profiled against the build with none), and the
second look of the finalists' stage.

The profiles here are synthetic (microseconds per model call per problem, round by round); the check on real
profiles runs in tests/test_screen.py::test_cli_screens_a_model_then_decides_on_the_model."""

import pytest

from mltune.execution.build import BuildResult
from mltune.execution.measurement import Measurement
from mltune.frontend.problem import Problem
from mltune.search.results import Trial
from mltune.whole_model.in_model_check import IN_MODEL, decide, narrow_down
from mltune.whole_model.in_model_finals import LOOKS, screen_first_of_the_fastest, second_look
from mltune.whole_model.verify import Config, ConfigCheck

MAPS = (
    "affine_map<(d0, d1, d2) -> (d0, d2)>",
    "affine_map<(d0, d1, d2) -> (d2, d1)>",
    "affine_map<(d0, d1, d2) -> (d0, d1)>",
)


def _config(m: int) -> Config:
    return Config(
        Problem("contraction", "linalg.matmul", (m, 64, 64), (), (0,), (1,), (2,), "f32", "f32", "f32", MAPS, "nn"),
        f"info_{m}",
    )


A, B = _config(128), _config(256)


def _rounds(a: list[float], b: list[float], others: list[float]) -> list[dict]:
    return [{A.problem.key: x, B.problem.key: y, None: z} for x, y, z in zip(a, b, others)]


def _check() -> ConfigCheck:
    return ConfigCheck([A, B], method=IN_MODEL)


def test_a_config_whose_dispatches_ran_slower_inside_the_model_is_dropped():
    without = _rounds([100, 101, 99, 100, 102], [50, 50, 51, 49, 50], [1000] * 5)
    with_all = _rounds([80, 81, 79, 82, 80], [52, 53, 51, 52, 54], [1001, 999, 1000, 1002, 998])
    check = decide([A, B], with_all, without, _check())
    assert check is not None and check.kept == [A] and check.dropped == [B.problem.key]
    assert 1.2 < check.ratios[A.problem.key] < 1.3 and check.ratios[B.problem.key] < 1.0


def test_the_other_dispatches_slowing_beyond_the_noise_hands_the_decision_on():
    without = _rounds([100] * 5, [50] * 5, [1000, 1001, 999, 1000, 1002])
    with_all = _rounds([80] * 5, [40] * 5, [1050, 1060, 1045, 1055, 1040])  # 5 % slower in every round
    assert decide([A, B], with_all, without, _check()) is None


def test_the_other_dispatches_within_the_noise_or_slightly_slower_leave_the_decision_here():
    without = _rounds([100] * 5, [50] * 5, [1000, 1001, 999, 1000, 1002])
    with_all = _rounds([80] * 5, [40] * 5, [1010, 985, 1012, 1020, 995])
    check = decide([A, B], with_all, without, _check())
    assert check is not None and check.kept == [A, B] and not check.dropped


def test_a_config_the_profiles_did_not_time_is_kept_unmeasured():
    without = [{A.problem.key: 100.0, None: 1000.0}] * 5
    with_all = [{A.problem.key: 90.0, None: 1000.0}] * 5
    check = decide([A, B], with_all, without, _check())
    assert check is not None and check.kept == [A, B] and B.problem.key not in check.ratios


C, D = _config(512), _config(1024)
SLOWS_OTHERS = {C.problem.key}  # synthetic: a config whose build runs every dispatch it does not touch 5 % slower


def _profiles(group, rounds: int = 5) -> tuple[list[dict], list[dict]]:
    """Synthetic profiles of a build with `group`'s configs against the build with none: each config's own dispatches
    run 1.25x faster with it; the 1000 us of untouched dispatches jitter by 0.3 %, and slow 5 % where C is in."""
    keys = [c.problem.key for c in (A, B, C, D)]
    jitter = [1.0, 1.003, 0.998, 1.002, 0.999][:rounds]
    slow = 1.05 if SLOWS_OTHERS & {c.problem.key for c in group} else 1.0
    without = [{**{k: 100.0 for k in keys}, None: 1000.0 * j} for j in jitter]
    with_group = [
        {**{k: 80.0 if k in {c.problem.key for c in group} else 100.0 * slow for k in keys}, None: 1000.0 * j * slow}
        for j in jitter
    ]
    return with_group, without


def test_halving_keeps_a_half_by_its_own_gains_and_judges_a_half_that_slows_the_others_whole():
    """Synthetic: of four configs, C slows every dispatch it does not touch. One level: [A, B] decide by their own
    dispatches (1.25x); [C, D] are judged together by the whole model (1.25x on their 200 us, 5 % lost on the other
    1200 us: 0.986x), so both go. Two levels: D alone holds the others' speed and stays; C alone goes."""
    timed = []

    def time_groups(groups, level):
        timed.append([len(g) for g in groups])
        return [_profiles(g) for g in groups]

    check = ConfigCheck([A, B, C, D], method=IN_MODEL)
    assert decide([A, B, C, D], *_profiles([A, B, C, D]), check) is None
    assert narrow_down([A, B, C, D], _profiles([A, B, C, D]), time_groups, check) == 1 and timed == [[2, 2]]
    assert check.kept == [A, B] and check.dropped == [C.problem.key, D.problem.key]
    assert all(1.2 < check.ratios[c.problem.key] < 1.3 for c in (A, B))
    assert check.ratios[C.problem.key] == check.ratios[D.problem.key] < 1.0

    timed.clear()
    check = ConfigCheck([A, B, C, D], method=IN_MODEL)
    assert narrow_down([A, B, C, D], _profiles([A, B, C, D]), time_groups, check, levels=2) == 2
    assert timed == [[2, 2], [1, 1]]
    assert check.kept == [A, B, D] and check.dropped == [C.problem.key]
    assert all(1.2 < check.ratios[c.problem.key] < 1.3 for c in (A, B, D)) and check.ratios[C.problem.key] < 1.0


def test_a_lone_config_that_slows_the_others_is_judged_by_the_whole_model_without_another_build():
    """Synthetic: C alone, from its build with all (0.986x over every dispatch): dropped, nothing else built."""
    check = ConfigCheck([C], method=IN_MODEL)
    assert narrow_down([C], _profiles([C]), lambda groups, level: pytest.fail("built again"), check) == 0
    assert check.dropped == [C.problem.key] and check.ratios[C.problem.key] < 1.0


def test_a_check_that_decides_with_all_configs_in_builds_nothing_more():
    check = ConfigCheck([A, B], method=IN_MODEL)
    assert narrow_down([A, B], _profiles([A, B]), lambda groups, level: pytest.fail("built again"), check) == 0
    assert check.kept == [A, B] and not check.dropped


def test_halving_drops_a_lone_config_whose_build_failed_and_splits_a_group_whose_build_failed():
    """Synthetic: the build of the second half, [B, D], fails (None) and is split; B's own build fails again. At
    the last level a group whose build failed goes whole."""

    def time_groups(groups, level):
        return [None if B in g else _profiles(g) for g in groups]

    check = ConfigCheck([A, B, D], method=IN_MODEL)
    assert narrow_down([A, B, D], _profiles([A, B, C, D]), time_groups, check) == 1 and check.kept == [A]
    check = ConfigCheck([A, B, D], method=IN_MODEL)
    assert narrow_down([A, B, D], _profiles([A, B, C, D]), time_groups, check, levels=2) == 2
    assert check.kept == [A, D] and check.dropped == [B.problem.key]


def _measured(*ratios: float) -> Measurement:
    return Measurement(0, "ok", tuple(ratios), (1.0,) * len(ratios), looks=LOOKS)


def test_a_fast_finalist_spoilt_by_one_slow_round_gets_a_second_look_and_a_decided_one_none():
    """Synthetic rounds (candidate time / default time): the fastest finalist decides which build is timed again."""
    spoilt = {0: _measured(0.7, 0.72, 1.05, 0.69, 0.71), 1: _measured(0.9, 0.91, 0.92, 0.9, 0.89)}
    assert second_look(spoilt, 1.03) == 0
    decided = {0: _measured(0.7, 0.72, 0.75, 0.69, 0.71), 1: _measured(1.2, 1.1, 1.3, 1.2, 1.1)}
    assert second_look(decided, 1.03) is None
    too_slow = {0: _measured(0.99, 1.0, 0.98, 1.01, 0.99)}  # not 1.03x at the median: more rounds would not win
    assert second_look(too_slow, 1.03) is None
    assert second_look({}, 1.03) is None


def test_ten_rounds_read_at_two_looks_forgive_one_slow_round_not_two():
    """Synthetic: at five rounds the interval is the slowest and fastest round; at ten, read at two looks, the second
    slowest and second fastest."""
    assert not _measured(0.7, 0.72, 1.05, 0.69, 0.71).wins(1.03)
    assert _measured(0.7, 0.72, 1.05, 0.69, 0.71, 0.7, 0.73, 0.74, 0.7, 0.71).wins(1.03)
    assert not _measured(0.7, 0.72, 1.05, 0.69, 0.71, 0.7, 0.73, 1.02, 0.7, 0.71).wins(1.03)


def _final(position: int, *ratios: float) -> tuple[Trial, Measurement]:
    return Trial(position, position, {}, BuildResult(position, "ok", None), None, ""), _measured(*ratios)


def test_of_finalists_tied_inside_the_model_the_screens_first_goes_first():
    """Synthetic rounds (candidate time / default time): the screen's first (position 0) lies within the fastest's
    interval, so it goes first, the winner the fallbacks and the report read; one outside that interval never does."""
    fastest, screen_first = _final(1, 0.070, 0.072, 0.075, 0.073, 0.071), _final(0, 0.074, 0.073, 0.075, 0.074, 0.073)
    assert screen_first_of_the_fastest([screen_first, fastest], 1.03) == [screen_first, fastest]
    slower = _final(0, 0.080, 0.081, 0.082, 0.080, 0.081)
    assert screen_first_of_the_fastest([slower, fastest], 1.03) == [fastest, slower]
    none_wins = [_final(0, 0.99, 1.0, 0.98, 1.01, 0.99), _final(1, 1.0, 1.01, 0.99, 1.0, 1.02)]
    assert screen_first_of_the_fastest(none_wins, 1.03) == none_wins  # fastest first, no winner to move
    assert screen_first_of_the_fastest([], 1.03) == []
