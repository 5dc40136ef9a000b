"""Rankers (orders over all candidates, asked in batches) and the CPU features they sort by."""

from __future__ import annotations

import numpy as np
import pytest
from learn_helpers import train_synthetic_model

from mltune.errors import UserError
from mltune.features.cpu import cpu_contraction_features, padding_waste, wave_inefficiency
from mltune.frontend.problem import Problem
from mltune.rankers import BUILT_IN, RankingInput, make_ranker, ranker_names
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.cpu_contraction import CpuContraction

KNOBS = ("wg_m", "wg_n", "vec_m", "vec_n", "vec_k")
ADAPTIVE = {"tpe", "random-forest-refit"}  # rankers whose order depends on what they are told
MAPS = (
    "affine_map<(d0, d1, d2) -> (d0, d2)>",
    "affine_map<(d0, d1, d2) -> (d2, d1)>",
    "affine_map<(d0, d1, d2) -> (d0, d1)>",
)


def problem(m: int, n: int, k: int, lhs: str = "f32", out: str = "f32") -> Problem:
    # synthetic: a plain matmul problem, as read_root_ops would describe it
    return Problem("contraction", "linalg.matmul", (m, n, k), (), (0,), (1,), (2,), lhs, lhs, out, MAPS, "nn")


def cpu(vector_bytes: int = 64, cores: int = 3):
    from mltune.targets.cpu import CpuInfo

    return CpuInfo("synthetic", vector_bytes, cores)  # synthetic: an AVX-512-like CPU


@pytest.fixture(scope="module")
def ranking_input() -> RankingInput:
    # synthetic problem (64x96x48 f32); its candidates come from the real space
    p, c = problem(64, 96, 48), cpu()
    return RankingInput(p, c, CpuContraction(p, c, None).candidates())


def ask_all(ranker, ranking_input, batch: int, told: dict[int, float] | None = None) -> list[int]:
    """Every candidate the ranker asks for, in batches, each told its ratio in `told` (1.0 unless given there)."""
    told = told or {}
    ranker.start(ranking_input)
    order = []
    while True:
        picked = ranker.ask(batch)
        assert len(picked) <= batch
        if not picked:
            return order
        order.extend(picked)
        for index in picked:
            ranker.tell(index, told.get(index, 1.0))


@pytest.fixture(scope="module")
def synthetic_models(tmp_path_factory):
    """A folder whose `models/synthetic/contraction/` holds a forest trained on synthetic records."""
    return train_synthetic_model(tmp_path_factory.mktemp("learned"))


# TPE proposes one trial at a time through Optuna: its whole order over 1,000+ candidates takes half a minute (slow)
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "tpe" else n for n in BUILT_IN])
def test_ranker_returns_a_permutation_in_batches(name, ranking_input, synthetic_models, monkeypatch):
    monkeypatch.setenv("MLTUNE_HOME", str(synthetic_models))  # the forest loads the data home's models/ARCH/KIND first
    n = len(ranking_input.candidates)
    assert n > 1000
    batch = 100 if name in ADAPTIVE else 7
    order = ask_all(make_ranker(name, seed=0), ranking_input, batch=batch)
    assert sorted(order) == list(range(n))
    assert all(type(i) is int for i in order)
    # a fresh start gives the same order: static rankers whatever the batch size, adaptive ones for the
    # same batch size (what they were told before each ask shapes the rest)
    assert ask_all(make_ranker(name, seed=0), ranking_input, batch=batch if name in ADAPTIVE else 100) == order
    ranker = make_ranker(name, seed=0)
    assert ranker.name == name


def test_shuffle_is_reproducible_per_seed(ranking_input):
    a = ask_all(make_ranker("shuffle", 1), ranking_input, 8)
    b = ask_all(make_ranker("shuffle", 1), ranking_input, 8)
    c = ask_all(make_ranker("shuffle", 2), ranking_input, 8)
    assert a == b
    assert a != c
    assert a != list(range(len(a)))


def test_none_is_solver_order(ranking_input):
    assert ask_all(make_ranker("none"), ranking_input, 8) == list(range(len(ranking_input.candidates)))


def test_heuristic_puts_register_overflow_last(ranking_input):
    order = ask_all(make_ranker("heuristic"), ranking_input, 8)
    features = cpu_contraction_features(ranking_input.problem, ranking_input.target, ranking_input.candidates)
    overflow = features["register_overflow"][order] > 0
    assert overflow.any() and not overflow.all(), "the space should hold both kinds"
    first_overflow = int(np.argmax(overflow))
    assert not overflow[:first_overflow].any() and overflow[first_overflow:].all()
    assert order != list(range(len(order)))
    # right after register fit comes SIMD lane fill: the first candidates fill whole vectors
    assert np.round(features["vector_lane_fill"][order[:50]], 1).tolist() == [1.0] * 50
    fills = np.round(features["vector_lane_fill"][order], 1)
    fitting = fills[~overflow]
    assert np.all(np.diff(fitting) <= 0), "among fitting candidates, lane fill never increases along the order"


