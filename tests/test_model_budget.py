"""Time shares, problem selection, the budget split and the dataset-seeded order (no compiler needed)."""

from __future__ import annotations

import numpy as np
import pytest

from mltune.whole_model.budget import ProblemShare, problem_shares, select, split_budget
from mltune.whole_model.profile import DispatchProfile, executable_of
from mltune.rankers.seeded import SeededRanker
from mltune.rankers.simple import SolverOrder
from mltune.spaces.candidate import CandidateSet


def test_dumped_benchmark_names_map_to_their_executable():
    executables = ["main_dispatch_1", "main_dispatch_10", "main_dispatch_0"]
    assert executable_of("main_dispatch_1_embedded_elf_x86_64", executables) == "main_dispatch_1"
    assert executable_of("main_dispatch_10_embedded_elf_x86_64", executables) == "main_dispatch_10"
    assert executable_of("other_dispatch_1_embedded_elf_x86_64", executables) is None


def _profiles():
    rows = [
        ("d12", "mm_a", 3000.0, 1),
        ("d1", "mm_b", 500.0, 3),
        ("d10", "mm_b", 400.0, 1),
        ("d8", None, 250.0, 1),
        ("d7", "bmm", 150.0, 1),
    ]
    total = sum(t * c for _, _, t, c in rows)
    return [DispatchProfile(n, "linalg.matmul", k, t, c, t * c / total) for n, k, t, c in rows]


def test_identical_problems_are_one_entry_with_their_shares_added():
    shares = problem_shares(_profiles())
    assert [s.key for s in shares] == ["mm_a", "mm_b", "bmm"]
    assert shares[1].dispatches == ("d1", "d10")
    assert shares[1].share == pytest.approx(1900 / 5300)


def test_top_k_and_the_default_coverage():
    shares = problem_shares(_profiles())
    assert [s.key for s in select(shares, 1)] == ["mm_a"]
    assert [s.key for s in select(shares, 10)] == ["mm_a", "mm_b", "bmm"]
    # mm_a covers 57 % of the tunable time, mm_a + mm_b 97 %: the default stops there
    assert [s.key for s in select(shares, None)] == ["mm_a", "mm_b"]


@pytest.mark.parametrize("budget", [1, 2, 3, 7, 20, 24, 200, 99999999999999999999])
def test_budget_split_adds_up_and_follows_the_shares(budget):
    chosen = [ProblemShare("a", ("d0",), 0.6), ProblemShare("b", ("d1",), 0.3), ProblemShare("c", ("d2",), 0.1)]
    allocations = split_budget(chosen, budget)
    assert sum(a.budget for a in allocations) == budget and all(isinstance(a.budget, int) for a in allocations)
    assert all(a.budget >= 1 for a in allocations)
    budgets = [a.budget for a in allocations]
    assert budgets == sorted(budgets, reverse=True), "a larger share never gets fewer candidates"
    assert len(allocations) == min(3, budget), "with fewer candidates than problems, the smallest shares go"
    if budget >= 24:
        assert min(budgets) >= 8, "every selected problem gets at least one compile batch"


def test_seeded_ranker_asks_for_known_fast_configs_first_and_never_twice():
    candidates = CandidateSet(("a", "b"), np.array([[1, 1], [1, 2], [2, 1], [2, 2]]))
    from mltune.rankers.base import RankingInput

    ranker = SeededRanker(SolverOrder(0), [{"a": 2, "b": 2}, {"a": 9, "b": 9}, {"a": 1, "b": 2}])
    ranker.start(RankingInput(None, None, candidates))  # type: ignore[arg-type]
    order = ranker.ask(1) + ranker.ask(2) + ranker.ask(10)
    assert order == [3, 1, 0, 2], "known configs first (unknown ones skipped), then the inner order without repeats"
    assert ranker.ask(1) == []
    assert ranker.name == f"{SolverOrder.name}+seeded", "records of a seeded order are told apart"
    unseeded = SeededRanker(SolverOrder(0), [{"a": 9, "b": 9}])
    unseeded.start(RankingInput(None, None, candidates))  # type: ignore[arg-type]
    assert unseeded.name == SolverOrder.name and unseeded.ask(4) == [0, 1, 2, 3]


def test_configs_recorded_before_a_knob_was_added_still_seed():
    """A GPU contraction config recorded before `vector_distribute` existed is its TileAndFuse point (0);
    a config of another space (other knob names) is not matched."""
    from mltune.rankers.base import RankingInput

    candidates = CandidateSet(("wg_m", "vector_distribute"), np.array([[64, 0], [64, 1], [128, 0], [128, 1]]))
    ranker = SeededRanker(SolverOrder(0), [{"wg_m": 128}, {"wg_m": 64, "vector_distribute": 1}, {"vec_m": 64}])
    ranker.start(RankingInput(None, None, candidates))  # type: ignore[arg-type]
    assert ranker.ask(2) == [2, 1] and ranker.ask(2) == [0, 3]


def test_known_fast_reads_earlier_runs_of_the_same_problem(tmp_path):
    from mltune.frontend.problem import Problem
    from mltune.rankers.seeded import known_fast
    from mltune.records.dataset import Record, RecordWriter

    problem = Problem(
        "contraction",
        "linalg.matmul",
        (32, 48, 64),
        (),
        (0,),
        (1,),
        (2,),
        "f32",
        "f32",
        "f32",
        ("affine_map<(d0, d1, d2) -> (d0, d2)>",) * 3,
        "nn",
    )
    other = Problem(**{**problem.to_record(), "bounds": (32, 48, 128)})
    writer = RecordWriter(tmp_path / "znver4" / "old.jsonl")

    def add(p, knobs, times, run_id="old", status="ok"):
        writer.append(
            Record(
                "znver4",
                "dev",
                p.to_record(),
                "DoubleTilingExpert",
                knobs,
                status,
                times,
                [100.0] * len(times),
                "heuristic",
                0,
                run_id,
                "model",
            )
        )

    add(problem, {"wg_m": 1}, [80.0, 82.0])  # 0.81
    add(problem, {"wg_m": 2}, [60.0, 61.0])  # 0.605: fastest
    add(problem, {"wg_m": 3}, [120.0])  # slower than the default: not a seed
    add(problem, {"wg_m": 4}, [], status="compile_error")
    add(problem, {"wg_m": 5}, [10.0], run_id="this-run")  # the current run is not prior knowledge
    add(other, {"wg_m": 6}, [10.0])  # another problem
    add(problem, {"wg_m": 7}, [50.0, 52.0, 51.0])  # a lucky 3-round screening at 0.51 ...
    add(problem, {"wg_m": 7}, [101.0] * 9)  # ... that its finalist's 9 rounds put at 1.01: not a seed
    add(problem, {"wg_m": 8}, [95.0] * 3)  # 0.95 screened, 0.70 re-measured: the rounds pooled, 0.70
    add(problem, {"wg_m": 8}, [70.0] * 9)
    writer.close()
    assert known_fast(tmp_path / "znver4", problem.key, exclude_run="this-run") == [
        {"wg_m": 2},
        {"wg_m": 8},
        {"wg_m": 1},
    ]
    assert known_fast(tmp_path / "nothing-here", problem.key) == []
