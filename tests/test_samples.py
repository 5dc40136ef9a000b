"""Dataset records grouped into per-problem samples: ratios, repeated candidates, failures and CPU facts."""

from __future__ import annotations

import numpy as np
import pytest
from learn_helpers import matmul_problem

from mltune.learn.replay_report import best_rounds_line
from mltune.learn.samples import load_dataset, record_ratio
from mltune.records.dataset import Record, RecordWriter
from mltune.targets import CpuInfo


def record(knobs: dict[str, int], times: list[float], baselines: list[float], status: str = "ok") -> Record:
    # synthetic: a record of a 64x96x48 matmul with made-up times
    return Record(
        arch="znver4",
        device="host/AMD EPYC/local-task/4cores",
        problem=matmul_problem(64, 96, 48).to_record(),
        pipeline="DoubleTilingExpert",
        knobs=knobs,
        status=status,
        time_us=times,
        baseline_us=baselines,
        ranker="shuffle",
        position=0,
        run_id="synthetic",
        level="model",
    )


def test_record_ratio_is_the_median_of_per_round_ratios():
    assert record_ratio({"status": "ok", "time_us": [10, 30, 12], "baseline_us": [20, 20, 10]}) == 1.2
    assert record_ratio({"status": "compile_error", "time_us": [], "baseline_us": []}) == np.inf
    assert record_ratio({"status": "ok", "time_us": [1.0], "baseline_us": []}) == np.inf


def test_repeated_candidates_are_one_sample_and_failures_are_counted(tmp_path):
    a = {"wg_m": 32, "wg_n": 32, "vec_m": 8, "vec_n": 16, "vec_k": 4}
    b = {"wg_m": 64, "wg_n": 32, "vec_m": 4, "vec_n": 16, "vec_k": 8}
    writer = RecordWriter(tmp_path / "znver4" / "mm.jsonl")
    for r in (
        record(a, [10.0], [20.0]),
        record(a, [30.0], [20.0]),
        record(b, [5.0], [20.0]),
        record(b, [], [], "compile_error"),
    ):
        writer.append(r)
    writer.close()
    dataset = load_dataset(tmp_path, "znver4")
    (samples,) = dataset.problems
    assert dataset.failed_records == 1
    assert samples.candidates.knobs(samples.candidates.index_of(a)) == a
    assert samples.ratios[samples.candidates.index_of(a)] == pytest.approx(1.0)  # median of 0.5 and 1.5
    assert samples.ratios[samples.candidates.index_of(b)] == pytest.approx(0.25)
    # schema 1 records carry no target: the CPU's facts are rebuilt from the arch name and the device's cores
    assert samples.target == CpuInfo("znver4", 64, 4)
    assert samples.target_origin == "rebuilt from the arch name (CPU table)"
    assert samples.features().values.shape[0] == 2


def test_a_re_measured_best_outweighs_its_screening_and_its_rounds_are_counted(tmp_path):
    a = {"wg_m": 32, "wg_n": 32, "vec_m": 8, "vec_n": 16, "vec_k": 4}
    b = {"wg_m": 64, "wg_n": 32, "vec_m": 4, "vec_n": 16, "vec_k": 8}
    writer = RecordWriter(tmp_path / "znver4" / "mm.jsonl")
    writer.append(record(a, [8.0, 9.0, 10.0], [20.0] * 3))  # a lucky screening: 0.45 ...
    writer.append(record(b, [14.0] * 3, [20.0] * 3))  # 0.70
    writer.close()
    (screened,) = load_dataset(tmp_path, "znver4").problems
    assert screened.best_rounds == 3 and "on 1 of 1 problems it is one screening" in best_rounds_line([screened])
    writer = RecordWriter(tmp_path / "znver4" / "mm.finals.jsonl")
    writer.append(record(a, [18.0] * 9, [20.0] * 9))  # ... that its finalist's 9 rounds put at 0.90
    writer.close()
    (samples,) = load_dataset(tmp_path, "znver4").problems
    assert samples.ratios[samples.candidates.index_of(a)] == pytest.approx(0.9)  # the 12 rounds' median
    assert samples.rounds[samples.candidates.index_of(a)] == 12
    assert samples.best_rounds == 3  # b is the best now, on its one screening
    assert "a median of 3 rounds; on 1 of 1 problems" in best_rounds_line([samples])
