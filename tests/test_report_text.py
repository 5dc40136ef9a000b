"""The final report: the finalists table (one estimator per verdict, only the knobs that apply) and its closing
lines (a written spec is announced once, never also as "not written")."""

import contextlib
import io
import re
from pathlib import Path

from learn_helpers import matmul_problem

from mltune.execution.build import BuildResult
from mltune.execution.measurement import Measurement
from mltune.runs.report import TuneReport
from mltune.runs.report_text import print_report
from mltune.search.results import DispatchResult, Trial


def _report(tmp_path: Path, spec_path: Path | None) -> TuneReport:
    output = tmp_path / "best_spec.mlir"
    return TuneReport(
        "model",
        baseline_us=100.0,
        dispatches=[],
        results=[],
        spec_path=spec_path,
        requested_output=output,
        wall_seconds=10.0,
        tool_seconds=9.0,
        records_path=tmp_path / "r.jsonl",
    )


def test_a_written_spec_is_not_also_reported_as_missing(tmp_path, capsys):
    (tmp_path / "best_spec.mlir").write_text("spec")
    print_report(_report(tmp_path, tmp_path / "best_spec.mlir"))
    out = capsys.readouterr().out
    assert "Tuning spec: " in out and "No tuning spec written" not in out and "earlier run" not in out


def test_no_spec_says_why_and_names_an_earlier_output(tmp_path, capsys):
    (tmp_path / "best_spec.mlir").write_text("from before")
    print_report(_report(tmp_path, None))
    out = capsys.readouterr().out
    assert (
        "No tuning spec written: no candidate ran faster than IREE's default in screening: its configuration "
        "is the best found."
    ) in out
    assert "is from an earlier run and was left as it was" in out and "Tuning spec: " not in out


def test_finalists_show_one_estimator_and_only_the_knobs_that_apply(tmp_path, capsys):
    """Synthetic rounds whose ratio of median times (0.98x) lies outside the interval of the per-round ratios
    (1.00-1.03x): the speedup printed is the interval's own estimate (1.02x), inside it."""
    default = (140.0, 100.0, 180.0, 100.0, 110.0, 160.0, 200.0, 200.0, 100.0)
    tuned = (142.8, 100.0, 176.4, 100.0, 105.6, 156.8, 196.0, 196.0, 97.0)
    plain = {
        "wg_m": 8,
        "wg_n": 16,
        "vec_m": 4,
        "vec_n": 8,
        "vec_k": 1,
        "lowering": 0,
        "dt_tile_kib": 0,
        "dt_threads": 0,
    }
    tiled = {
        "wg_m": 16,
        "wg_n": 32,
        "vec_m": 16,
        "vec_n": 16,
        "vec_k": 1,
        "lowering": 2,
        "dt_tile_kib": 256,
        "dt_threads": 8,
    }
    finals = [
        (Trial(i, i, knobs, BuildResult(i, "ok", None), None, ""), Measurement(i, "ok", tuned, default))
        for i, knobs in enumerate((plain, tiled))
    ]
    result = DispatchResult("dispatch_0", matmul_problem(64, 64, 64), 2, finals=finals)
    report = _report(tmp_path, None)
    report.results.append(result)
    print_report(report)
    rows = [line for line in capsys.readouterr().out.splitlines() if re.match(r"\s+[12] ", line)]
    assert len(rows) == 2
    for row in rows:
        speedup, low, high = map(float, re.search(r"([\d.]+)x\s+([\d.]+)-([\d.]+)x", row).groups())
        assert low <= speedup <= high and speedup == 1.02, row
    assert rows[0].endswith("wg_m=8 wg_n=16 vec_m=4 vec_n=8 vec_k=1")
    assert rows[1].endswith("lowering=2 dt_tile_kib=256 dt_threads=8")


