"""`mltune evaluate` scores each ranker beside its twin with picks near IREE's default config, on real records."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from mltune.cli.command import main
from mltune.frontend.mlir import new_context
from mltune.learn.replay import replay
from mltune.learn.replay_near import NEAR_SUFFIX, NearDefaultReplay
from mltune.learn.samples import load_dataset
from mltune.rankers import make_ranker
from mltune.search.screen_module import one_op_default_config
from mltune.spaces.tile_coordinates import tile_coordinates
from mltune.targets.cpu import CpuTarget

REPO = Path(__file__).resolve().parents[1]
# three znver4 problems of the committed dataset, none within 2x of another: real measurements
PROBLEMS = ("mm_12544x96x16_f32f32_nn", "mm_197x768x192_f32f32_nn", "bmm_8x1024x1024x64_f32f32_nn")


@pytest.fixture(scope="module")
def datasets(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("near") / "datasets"
    (root / "znver4").mkdir(parents=True)
    for name in PROBLEMS:
        shutil.copy(REPO / "datasets" / "znver4" / f"{name}.jsonl.xz", root / "znver4")
    return root


@pytest.fixture(scope="module")
def near(tmp_path_factory) -> NearDefaultReplay:
    work, context = tmp_path_factory.mktemp("defaults"), new_context()
    return NearDefaultReplay(
        0.25, lambda s: one_op_default_config(s.problem, CpuTarget(s.target.arch), context, work / s.key)
    )


def test_the_twin_takes_the_measured_candidate_nearest_the_default_among_its_first_picks(datasets, near):
    problems = load_dataset(datasets, "znver4").problems
    assert near.placed(problems) == len(problems) == 3
    makers = near.makers(
        {"heuristic": lambda i: make_ranker("heuristic", 0), "shuffle": lambda i: make_ranker("shuffle", 0)}, problems
    )
    assert set(makers) == {"heuristic", "heuristic" + NEAR_SUFFIX, "shuffle"}  # the reference order has no twin
    for i, samples in enumerate(problems):
        space, config = near._placed[samples.key]
        assert config.startswith("#iree_cpu.lowering_config<")  # read from the compiler's dump for znver4
        places = tile_coordinates(space, samples.candidates, config)
        distance = np.abs(places.candidates - places.default).sum(axis=1)
        distance[np.isnan(distance) | (distance == 0)] = np.inf
        nearest = set(np.flatnonzero(distance == distance.min()))
        alone, twin = (
            replay(makers["heuristic"](i), samples, 8),
            replay(makers["heuristic" + NEAR_SUFFIX](i), samples, 8),
        )
        assert sorted(twin) == sorted(alone) == list(range(len(samples.ratios)))  # the same pool, reordered
        assert nearest & set(twin[:4])  # one pick in four near the default, its nearest first


@pytest.mark.slow  # two whole `mltune evaluate` runs through the command line (23 s on 2 cores)
def test_evaluate_scores_the_twins_and_none_when_asked_for_none(datasets, tmp_path, capsys):
    assert main(["evaluate", "--arch", "znver4", "--dataset-dir", str(datasets), "--out", str(tmp_path / "a")]) == 0
    assert "read for 3 of 3 problems" in capsys.readouterr().out
    report = json.loads((tmp_path / "a" / "evaluation.json").read_text())
    assert report["near_default"] == 0.25
    assert {"heuristic+near-default", "random-forest+near-default", "tpe+near-default"} <= set(report["honest"])
    assert not {"none+near-default", "shuffle+near-default"} & set(report["honest"])
    assert (
        main(
            [
                "evaluate",
                "--arch",
                "znver4",
                "--dataset-dir",
                str(datasets),
                "--out",
                str(tmp_path / "b"),
                "--near-default",
                "0",
            ]
        )
        == 0
    )
    report = json.loads((tmp_path / "b" / "evaluation.json").read_text())
    assert report["near_default"] == 0 and not [name for name in report["honest"] if NEAR_SUFFIX in name]
