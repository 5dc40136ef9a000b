"""One forest per (arch, op kind): a dataset of matmuls and convolutions trains two models, and each problem is
ranked by the model of its kind. All records here are synthetic (made-up times over real candidate spaces)."""

from __future__ import annotations

import json
import shutil

import pytest
from learn_helpers import (
    GPU_SHAPES,
    SYNTHETIC_CPU,
    SYNTHETIC_GPU,
    conv_problem,
    matmul_problem,
    matvec_problem,
    synthetic_conv_ratios,
    write_synthetic_conv_records,
    write_synthetic_dataset,
    write_synthetic_gpu_dataset,
    write_synthetic_matvec_records,
)

from mltune.cli.command import main
from mltune.errors import UserError
from mltune.learn.model_files import SIDECAR_FILE, trained_kinds
from mltune.learn.train import train
from mltune.rankers import RankingInput, make_ranker
from mltune.rankers.forest import RandomForest
from mltune.rankers.heuristic import Heuristic
from mltune.spaces.cpu_convolution import CpuConvolution
from mltune.spaces.gpu_matvec import GpuMatvec
from mltune.targets.cpu import CpuInfo

CONVS = [conv_problem(2, 8, 8, 16, 8), conv_problem(1, 12, 12, 32, 16)]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """Synthetic records of arch `synthetic`: three matmuls and two CPU convolutions."""
    root = tmp_path_factory.mktemp("mixed") / "datasets"
    return write_synthetic_conv_records(write_synthetic_dataset(root), CONVS)


@pytest.fixture(scope="module")
def trained(mixed):
    models = mixed.parent / "models"
    return models, train(mixed, "synthetic", models, force=True)


def test_each_op_kind_gets_its_own_model(trained):
    models, report = trained
    assert trained_kinds(models, "synthetic") == ["contraction", "convolution"]
    assert report["skipped"] == {}
    conv = json.loads((models / "synthetic" / "convolution" / SIDECAR_FILE).read_text())
    matmul = json.loads((models / "synthetic" / "contraction" / SIDECAR_FILE).read_text())
    assert sorted(conv["problems"]) == sorted(p.key for p in CONVS) and len(matmul["problems"]) == 3
    # 64x96x48 and 48x128x96 are within 2x of each other: the honest split holds them out together
    assert conv["cv"]["folds"] == 2 and matmul["cv"]["folds"] == 2 and matmul["cv_per_problem"]["folds"] == 3
    assert "log2_wg_oc" in conv["feature_names"] and "log2_wg_oc" not in matmul["feature_names"]


def test_a_conv_problem_is_ranked_by_the_conv_model(trained, monkeypatch):
    models, _ = trained
    monkeypatch.setenv("MLTUNE_HOME", str(models.parent))  # the forest reads the data home's models/ARCH/KIND/ first
    problem = conv_problem(2, 10, 10, 16, 8)  # unseen in training
    candidates = CpuConvolution(problem, SYNTHETIC_CPU, None).candidates()
    ranker = make_ranker("random-forest", 0, SYNTHETIC_CPU)
    ranker.start(RankingInput(problem, SYNTHETIC_CPU, candidates))
    order = ranker.ask(len(candidates))
    assert sorted(order) == list(range(len(candidates)))
    assert set(ranker.choices) == {("synthetic", "convolution")}
    ratios = synthetic_conv_ratios(problem, candidates)
    assert ratios[order[:50]].mean() < ratios.mean()