def test_a_verdict_line_shows_only_the_knobs_of_its_lowering():
    """Synthetic verdicts: a plain tiling's line leaves out the data-tiling knobs, a data-tiled one's keeps them."""
    from mltune.tuning.library_call import DispatchVerdict

    plain = {
        "wg_m": 50,
        "wg_n": 32,
        "vec_m": 25,
        "vec_n": 16,
        "vec_k": 1,
        "lowering": 0,
        "dt_tile_kib": 0,
        "dt_threads": 0,
    }
    line = DispatchVerdict("d0", "p", 100, 8, True, 2.5, 2.4, 2.6, plain, None, "budget").describe()
    assert "wg_m=50" in line and "lowering" not in line and "dt_" not in line
    tiled = dict(plain, lowering=2, dt_tile_kib=64, dt_threads=2)
    line = DispatchVerdict("d0", "p", 100, 8, True, 2.5, 2.4, 2.6, tiled, None, "budget").describe()
    assert "dt_tile_kib=64" in line and "wg_m" not in line


def test_the_models_time_is_its_own_default_never_a_dispatchs(tmp_path, capsys):
    """Synthetic times: finalists timed inside the model (a dispatch's 9.8 ms) and the model's end-to-end timing
    (230 ms): the report gives the model's; without an end-to-end timing or trials of the whole model, none."""
    from mltune.runs.summary import baseline_us
    from mltune.whole_model.verify import EndToEnd

    dispatch = (9800.0, 9790.0, 9810.0)
    trial = Trial(0, 0, {}, BuildResult(0, "ok", None), Measurement(0, "ok", (9000.0,) * 3, dispatch), "")
    in_model = DispatchResult("dispatch_0", matmul_problem(64, 64, 64), 2, trials=[trial])
    model = (230e3, 231e3, 229e3)
    timing = EndToEnd(("recommended",), (Measurement(0, "ok", (180e3,) * 3, model),))
    assert baseline_us([], timing) == 230e3
    assert baseline_us([in_model]) == 9800.0, "a dispatch benchmark's trials time the input itself"
    assert baseline_us([]) != baseline_us([])  # nan: nothing timed the model whole


def test_a_spec_over_a_default_that_differs_from_the_host_says_so(tmp_path, capsys):
    """Synthetic outputs: IREE's default computes half of the host's; the report prints the verdict and, beside the
    written spec, that its speedup is over a build with wrong outputs; a default that agrees adds no such line."""
    import numpy as np

    from mltune.whole_model.host_reference import host_check

    host = np.linspace(-1, 1, 64, dtype=np.float32)
    (tmp_path / "best_spec.mlir").write_text("spec")
    for default, told in ((host / 2, True), (host, False)):
        report = _report(tmp_path, tmp_path / "best_spec.mlir")
        report.host = host_check([host], [default])
        print_report(report)
        out = capsys.readouterr().out
        assert ("DIFFERS from the same file built for llvm-cpu" in out) is told, out
        assert ("over a build that computes wrong outputs" in out) is told, out


def _one_finalist(tmp_path: Path, tuned: tuple[float, ...], default: tuple[float, ...]) -> str:
    knobs = {"wg_m": 8, "wg_n": 16, "vec_m": 4, "vec_n": 8, "vec_k": 1}
    finals = [(Trial(0, 0, knobs, BuildResult(0, "ok", None), None, ""), Measurement(0, "ok", tuned, default))]
    report = _report(tmp_path, None)
    report.results.append(DispatchResult("dispatch_0", matmul_problem(64, 64, 64), 2, finals=finals, min_speedup=1.03))
    return next(line for line in report_lines(tmp_path, report) if "No tuning spec written" in line)


def report_lines(tmp_path: Path, report: TuneReport) -> list[str]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        print_report(report)
    return buffer.getvalue().splitlines()


def test_an_inconclusive_finalist_is_not_reported_as_the_default_being_best(tmp_path):
    """Synthetic rounds: ratios from 0.8x to 1.6x are inconclusive (said with the interval and what would decide
    it); ratios all near 0.9x say that no finalist was surely faster."""
    default = (100.0, 120.0, 90.0, 160.0, 100.0, 80.0, 130.0, 100.0, 150.0)
    noisy = tuple(d / r for d, r in zip(default, (0.8, 1.6, 0.9, 1.5, 1.2, 0.85, 1.4, 1.1, 1.3)))
    line = _one_finalist(tmp_path, noisy, default)
    assert "inconclusive: the best finalist (dispatch_0) measured" in line and "quieter machine" in line, line
    slower = tuple(d / 0.9 for d in default)
    line = _one_finalist(tmp_path, slower, default)
    assert "no finalist was surely faster than IREE's default" in line and "0.90x" in line, line
