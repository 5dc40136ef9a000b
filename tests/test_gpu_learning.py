"""Learning from GPU records: stored and rebuilt target facts, GPU features, TPE over GPU knobs, and
`mltune train` / `evaluate` on a small synthetic TileAndFuse dataset."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest
from learn_helpers import GPU_SHAPES, SYNTHETIC_GPU, matmul_problem, synthetic_gpu_ratios, write_synthetic_gpu_dataset

from mltune.cli.command import main
from mltune.errors import UserError
from mltune.features.gpu_relative import gpu_gemm_features
from mltune.learn.samples import load_dataset
from mltune.rankers import RankingInput, plugin_names
from mltune.rankers.tpe import Tpe, encode_knob
from mltune.records.dataset import read_records
from mltune.spaces.gpu_contraction import PIPELINE, GpuContraction
from mltune.spaces.vector_distribute import PIPELINE as VECTOR_DISTRIBUTE
from mltune.targets import CpuInfo, GpuInfo
from mltune.targets.base import compiler_facts
from mltune.targets.gpu import gpu_target
from mltune.targets.stored import STORED, facts_from_record, facts_to_record, rebuilt_facts

GPU_PROBLEMS = [matmul_problem(m, n, k, "f16", "f32") for m, n, k in GPU_SHAPES]
BOTH_PIPELINES = (PIPELINE, VECTOR_DISTRIBUTE)


@pytest.fixture(scope="module")
def gpu_datasets(tmp_path_factory):
    return write_synthetic_gpu_dataset(tmp_path_factory.mktemp("gpu_learning") / "datasets", GPU_PROBLEMS)


def test_facts_survive_their_stored_form():
    for facts in (SYNTHETIC_GPU, CpuInfo("znver4", 64, 16)):
        stored = json.loads(json.dumps(facts_to_record(facts)))
        assert stored["kind"] == facts.kind and facts_from_record(stored) == facts
    with pytest.raises(ValueError, match="unknown kind"):
        facts_from_record({"kind": "tpu"})


def test_gpu_records_give_gpu_features_from_their_stored_facts(gpu_datasets):
    """Synthetic records (made-up times) that carry the target's facts: the features use exactly those facts."""
    dataset = load_dataset(gpu_datasets, SYNTHETIC_GPU.arch)
    assert len(dataset.problems) == 3 and dataset.failed_records == 3
    for samples in dataset.problems:
        assert (samples.target, samples.target_origin, samples.pipelines) == (SYNTHETIC_GPU, STORED, BOTH_PIPELINES)
        features = samples.features()
        expected = gpu_gemm_features(samples.problem, SYNTHETIC_GPU, samples.candidates)
        assert features.names == expected.names and "waves" in features.names and "log2_m" in features.names
        np.testing.assert_array_equal(features.values, expected.values)
        assert np.isfinite(features.values).all()
        assert (0 < features["estimate_efficiency"]).all() and (features["estimate_efficiency"] <= 1).all()
        np.testing.assert_allclose(
            samples.ratios, synthetic_gpu_ratios(samples.problem, SYNTHETIC_GPU, samples.candidates), rtol=0.01
        )


def test_one_problem_of_two_pipelines_is_one_sample_group(tmp_path):
    """Synthetic records of one problem: TileAndFuse and VectorDistribute candidates, and records written before
    `vector_distribute` was a knob (TileAndFuse, without it). They form one group whose `vector_distribute` column
    follows each candidate's pipeline, with the columns the forest computes at tune time on the same candidates."""
    root = write_synthetic_gpu_dataset(tmp_path, GPU_PROBLEMS[:1], per_problem=60)
    path = next((root / SYNTHETIC_GPU.arch).glob("*.jsonl"))
    records = list(read_records(path))
    assert {r["pipeline"] for r in records} == set(BOTH_PIPELINES)
    older = [
        {**r, "knobs": {k: v for k, v in r["knobs"].items() if k != "vector_distribute"}}
        for r in records
        if r["pipeline"] == PIPELINE
    ]
    (root / SYNTHETIC_GPU.arch / "older.jsonl").write_text("".join(json.dumps(r) + "\n" for r in older))
    (samples,) = load_dataset(root, SYNTHETIC_GPU.arch).problems
    assert samples.pipelines == BOTH_PIPELINES and len(samples.candidates) == len(
        {json.dumps(r["knobs"]) for r in records if r["status"] == "ok"}
    )
    features = samples.features()
    knobs = [samples.candidates.knobs(row) for row in range(len(samples.candidates))]
    assert features["vector_distribute"].tolist() == [k["vector_distribute"] for k in knobs]
    assert 0 < features["vector_distribute"].sum() < len(knobs)
    space = GpuContraction(samples.problem, SYNTHETIC_GPU, None).candidates()
    rows = [space.index_of(k) for k in knobs]
    at_tune_time = gpu_gemm_features(samples.problem, SYNTHETIC_GPU, space)
    assert at_tune_time.names == features.names
    np.testing.assert_array_equal(at_tune_time.values[rows], features.values)