def test_a_kind_with_one_problem_is_skipped_with_its_reason(tmp_path, capsys):
    root = write_synthetic_conv_records(write_synthetic_dataset(tmp_path / "datasets"), CONVS[:1])
    assert (
        main(
            ["train", "--arch", "synthetic", "--dataset-dir", str(root), "--model-dir", str(tmp_path / "m"), "--force"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "convolution: skipped, 1 problem(s), each within 2x of every other" in out
    assert "contraction: 120 candidates of 3 problems" in out
    assert trained_kinds(tmp_path / "m", "synthetic") == ["contraction"]


def test_a_missing_kind_is_ranked_by_the_heuristic_saying_so(trained, tmp_path, capsys):
    models, _ = trained
    only_matmuls = tmp_path / "models"
    shutil.copytree(models / "synthetic" / "contraction", only_matmuls / "synthetic" / "contraction")
    ranker = RandomForest(0, model_dir=only_matmuls)
    ranker.check_for(SYNTHETIC_CPU)  # the arch has a model: the early check passes
    problem = CONVS[0]
    ranking_input = RankingInput(problem, SYNTHETIC_CPU, CpuConvolution(problem, SYNTHETIC_CPU, None).candidates())
    ranker.start(ranking_input)
    assert ranker.ask(10) == Heuristic(0).order(ranking_input)[:10].tolist()
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and "convolution on synthetic ranked by the heuristic (no convolution model" in line
    nothing = CpuInfo("nothing", 32, 2)
    with pytest.raises(
        UserError,
        match="no random-forest model for arch 'nothing' .*`mltune train --arch nothing`.*`mltune train --family cpu`",
    ):
        RandomForest(0, model_dir=only_matmuls).check_for(nothing)


def test_evaluate_leaves_out_a_kind_with_one_problem(tmp_path, capsys):
    """The forest cannot be scored on the lone convolution without training on it: every ranker skips it."""
    root = write_synthetic_conv_records(write_synthetic_dataset(tmp_path / "datasets"), CONVS[:1])
    assert main(["evaluate", "--arch", "synthetic", "--dataset-dir", str(root), "--out", str(tmp_path / "ev")]) == 0
    out = capsys.readouterr().out
    assert "left out: 1 convolution problem" in out and "3 problems;" in out
    report = json.loads((tmp_path / "ev" / "evaluation.json").read_text())
    assert all(len(ranker["problems"]) == 3 for ranker in report["rankers"].values())


def test_evaluate_scores_one_kind(tmp_path, capsys):
    """Synthetic matmuls and convolutions: `--kind` scores only the problems of that op kind."""
    root = write_synthetic_conv_records(write_synthetic_dataset(tmp_path / "datasets"), CONVS[:2])
    assert (
        main(
            [
                "evaluate",
                "--arch",
                "synthetic",
                "--dataset-dir",
                str(root),
                "--kind",
                "convolution",
                "--out",
                str(tmp_path / "ev"),
            ]
        )
        == 0
    )
    assert "2 problems;" in capsys.readouterr().out
    report = json.loads((tmp_path / "ev" / "evaluation.json").read_text())
    assert report["kind"] == "convolution"
    assert all(p["problem"].startswith("convolution_") for p in report["rankers"]["heuristic"]["problems"])
    assert main(["evaluate", "--arch", "synthetic", "--dataset-dir", str(root), "--kind", "attention"]) == 2
    assert "no attention problem" in capsys.readouterr().err


def test_matvecs_get_their_own_gpu_model(tmp_path, monkeypatch):
    """Synthetic GPU records of matmuls and matvecs train two models; a matvec is ranked by the matvec one."""
    root = tmp_path / "datasets"
    write_synthetic_gpu_dataset(root, [matmul_problem(m, n, k, "f16") for m, n, k in GPU_SHAPES[1:]], per_problem=20)
    write_synthetic_matvec_records(root, [matvec_problem(n, k) for n, k in ((4096, 4096), (11008, 4096), (2048, 8192))])
    report = train(root, SYNTHETIC_GPU.arch, tmp_path / "models", force=True)
    assert trained_kinds(tmp_path / "models", SYNTHETIC_GPU.arch) == ["contraction", "matvec"], report
    monkeypatch.setenv("MLTUNE_HOME", str(tmp_path))
    problem = matvec_problem(4096, 11008)  # unseen in training
    candidates = GpuMatvec(problem, SYNTHETIC_GPU, None).candidates()
    ranker = make_ranker("random-forest", 0, SYNTHETIC_GPU)
    ranker.start(RankingInput(problem, SYNTHETIC_GPU, candidates))
    order = ranker.ask(len(candidates))
    assert sorted(order) == list(range(len(candidates))) and set(ranker.choices) == {(SYNTHETIC_GPU.arch, "matvec")}
