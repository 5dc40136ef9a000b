"""`mltune train`, `evaluate` and `dataset import` on the command line, on a small synthetic dataset."""

from __future__ import annotations

import json

import pytest
from learn_helpers import write_synthetic_dataset

from mltune.cli.command import main
from mltune.learn.forest import load_model
from mltune.learn.model_files import SIDECAR_FILE
from mltune.learn.learner_names import LEARNER_NAMES
from mltune.learn.share import MAX_SHARE, MIN_SHARE
from mltune.rankers import plugin_names


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    return write_synthetic_dataset(tmp_path_factory.mktemp("cli") / "datasets")


def test_train_then_evaluate(datasets, tmp_path, capsys):
    assert (
        main(["train", "--arch", "synthetic", "--dataset-dir", str(datasets), "--model-dir", str(tmp_path), "--force"])
        == 0
    )
    out = capsys.readouterr().out
    assert "2 folds grouped by neighbourhood" in out and "Spearman" in out and "3 failed records ignored" in out
    assert "per-problem split: iterations" in out and "of the picks beside the heuristic" in out
    sidecar = json.loads((tmp_path / "synthetic" / "contraction" / SIDECAR_FILE).read_text())
    assert sidecar["samples"] == 120 and sidecar["cv"]["median_iterations"] >= 1
    assert sidecar["cv"]["split"] == "honest" and sidecar["cv_per_problem"]["split"] == "per-problem"
    assert MIN_SHARE <= sidecar["forest_share"] <= MAX_SHARE
    assert load_model(tmp_path, "synthetic", "contraction").model.feature_names == tuple(sidecar["feature_names"])
    # every learner cross-validated on the honest split; the one kept ranked no worse on the mean
    learners = sidecar["learners"]
    assert set(learners) == set(LEARNER_NAMES) and sidecar["cv"]["learner"] == sidecar["learner"]
    assert learners[sidecar["learner"]]["mean_iterations"] == min(row["mean_iterations"] for row in learners.values())
    assert f"fitted as {sidecar['learner']}" in out

    out_dir = tmp_path / "evaluation"
    assert main(["evaluate", "--arch", "synthetic", "--dataset-dir", str(datasets), "--out", str(out_dir)]) == 0
    table = capsys.readouterr().out
    rankers = {"none", "shuffle", "heuristic", "random-forest", "random-forest-refit", "random-forest-alone", "tpe"}
    for ranker in rankers:
        assert f"\n{ranker} " in table
    assert "per-problem" in table and "honest (2x)" in table
    report = json.loads((out_dir / "evaluation.json").read_text())
    # mltune's own, and the installed plugins' (`.ci/run` installs the example)
    assert set(report["rankers"]) == set(report["honest"]) == rankers | set(plugin_names())
    forest = report["rankers"]["random-forest"]
    assert len(forest["problems"]) == 3 and set(forest["summary"]) >= {"median_position", "mean_top_k"}
    assert (out_dir / "solved_within_5pct.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert report["learner"] == "random-forest"

    for learner in LEARNER_NAMES[1:]:
        learner_dir = tmp_path / learner
        assert (
            main(
                [
                    "evaluate",
                    "--arch",
                    "synthetic",
                    "--dataset-dir",
                    str(datasets),
                    "--out",
                    str(learner_dir),
                    "--learner",
                    learner,
                ]
            )
            == 0
        )
        assert f"models fitted as {learner}" in capsys.readouterr().out
        assert json.loads((learner_dir / "evaluation.json").read_text())["learner"] == learner


@pytest.fixture(scope="module")
def bad_datasets(datasets):
    """A dataset root with an arch of no measurements and an arch of one problem (synthetic records)."""
    root = datasets.parent / "bad"
    (root / "empty").mkdir(parents=True)
    (root / "empty" / "x.jsonl").write_text("")
    (root / "bad.csv").write_text(
        "candidate_id,knob_M,compile_status,benchmark_status,benchmark_time_us,"
        "baseline_benchmark_time_us\n1,x,True,True,1.0,2.0\n"
    )
    (root / "one").mkdir()
    (root / "one" / "a.jsonl").write_text((datasets / "synthetic" / "mm_64x96x48.jsonl").read_text())
    return root


@pytest.mark.parametrize(
    "args,words",
    [
        (["train", "--arch", "nope"], "no dataset for arch 'nope'"),
        (["evaluate", "--arch", "empty"], "no successful measurements"),
        (["train", "--arch", "one"], "at least 2 problems"),
        (["train"], "--arch"),
        (["evaluate", "--arch", "one", "--batch", "0"], "--batch"),
        (["dataset", "import", "missing.csv", "--from", "amdsharktuner", "--arch", "gfx942"], "cannot read"),
        (["dataset", "import", "x.csv", "--from", "autotvm", "--arch", "gfx942"], "--from"),
        (["train", "--arch", "../up"], "arch name"),
        (
            ["dataset", "import", "bad.csv", "--from", "amdsharktuner", "--arch", "gfx942"],
            "no valid rows in bad.csv (1 skipped; first: line 2",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, words, bad_datasets, monkeypatch, capsys):
    monkeypatch.chdir(bad_datasets)
    assert main([*args, "--dataset-dir", str(bad_datasets)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mltune: error: ") and words in err
