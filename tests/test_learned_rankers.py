"""The learned rankers: the forest's model files (checked before loading) and TPE learning from `tell`."""

from __future__ import annotations

import json

import numpy as np
import pytest
from learn_helpers import SYNTHETIC_CPU, matmul_problem, synthetic_ratios, train_synthetic_model

from mltune.errors import UserError
from mltune.learn.forest import load_model
from mltune.learn.model_files import MODEL_FILE, SIDECAR_FILE
from mltune.rankers import RankingInput
from mltune.rankers.forest import RandomForest
from mltune.rankers.heuristic import Heuristic
from mltune.rankers.tpe import STARTUP_PICKS, Tpe
from mltune.spaces.cpu_contraction import CpuContraction


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    return train_synthetic_model(tmp_path_factory.mktemp("trained"))


@pytest.fixture(scope="module")
def small_input() -> RankingInput:
    # synthetic 40x56x24 problem; its candidates come from the real space
    p = matmul_problem(40, 56, 24)
    return RankingInput(p, SYNTHETIC_CPU, CpuContraction(p, SYNTHETIC_CPU, None).candidates())


def test_sidecar_names_features_versions_data_and_hash(trained):
    sidecar = json.loads((trained / "models" / "synthetic" / "contraction" / SIDECAR_FILE).read_text())
    model = load_model(trained / "models", "synthetic", "contraction").model
    assert tuple(sidecar["feature_names"]) == model.feature_names and sidecar["format"] == "mltune-forest-npz-1"
    assert {"scikit-learn", "numpy", "python"} <= set(sidecar["versions"])
    assert len(sidecar["training_data_sha256"]) == 64 and len(sidecar["manifest_sha256"]) == 64
    assert sidecar["compilers"] and all(sidecar["compilers"])
    assert sidecar["cv"]["folds"] == 2 and len(sidecar["cv"]["problems"]) == 3  # two of the shapes are neighbours
    assert (trained / "models" / "synthetic" / "contraction" / MODEL_FILE).stat().st_size < 5 * 1024 * 1024


def test_a_tampered_model_is_refused_before_loading(trained, tmp_path):
    folder = tmp_path / "models" / "synthetic" / "contraction"
    folder.mkdir(parents=True)
    for name in (MODEL_FILE, SIDECAR_FILE):
        (folder / name).write_bytes((trained / "models" / "synthetic" / "contraction" / name).read_bytes())
    load_model(tmp_path / "models", "synthetic", "contraction")  # an intact copy loads
    with open(folder / MODEL_FILE, "ab") as handle:
        handle.write(b"\0")
    with pytest.raises(UserError, match="SHA-256") as err:
        load_model(tmp_path / "models", "synthetic", "contraction")
    assert "mltune train --arch synthetic" in str(err.value)


def test_a_missing_model_names_the_train_commands(tmp_path, small_input):
    ranker = RandomForest(0, model_dir=tmp_path)
    with pytest.raises(UserError, match="mltune train --arch synthetic` or `mltune train --family cpu"):
        ranker.check_for(small_input.target)


def test_forest_ranks_by_prediction_and_beats_the_synthetic_rule(trained, small_input):
    # the synthetic rule that made the training labels also scores this unseen problem
    model = load_model(trained / "models", "synthetic", "contraction").model
    order = RandomForest(0, model=model).order(small_input)
    ratios = synthetic_ratios(small_input.problem, small_input.candidates)
    assert sorted(order.tolist()) == list(range(len(ratios)))
    assert ratios[order[:50]].mean() < ratios.mean()


def _run(ranker: Tpe, ranking_input: RankingInput, ratio_of, asks: int, batch: int = 4) -> list[int]:
    ranker.start(ranking_input)
    order: list[int] = []
    for _ in range(asks):
        picked = ranker.ask(batch)
        order += picked
        for index in picked:
            ranker.tell(index, ratio_of(index))
    return order


def test_tpe_starts_with_the_heuristic_then_follows_what_it_is_told(small_input):
    heuristic = Heuristic(0).order(small_input).tolist()
    vec_n = small_input.candidates.column("vec_n")
    # synthetic feedback: candidates with a wide vector tile along N are fast, all others slow
    wide_is_fast = _run(Tpe(0), small_input, lambda i: 0.5 if vec_n[i] >= 16 else 2.0, asks=6)
    narrow_is_fast = _run(Tpe(0), small_input, lambda i: 0.5 if vec_n[i] < 16 else 2.0, asks=6)
    assert wide_is_fast[:STARTUP_PICKS] == heuristic[:STARTUP_PICKS] == narrow_is_fast[:STARTUP_PICKS]
    later_wide, later_narrow = wide_is_fast[STARTUP_PICKS:], narrow_is_fast[STARTUP_PICKS:]
    assert np.mean(vec_n[later_wide] >= 16) > np.mean(vec_n[later_narrow] >= 16)
    assert np.mean(vec_n[later_wide] >= 16) > 2 * np.mean(vec_n >= 16), "well above the space's base rate"


def test_tpe_learns_from_failures_and_is_reproducible(small_input):
    vec_m = small_input.candidates.column("vec_m")
    # synthetic: every candidate with vec_m >= 8 fails to compile (inf), the rest take the same time
    failing = _run(Tpe(3), small_input, lambda i: np.inf if vec_m[i] >= 8 else 1.0, asks=8)
    assert failing == _run(Tpe(3), small_input, lambda i: np.inf if vec_m[i] >= 8 else 1.0, asks=8)
    told_failures = [i for i in failing[:STARTUP_PICKS] if vec_m[i] >= 8]
    assert told_failures, "the heuristic's first picks should include some failing candidates"
    assert np.mean(vec_m[failing[STARTUP_PICKS:]] >= 8) < np.mean(vec_m[failing[:STARTUP_PICKS]] >= 8)
