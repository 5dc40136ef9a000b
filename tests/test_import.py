"""Importing the SHARK tuner's tuning-record CSV: valid rows become records, malformed rows are reported and skipped."""

from __future__ import annotations

import pytest

from mltune.errors import UserError
from mltune.importers.amdsharktuner import ProblemSpec, import_csv
from mltune.learn.samples import load_dataset, record_ratio
from mltune.records.dataset import read_records

HEADER = (
    "gen_id,candidate_id,knob_M,knob_N,knob_K,knob_tile_m,knob_tile_n,knob_tile_k,to_compile,compile_status,"
    "to_benchmark,benchmark_device_id,benchmark_queue_position,benchmark_status,baseline_benchmark_time_us,"
    "benchmark_time_us,benchmark_speedup,benchmark_rank_order"
)
# synthetic rows in the CSV's layout; times are made up
ROWS = [
    "5,1,2048,1280,5120,64,128,32,True,True,True,hip://0,1,True,100.0,90.0,0.9,1",
    "6,2,2048,1280,5120,64,64,32,True,False,False,,,False,,,,",
    "7,3,2048,1280,5120,abc,64,32,True,True,True,hip://0,2,True,100.0,95.0,0.95,2",
    "8,4,2048,1280,5120,64,64,16,True,True,True,hip://1,3,True,100.0,-1,,",
    "9,5,2048,1280",
    "10,6,2048,1280,5120,128,64,16,True,True,True,hip://1,4,maybe,100.0,80.0,0.8,3",
    "11,7,2048,1280,5120,128,128,16,True,True,True,hip://1,5,False,100.0,,,",
]


def write_csv(path, header=HEADER, rows=ROWS):
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


def test_rows_become_records_and_bad_rows_are_reported(tmp_path):
    report = import_csv(
        write_csv(tmp_path / "mm_candidate_analysis.csv"),
        "gfx942",
        tmp_path / "datasets",
        ProblemSpec(),
        "LLVMGPUVectorDistribute",
    )
    assert (report.imported, report.skipped) == (3, 4)
    assert report.reasons == [
        "line 4: knob_tile_m='abc' is not an integer",
        "line 5: benchmark_time_us='-1' is not a positive time",
        "line 6: wrong number of fields",
        "line 7: benchmark_status='maybe' is not a boolean",
    ]
    records = list(read_records(tmp_path / "datasets" / "gfx942"))
    assert [r["status"] for r in records] == ["ok", "compile_error", "run_error"]
    ok = records[0]
    assert ok["problem"]["bounds"] == [2048, 1280, 5120] and ok["arch"] == "gfx942"
    assert ok["knobs"] == {"M": 2048, "N": 1280, "K": 5120, "tile_m": 64, "tile_n": 128, "tile_k": 32}
    assert ok["pipeline"] == "amdsharktuner/LLVMGPUVectorDistribute" and ok["device"] == "amdsharktuner/hip://0"
    assert record_ratio(ok) == pytest.approx(0.9)
    # a second import of the same file would double every record
    with pytest.raises(UserError, match="imported already"):
        import_csv(tmp_path / "mm_candidate_analysis.csv", "gfx942", tmp_path / "datasets", ProblemSpec(), "x")
    # no GPU feature extractor exists for these records yet: training refuses with the reason
    with pytest.raises(UserError, match="no feature extractor for pipeline 'amdsharktuner/LLVMGPUVectorDistribute'"):
        load_dataset(tmp_path / "datasets", "gfx942")


def test_solution_columns_and_a_problem_given_on_the_command_line(tmp_path):
    header = (
        "gen_id,candidate_id,solution_wg_0,solution_sg_m,compile_status,benchmark_status,"
        "baseline_benchmark_time_us,benchmark_time_us,benchmark_device_id"
    )
    path = write_csv(tmp_path / "new.csv", header, ["1,1,64,2,True,True,50.0,40.0,hip://0"])
    with pytest.raises(UserError, match="--problem"):
        ProblemSpec.parse("2048x1280")
    spec = ProblemSpec.parse("2048x1280x5120:f16:f32")
    report = import_csv(path, "gfx942", tmp_path / "d", spec, "unknown")
    (record,) = read_records(report.path)
    assert record["knobs"] == {"wg_0": 64, "sg_m": 2}
    assert record["problem"]["bounds"] == [2048, 1280, 5120]
    assert (record["problem"]["lhs_type"], record["problem"]["out_type"]) == ("f16", "f32")
    # without knob_M/N/K and without --problem, every row says why it was skipped
    report = import_csv(path, "gfx942", tmp_path / "e", ProblemSpec(), "unknown")
    assert report.imported == 0 and "no problem shape" in report.reasons[0]


@pytest.mark.parametrize(
    "content,words",
    [
        ("name,size\nx,1\n", "missing compile_status"),
        (HEADER.replace("knob_", "other_") + "\n", "knob_* / solution_* columns"),
    ],
)
def test_files_that_are_not_tuning_records_are_refused(tmp_path, content, words):
    path = tmp_path / "x.csv"
    path.write_text(content)
    with pytest.raises(UserError, match=words.replace("*", r"\*")):
        import_csv(path, "gfx942", tmp_path / "d", ProblemSpec(), "unknown")
    with pytest.raises(UserError, match="cannot read"):
        import_csv(tmp_path / "missing.csv", "gfx942", tmp_path / "d", ProblemSpec(), "unknown")