def test_old_gpu_records_rebuild_their_facts_with_the_compiler(tmp_path):
    """Synthetic sm_90 records written as schema 1 (no `target`): the compiler rebuilds the facts from the arch."""
    hopper = compiler_facts(gpu_target("sm_90"))
    root = write_synthetic_gpu_dataset(tmp_path, GPU_PROBLEMS[:1], hopper, store_target=False, per_problem=5)
    path = next((root / "sm_90").glob("*.jsonl"))
    old = [{**{k: v for k, v in r.items() if k != "target"}, "schema": 1} for r in read_records(path)]
    path.write_text("".join(json.dumps(r) + "\n" for r in old))
    (samples,) = load_dataset(root, "sm_90").problems
    assert samples.target == hopper and samples.target.cu_count == 132
    assert samples.target_origin == "rebuilt from the arch name by the compiler"
    # a plain arch names no chip: the CU count comes from the record's device id
    assert rebuilt_facts("gfx942", "host/cpu/hip://0/304cores").facts.cu_count == 304


def test_records_with_a_malformed_stored_target_are_skipped(tmp_path, capsys):
    """Synthetic records whose `target` has an unknown field: skipped with one counted warning."""
    root = write_synthetic_gpu_dataset(tmp_path, GPU_PROBLEMS[:1], per_problem=3)
    path = next((root / SYNTHETIC_GPU.arch).glob("*.jsonl"))
    path.write_text(path.read_text().replace('"kind": "cuda"', '"kind": "cuda", "bogus": 1'))
    with pytest.raises(UserError, match="no successful measurements") as err:
        load_dataset(root, SYNTHETIC_GPU.arch)
    assert "\n" not in str(err.value)
    (warning,) = capsys.readouterr().err.splitlines()
    assert re.search(r"skipped \d+ unusable records", warning) and "target: " in warning


def test_tpe_encodes_flags_and_indices_as_categories():
    distribution, values = encode_knob(np.array([0, 1, 1, 0]))
    assert distribution.choices == (0, 1) and values.tolist() == [0, 1, 1, 0]
    distribution, values = encode_knob(np.array([16, 64, 32]))
    assert (distribution.low, distribution.high) == (4, 6) and values.tolist() == [4, 6, 5]


def test_tpe_learns_over_gpu_knobs():
    """Synthetic GPU ratios: with `no_bank_fix` in {0, 1}, TPE's proposals and their distances to the candidates stay
    finite and it finds fast candidates."""
    problem = GPU_PROBLEMS[0]
    candidates = GpuContraction(problem, SYNTHETIC_GPU, None).candidates()
    ratios = synthetic_gpu_ratios(problem, SYNTHETIC_GPU, candidates)
    ranker = Tpe(0)
    ranker.start(RankingInput(problem, SYNTHETIC_GPU, candidates))
    order: list[int] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # an undefined log2(0) showed up as invalid-value warnings
        for _ in range(12):
            for index in ranker.ask(8):
                order.append(index)
                ranker.tell(index, float(ratios[index]))
        assert np.isfinite(ranker.distances(np.arange(len(candidates)), ranker.proposals(4))).all()
    assert ratios[order[48:]].mean() < ratios.mean()


@pytest.mark.slow  # 2 s: test_learn_cli trains and evaluates in the default run
def test_train_then_evaluate_on_gpu_records(gpu_datasets, tmp_path, capsys):
    """Synthetic TileAndFuse records: `train` and `evaluate` run every ranker and write the table, JSON and plot."""
    arch = SYNTHETIC_GPU.arch
    assert (
        main(["train", "--arch", arch, "--dataset-dir", str(gpu_datasets), "--model-dir", str(tmp_path), "--force"])
        == 0
    )
    out = capsys.readouterr().out
    assert f"features for {arch}: 100 SMs of 4 SIMDs, 100 KiB shared memory" in out and STORED in out
    sidecar = json.loads((tmp_path / arch / "contraction" / "model.json").read_text())
    assert sidecar["pipelines"] == list(BOTH_PIPELINES) and "vector_distribute" in sidecar["feature_names"]
    # trained without the problem's absolute sizes, with the time estimate's efficiency (`features/gpu_relative.py`)
    assert "log2_flops" not in sidecar["feature_names"] and "estimate_efficiency" in sidecar["feature_names"]
    assert GpuInfo.from_dict({k: v for k, v in sidecar["targets"][0]["facts"].items() if k != "kind"}) == SYNTHETIC_GPU
    out_dir = tmp_path / "evaluation"
    assert main(["evaluate", "--arch", arch, "--dataset-dir", str(gpu_datasets), "--out", str(out_dir)]) == 0
    table = capsys.readouterr().out
    report = json.loads((out_dir / "evaluation.json").read_text())
    # mltune's own, and the installed plugins' (`.ci/run` installs the example)
    assert set(report["rankers"]) == {
        "none",
        "shuffle",
        "heuristic",
        "random-forest",
        "random-forest-refit",
        "random-forest-alone",
        "tpe",
        *plugin_names(),
    }
    for ranker in report["rankers"]:
        assert f"\n{ranker} " in table and len(report["rankers"][ranker]["problems"]) == 3
    assert (out_dir / "solved_within_5pct.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
