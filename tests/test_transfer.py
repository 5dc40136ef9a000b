"""Learning across archs: pooled family models, the fallback chain (arch, family, heuristic), the refusal of a model
that ranks worse than the heuristic, and leave-arch-out. All records are synthetic (made-up times over real candidate
spaces, from a rule over target-relative features: `learn_helpers.relative_ratios`)."""

from __future__ import annotations

import json
import shutil

import pytest
from learn_helpers import SHAPES, matmul_problem, relative_ratios, write_synthetic_cpu_arch, write_synthetic_dataset

from mltune.cli.command import main
from mltune.errors import UserError
from mltune.learn.model_files import MANIFEST_KEY, MODEL_FILE, SIDECAR_FILE, manifest_sha256, trained_kinds
from mltune.learn.learner_names import LEARNER_NAMES
from mltune.learn.model_choice import choose_model
from mltune.learn.quality import judge
from mltune.learn.train import train_family
from mltune.rankers import RankingInput, make_ranker
from mltune.spaces.cpu_contraction import CpuContraction
from mltune.targets.cpu import CpuInfo

WIDE = CpuInfo(
    "synthwide",
    64,
    4,
    l1d_bytes=48 * 1024,
    l2_bytes=2 << 20,
    l3_bytes=8 << 20,
    vector_registers=32,
    fma_units=2,
    fma_latency=4,
)  # a made-up AVX-512 core
NARROW = CpuInfo(
    "synthnarrow",
    32,
    2,
    l1d_bytes=32 * 1024,
    l2_bytes=512 << 10,
    l3_bytes=16 << 20,
    vector_registers=16,
    fma_units=2,
    fma_latency=4,
)  # a made-up AVX2 core
MORE_SHAPES = SHAPES + ((96, 160, 80), (32, 256, 128))


@pytest.fixture(scope="module")
def two_archs(tmp_path_factory):
    """Synthetic records of two made-up CPUs, the same relative rule on each."""
    root = tmp_path_factory.mktemp("archs") / "datasets"
    write_synthetic_cpu_arch(root, WIDE, MORE_SHAPES, per_problem=30)
    return write_synthetic_cpu_arch(root, NARROW, MORE_SHAPES, per_problem=30, seed=1)


@pytest.fixture(scope="module")
def family_models(two_archs):
    models = two_archs.parent / "models"
    report = train_family(two_archs, "cpu", models, force=True)
    assert report["archs"] == ["synthnarrow", "synthwide"]
    return models


