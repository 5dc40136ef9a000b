"""A run's stages take their collaborators from `make_collaborators`: a test (or a plugin) swaps the builder,
runner or ranker without touching the stages (`mltune.tuning.tune`)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from mltune.execution.build import Builder
from mltune.frontend.mlir import new_context
from mltune.rankers.base import RankingInput, StaticRanker
from mltune.search.settings import LoopSettings
from mltune.targets import parse_target
from mltune.tuning.collaborators import default_collaborators
from mltune.tuning.request import TuneRequest
from mltune.tuning.tune import tune

MATMUL = Path(__file__).resolve().parent.parent / "examples" / "matmul_f32.mlir"


class LastFirst(StaticRanker):
    """The space's candidates in reverse order: an order no built-in ranker gives."""

    name = "last-first"

    def order(self, ranking_input: RankingInput) -> np.ndarray:
        return np.arange(len(ranking_input.candidates))[::-1]


class CountingBuilder(Builder):
    """IREE's compiles, counted."""

    compiles = 0

    def compile(self, index, applied, name):
        CountingBuilder.compiles += 1
        return super().compile(index, applied, name)


@pytest.mark.slow
def test_swapped_ranker_and_builder_do_the_runs_work(tmp_path):
    def collaborators(run):
        tools = default_collaborators(run)
        builder = CountingBuilder(tools.builder.tuning_input, tools.builder.work_dir, tools.builder.jobs)
        return replace(tools, builder=builder, ranker=LastFirst())

    request = TuneRequest(
        input_path=MATMUL,
        target=parse_target("host"),
        ranker="heuristic",
        settings=LoopSettings(budget=2),
        output=tmp_path / "spec.mlir",
        run_dir=tmp_path / "run",
        dataset_dir=tmp_path / "datasets",
        jobs=1,
    )
    report = tune(request, new_context(), make_collaborators=collaborators)
    assert CountingBuilder.compiles >= 1  # IREE's default build, at least, went through the swapped builder
    (result,) = report.results
    records = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert records and all("last-first" in r["ranker"] for r in records), {r["ranker"] for r in records}
    assert len(result.trials) == 2
    assert list(report.stage_seconds) == [
        "prepare the input",
        "IREE's default build",
        "profile",
        "search (screen, finalists)",
        "checks in the model and the result",
    ]
    assert (
        json.loads((tmp_path / "run" / "summary.json").read_text())["stage_seconds"].keys()
        == report.stage_seconds.keys()
    )
