"""The final report's closing lines: a written spec is announced once, never also as "not written"."""

from pathlib import Path

from mltune.report import TuneReport
from mltune.report_text import print_report


def _report(tmp_path: Path, spec_path: Path | None) -> TuneReport:
    output = tmp_path / "best_spec.mlir"
    return TuneReport("model", baseline_us=100.0, dispatches=[], results=[], spec_path=spec_path,
                      requested_output=output, wall_seconds=10.0, tool_seconds=9.0, records_path=tmp_path / "r.jsonl")


def test_a_written_spec_is_not_also_reported_as_missing(tmp_path, capsys):
    (tmp_path / "best_spec.mlir").write_text("spec")
    print_report(_report(tmp_path, tmp_path / "best_spec.mlir"))
    out = capsys.readouterr().out
    assert "Tuning spec: " in out and "No tuning spec written" not in out and "earlier run" not in out


def test_no_spec_says_why_and_names_an_earlier_output(tmp_path, capsys):
    (tmp_path / "best_spec.mlir").write_text("from before")
    print_report(_report(tmp_path, None))
    out = capsys.readouterr().out
    assert "No tuning spec written: IREE's default configuration is already the best found." in out
    assert "is from an earlier run and was left as it was" in out and "Tuning spec: " not in out