def test_unknown_ranker_lists_the_valid_names():
    with pytest.raises(UserError) as err:
        make_ranker("bogus")
    message = str(err.value)
    assert "bogus" in message
    for name in ranker_names():
        assert name in message
    # mltune's own rankers are entry points of the installed package, listed first
    assert ranker_names()[: len(BUILT_IN)] == list(BUILT_IN)
    assert set(BUILT_IN) == {
        "none",
        "shuffle",
        "shuffle-lowerings",
        "heuristic",
        "learned",
        "random-forest",
        "random-forest-refit",
        "tpe",
    }


# --- features ---------------------------------------------------------------------------------------------


def test_feature_values_by_hand():
    # synthetic: three hand-picked candidates of a 100x1000x300 f32 matmul on 64-byte vectors and 3 cores
    rows = np.array(
        [
            [50, 64, 5, 16, 15],  # A
            [64, 1000, 8, 20, 64],  # B
            [32, 64, 32, 64, 4],  # C
        ]
    )
    f = cpu_contraction_features(problem(100, 1000, 300), cpu(64, 3), CandidateSet(KNOBS, rows))
    expect = {
        # 1 - size / (ceil(size / tile) * tile)
        "padding_waste_m": [0.0, 1 - 100 / 128, 1 - 100 / 128],
        "padding_waste_n": [1 - 1000 / 1024, 0.0, 1 - 1000 / 1024],
        "padding_waste_k": [0.0, 1 - 300 / 320, 0.0],
        # workgroups: 2*16, 2*1, 4*16 over 3 cores
        "workgroups_per_core": [32 / 3, 2 / 3, 64 / 3],
        # idle core slots in the last wave: ceil(w / 3) * 3 - w over that
        "wave_inefficiency": [1 / 33, 1 / 3, 2 / 66],
        # 16 f32 lanes per 64-byte vector
        "vector_lane_fill": [1.0, 20 / 32, 1.0],
        # vec_m * ceil(vec_n / 16) accumulators, ceil(vec_n / 16) RHS vectors and one broadcast of 32 vector registers
        "register_fill": [(5 + 1 + 1) / 32, (16 + 2 + 1) / 32, (128 + 4 + 1) / 32],
        "register_overflow": [0, 0, 128 + 4 + 1 - 32],  # 32 vector registers: an AVX-512 core
        "fma_per_load": [
            5 * 16 * 15 / (5 * 15 + 15 * 16),
            8 * 20 * 64 / (8 * 64 + 64 * 20),
            32 * 64 * 4 / (32 * 4 + 4 * 64),
        ],
        "tile_k_pow2": [0, 1, 1],
        "vector_n_per_lanes": [1, 20 / 16, 4],
    }
    for name, values in expect.items():
        np.testing.assert_allclose(f[name], values, err_msg=name)
    # footprint of one workgroup: (wg_m*K + K*wg_n) inputs + wg_m*wg_n accumulators, 4 bytes each
    # over the L2 of a typical AVX-512 server core (the table lacks this CPU): 1.25 MiB
    np.testing.assert_allclose(
        f["workgroup_footprint_per_l2"][0], ((50 * 300 + 300 * 64) * 4 + 50 * 64 * 4) / (1280 << 10)
    )
    assert f.values.shape == (3, len(f.names)) and f.values.dtype == np.float64


def test_features_use_accumulator_lanes_and_batch():
    # synthetic: f16 inputs with f32 accumulators still have 16 lanes per 64-byte vector; batch 12 multiplies workgroups
    p = Problem(
        "contraction", "linalg.batch_matmul", (12, 128, 128, 64), (0,), (1,), (2,), (3,), "f16", "f16", "f32", (), "nn"
    )
    rows = np.array([[64, 64, 8, 24, 16]])
    f = cpu_contraction_features(p, cpu(64, 4), CandidateSet(KNOBS, rows))
    assert f["vector_lane_fill"][0] == pytest.approx(24 / 32)
    assert f["register_fill"][0] == pytest.approx((8 * 2 + 2 + 1) / 32)
    assert f["workgroups_per_core"][0] == 12 * 2 * 2 / 4
    assert f["wave_inefficiency"][0] == 0.0


def test_padding_and_wave_helpers():
    # synthetic arrays
    np.testing.assert_allclose(
        padding_waste(10, np.array([1, 3, 4, 10, 16])), [0, 1 - 10 / 12, 1 - 10 / 12, 0, 1 - 10 / 16]
    )
    np.testing.assert_allclose(wave_inefficiency(np.array([1, 4, 5, 8]), 4), [3 / 4, 0, 3 / 8, 0])