@pytest.mark.slow  # 3 s
def test_leave_arch_out_on_a_known_rule(two_archs, tmp_path, capsys):
    """Known answer: the rule reads only target-relative features, so a forest trained on the wide CPU alone ranks the
    narrow CPU's candidates far better than shuffle (whose expectation is about n / 6 here)."""
    assert (
        main(
            [
                "evaluate",
                "--arch",
                "synthnarrow",
                "--leave-arch-out",
                "--dataset-dir",
                str(two_archs),
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "forests trained on synthwide (5 problems), never on synthnarrow" in out
    report = json.loads((tmp_path / "evaluation.json").read_text())["rankers"]
    transferred = report["random-forest (leave-arch-out)"]["summary"]
    shuffle_expected = transferred["mean_shuffle_expected"]["0.05"]
    assert transferred["mean_position"]["0.05"] * 3 <= shuffle_expected
    assert {"random-forest", "random-forest-refit", "random-forest-refit (leave-arch-out)"} <= set(report)


def test_the_family_model_ranks_an_arch_without_a_model_and_says_so(family_models, capsys, monkeypatch):
    assert trained_kinds(family_models, "family-cpu") == ["contraction"]
    monkeypatch.setenv("MLTUNE_HOME", str(family_models.parent))  # the forest reads the data home's models/ first
    unseen = CpuInfo("synthmid", 32, 8)  # no model of its own
    problem = matmul_problem(80, 112, 64)
    candidates = CpuContraction(problem, unseen, None).candidates()
    ranker = make_ranker("random-forest", 0, unseen)
    ranker.start(RankingInput(problem, unseen, candidates))
    order = ranker.ask(len(candidates))
    line = capsys.readouterr().err
    assert line.count("\n") == 1
    assert (
        "contraction on synthmid ranked by" in line
        and "family-cpu/contraction blended with the heuristic, as it never saw this arch (the cpu family's " in line
    )
    assert "model, trained on synthnarrow, synthwide; no contraction model for synthmid)" in line
    assert any(f"family's {learner} model" in line for learner in LEARNER_NAMES)  # what fitted it, named
    ratios = relative_ratios(problem, unseen, candidates)
    assert ratios[order[:20]].mean() < ratios.mean()


def _order(name: str, problem, target, candidates, **keywords) -> list[int]:
    ranker = make_ranker(name, 0, target, **keywords)
    ranker.start(RankingInput(problem, target, candidates))
    return [int(i) for i in ranker.ask(len(candidates))]


def test_the_learned_default_ranks_by_a_model_only_where_it_learned_from_the_arch(
    family_models, capsys, monkeypatch, tmp_path
):
    monkeypatch.setenv("MLTUNE_HOME", str(family_models.parent))
    problem = matmul_problem(80, 112, 64)
    candidates = CpuContraction(problem, WIDE, None).candidates()
    # an arch the family model learned from: the random forest's order, said as the learned ranker's choice
    assert _order("learned", problem, WIDE, candidates) == _order("random-forest", problem, WIDE, candidates)
    assert "learned: contraction on synthwide ranked by " in capsys.readouterr().err
    # an arch it never saw: the heuristic's order, not a blend, and the line says why
    unseen = CpuInfo("synthmid", 32, 8)
    candidates = CpuContraction(problem, unseen, None).candidates()
    assert _order("learned", problem, unseen, candidates) == _order("heuristic", problem, unseen, candidates)
    line = capsys.readouterr().err
    assert (
        line.count("\n") == 1
        and "learned: contraction on synthmid ranked by the heuristic (the cpu family's model in " in line
        and "learned from synthnarrow, synthwide, never from synthmid" in line
    )
    # no model at all: the learned default tunes with the heuristic where random-forest refuses the target
    empty = tmp_path / "no-models"
    empty.mkdir()
    assert _order("learned", problem, unseen, candidates, model_dir=empty) == _order(
        "heuristic", problem, unseen, candidates
    )
    with pytest.raises(UserError, match="no random-forest model for arch 'synthmid'"):
        make_ranker("random-forest", 0, unseen, model_dir=empty)


def _rewrite(sidecar_path, sidecar) -> None:
    """The sidecar as training with another outcome would have written it (its manifest recomputed)."""
    sidecar[MANIFEST_KEY] = manifest_sha256(sidecar_path.parent / MODEL_FILE, sidecar)
    sidecar_path.write_text(json.dumps(sidecar))


def test_the_fallback_chain(family_models, two_archs, tmp_path):
    models = tmp_path / "models"
    shutil.copytree(family_models, models)
    # a trusted model of the arch's own comes first
    assert (
        main(["train", "--arch", "synthwide", "--dataset-dir", str(two_archs), "--model-dir", str(models), "--force"])
        == 0
    )
    sidecar_path = models / "synthwide" / "contraction" / SIDECAR_FILE
    sidecar = json.loads(sidecar_path.read_text())
    sidecar["quality"].update(ok=True, forced=False)
    _rewrite(sidecar_path, sidecar)
    own = choose_model((models,), WIDE, "contraction")
    assert f"(this arch's model, {own.loaded.learner})" in own.description
    # one that ranked worse in cross-validation gives way to the family's
    sidecar["quality"].update(ok=False, forced=False)
    _rewrite(sidecar_path, sidecar)
    choice = choose_model((models,), WIDE, "contraction")
    assert "family-cpu" in str(choice.loaded.folder) and "ranked worse in cross-validation" in choice.description
    assert not choice.blend  # the family model was trained on this arch too
    assert choose_model((models,), CpuInfo("synthmid", 32, 8), "contraction").blend  # ...but never on this one
    # with no family model either, the heuristic ranks
    shutil.rmtree(models / "family-cpu")
    choice = choose_model((models,), WIDE, "contraction")
    assert choice.loaded is None and "ranked by the heuristic" in choice.description
    # a model that exists but fails its checks is refused loudly, never silently skipped
    (models / "synthwide" / "contraction" / "forest.npz").write_bytes(b"not a forest")
    with pytest.raises(UserError, match="do not match the SHA-256"):
        choose_model((models,), WIDE, "contraction")


def test_train_refuses_a_model_that_ranks_worse_than_the_heuristic(tmp_path, capsys):
    """On these synthetic records (3 problems) the heuristic's keys are the rule itself: held out, it reaches 5 % in
    1.0 / 1.67 iterations (median / mean), regression trees (`--learner boosted-trees`: that learner alone; the
    ranking one ties the heuristic here) in 1.0 / 2.00, so the model is not written without --force."""
    datasets = write_synthetic_dataset(tmp_path / "datasets")
    args = [
        "train",
        "--arch",
        "synthetic",
        "--dataset-dir",
        str(datasets),
        "--model-dir",
        str(tmp_path / "models"),
        "--learner",
        "boosted-trees",
    ]
    assert main(args) == 1
    captured = capsys.readouterr()
    assert "contraction model not written: it ranks worse than the heuristic" in captured.err
    assert captured.err.count("\n") == 1 and not (tmp_path / "models" / "synthetic").exists()
    assert main([*args, "--force"]) == 0
    sidecar = json.loads((tmp_path / "models" / "synthetic" / "contraction" / SIDECAR_FILE).read_text())
    assert sidecar["quality"]["forced"] and not sidecar["quality"]["ok"]
    assert sidecar["learner"] == "boosted-trees" and set(sidecar["learners"]) == {"boosted-trees"}
    assert "written with --force" in capsys.readouterr().out


def test_judge_prefers_the_heuristic_then_the_family_model_by_the_mean_first():
    cv = {
        "median_iterations": 3.0,
        "mean_iterations": 6.0,
        "heuristic_median_iterations": 3.0,
        "heuristic_mean_iterations": 5.0,
    }
    assert judge(cv, None)["better"] == "heuristic"  # same median, higher mean
    cv["heuristic_median_iterations"] = 1.0
    assert judge(cv, None)["better"] == "heuristic"  # a lower median does not make up for a higher mean
    cv["heuristic_mean_iterations"] = 9.0
    verdict = judge(cv, None)
    assert verdict["ok"] and "3.0 / 6.00 vs 1.0 / 9.00" in verdict["verdict"]  # a worse median, a lower mean
    assert judge(cv, {"median_iterations": 4.0, "mean_iterations": 5.0})["better"] == "family"
    assert judge(cv, {"median_iterations": 2.0, "mean_iterations": 6.0})["better"] == "family"  # same mean
    assert judge(cv, {"median_iterations": 3.0, "mean_iterations": 6.0})["ok"]


def test_train_needs_an_arch_or_a_family(capsys):
    assert main(["train"]) == 2
    assert "train needs one of --arch ARCH or --family cpu|gpu" in capsys.readouterr().err
    assert main(["train", "--family", "tpu"]) == 2
