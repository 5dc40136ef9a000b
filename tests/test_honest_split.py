"""The honest split (`mltune.learn.neighbourhood`), the held-out list (`mltune.learn.holdout`), the interleaved order
and the forest's share of it (`mltune.rankers.blend`, `mltune.learn.share`); synthetic problems and records."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from learn_helpers import SHAPES, matmul_problem, write_synthetic_dataset

from mltune.cli.command import main
from mltune.errors import UserError
from mltune.learn.holdout import HOLDOUT_FILE
from mltune.learn.neighbourhood import neighbourhood_groups, neighbours, problem_groups
from mltune.learn.samples import load_dataset
from mltune.learn.share import MAX_SHARE, MIN_SHARE, fold_shares, forest_share
from mltune.rankers.blend import interleaved_order, positions_of


def test_neighbours_are_within_2x_in_every_dimension_and_of_the_same_types():
    assert neighbours(matmul_problem(128, 768, 768), matmul_problem(256, 768, 1536))
    assert not neighbours(matmul_problem(128, 768, 768), matmul_problem(512, 768, 768))  # M 4x apart
    assert not neighbours(matmul_problem(128, 768, 768), matmul_problem(128, 768, 768, lhs="f16"))


def test_a_gemms_op_kinds_are_compared_as_one():
    """A 1x1 convolution read as a multi-loop contraction is the GEMM of its role sizes: one SIMT model learns both,
    so neither may be trained on when the other is held out; a reduction of the same sizes is another kind."""
    matmul = matmul_problem(128, 768, 768)
    assert neighbours(matmul, replace(matmul_problem(196, 768, 512), op_kind="multi_loop_contraction"))
    assert neighbours(matmul, replace(matmul, op_kind="convolution"))
    assert not neighbours(matmul, replace(matmul, op_kind="reduction"))


def test_groups_are_connected_components_of_the_neighbour_relation():
    problems = [
        matmul_problem(32, 768, 768),
        matmul_problem(64, 768, 768),
        matmul_problem(128, 768, 768),
        matmul_problem(4096, 64, 64),
        matmul_problem(32, 768, 768, lhs="f16"),
    ]
    groups = neighbourhood_groups(problems)
    # 32 and 128 are 4x apart, yet one group through 64; the large one and the f16 one stand alone
    assert groups[0] == groups[1] == groups[2] and len({groups[0], groups[3], groups[4]}) == 3
    assert len(set(problem_groups(problems))) == 5


def test_interleaving_bounds_how_late_either_orders_candidates_come():
    rng = np.random.default_rng(0)
    for share in (1 / 3, 0.5, 2 / 3, 4 / 5):
        first, second = rng.permutation(200), rng.permutation(200)
        merged = interleaved_order(first, second, share)
        assert sorted(merged.tolist()) == list(range(200))
        where = positions_of(merged)
        # a candidate at 0-based position p of an order is among the first (p + 1) / its share (+1) of the merged one
        assert (where[first] + 1 <= (np.arange(200) + 1) / share + 1).all()
        assert (where[second] + 1 <= (np.arange(200) + 1) / (1 - share) + 1).all()
    assert interleaved_order(np.array([0, 1, 2, 3]), np.array([3, 2, 1, 0]), 0.5).tolist() == [0, 3, 1, 2]
    # a subset of candidates (the refit's queue): indices need not be 0..n-1
    assert interleaved_order(np.array([7, 3, 5]), np.array([5, 7, 3]), 0.5).tolist() == [7, 5, 3]


def test_the_forests_share_follows_held_out_quality_within_bounds():
    assert forest_share([1, 1], [10, 10]) == MAX_SHARE and forest_share([10, 10], [1, 1]) == MIN_SHARE
    assert forest_share([2, 2], [2, 2]) == 0.5 and forest_share([], []) == 0.5
    # a problem's own fold never sets its share: fold 0's share comes from fold 1 alone
    shares = fold_shares({0: 0, 1: 1, 2: 1}, {0: 100, 1: 1, 2: 1}, {0: 1, 1: 5, 2: 5})
    assert shares[0] == forest_share([1, 1], [5, 5]) and shares[1] == forest_share([100], [1])


@pytest.fixture()
def held_out_dataset(tmp_path):
    root = write_synthetic_dataset(tmp_path / "datasets")
    held = matmul_problem(*SHAPES[1]).key
    (root / "synthetic" / HOLDOUT_FILE).write_text(json.dumps({"problems": [held]}))
    return root, held


def test_held_out_problems_never_reach_training_and_are_scored_apart(held_out_dataset, tmp_path, capsys):
    root, held = held_out_dataset
    dataset = load_dataset(root, "synthetic")
    assert [p.key for p in dataset.holdout] == [held] and held not in [p.key for p in dataset.problems]
    assert dataset.data_sha256 != load_dataset(write_synthetic_dataset(tmp_path / "all"), "synthetic").data_sha256
    # the two problems left are neighbours (64x96x48 and 48x128x96): no honest fold, so no model is trained
    assert main(["train", "--arch", "synthetic", "--dataset-dir", str(root), "--model-dir", str(tmp_path / "m")]) == 2
    assert "each within 2x of every other" in capsys.readouterr().err


def test_a_held_out_key_without_records_is_refused(held_out_dataset):
    root, _ = held_out_dataset
    (root / "synthetic" / HOLDOUT_FILE).write_text(json.dumps({"problems": ["contraction_1x2x3_f32f32f32_nn"]}))
    with pytest.raises(UserError, match="no records of contraction_1x2x3"):
        load_dataset(root, "synthetic")
    (root / "synthetic" / HOLDOUT_FILE).write_text(json.dumps(["not", "an", "object"]))
    with pytest.raises(UserError, match="expected"):
        load_dataset(root, "synthetic")
