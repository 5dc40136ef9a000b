"""`mltune dataset import --from amdsharktuner`: the SHARK tuner's candidate-analysis CSV as mltune records.

The CSV (`TuningRecord` rows, research/anchors.md section 1.4) has one row per candidate:
`gen_id`, `candidate_id`, knob columns (`knob_*`, or `solution_*` on newer versions),
`compile_status`, `benchmark_status`, `benchmark_time_us`, `baseline_benchmark_time_us`,
`benchmark_device_id`, ... It names no arch, compiler or problem: the arch comes from the
command line and the problem from the `knob_M/N/K` columns (or `--problem`). A malformed row
is skipped and reported, never a crash: one bad line must not cost a whole tuning session.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mltune.errors import UserError
from mltune.records.dataset import Record, RecordWriter

KNOB_PREFIXES = ("knob_", "solution_")
REQUIRED = ("compile_status", "benchmark_status", "benchmark_time_us", "baseline_benchmark_time_us")
SHAPE_KNOBS = ("M", "N", "K")
TRUE, FALSE = ("true", "1", "yes"), ("false", "0", "no", "")
MAX_REASONS = 5


@dataclass(frozen=True)
class ProblemSpec:
    """What the CSV cannot say about the problem: sizes (if no knob_M/N/K columns) and element types."""

    sizes: tuple[int, int, int] | None = None
    input_type: str = "unknown"
    accumulator_type: str = "unknown"

    @staticmethod
    def parse(text: str) -> "ProblemSpec":
        """`MxNxK[:INPUT_TYPE[:ACCUMULATOR_TYPE]]`, e.g. `2048x1280x5120:f16:f32`."""
        match = re.fullmatch(r"(\d+)x(\d+)x(\d+)(?::(\w+))?(?::(\w+))?", text)
        if match is None:
            raise UserError(
                f"--problem {text!r}: expected MxNxK[:INPUT_TYPE[:ACCUMULATOR_TYPE]], e.g. 2048x1280x5120:f16:f32"
            )
        m, n, k, input_type, accumulator_type = match.groups()
        return ProblemSpec(
            (int(m), int(n), int(k)), input_type or "unknown", accumulator_type or input_type or "unknown"
        )

    def problem(self, m: int, n: int, k: int) -> dict[str, Any]:
        """A `Problem` record of a plain M x N x K contraction (layout and maps are not in the CSV)."""
        return {
            "op_kind": "contraction",
            "op_name": "unknown",
            "bounds": [m, n, k],
            "batch": [],
            "m": [0],
            "n": [1],
            "k": [2],
            "lhs_type": self.input_type,
            "rhs_type": self.input_type,
            "out_type": self.accumulator_type,
            "indexing_maps": [],
            "layout": "unknown",
        }


@dataclass
class ImportReport:
    path: Path
    imported: int = 0
    skipped: int = 0
    reasons: list[str] = field(default_factory=list)

    def skip(self, line: int, reason: str) -> None:
        self.skipped += 1
        if len(self.reasons) < MAX_REASONS:
            self.reasons.append(f"line {line}: {reason}")


def _flag(value: str, column: str) -> bool:
    text = value.strip().lower()
    if text in TRUE or text in FALSE:
        return text in TRUE
    raise ValueError(f"{column}={value!r} is not a boolean")


def _time(value: str, column: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{column}={value!r} is not a number") from None
    if not (number > 0 and math.isfinite(number)):
        raise ValueError(f"{column}={value!r} is not a positive time")
    return number


def _integer(value: str, column: str) -> int:
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{column}={value!r} is not an integer") from None
    if not number.is_integer():
        raise ValueError(f"{column}={value!r} is not an integer")
    return int(number)


def _knob_columns(header: list[str]) -> dict[str, str]:
    """Knob name -> column; `knob_` columns win over `solution_` ones of the same name."""
    columns: dict[str, str] = {}
    for prefix in reversed(KNOB_PREFIXES):
        columns.update({name[len(prefix) :]: name for name in header if name.startswith(prefix)})
    return columns


def _row_record(row: dict[str, Any], knob_columns: dict[str, str], spec: ProblemSpec, fields: dict[str, Any]) -> Record:
    """One CSV row as a record; raises ValueError saying what is wrong with the row."""
    if None in row or None in row.values():
        raise ValueError("wrong number of fields")
    knobs = {name: _integer(row[column], column) for name, column in knob_columns.items()}
    if spec.sizes is not None:
        m, n, k = spec.sizes
    elif all(name in knobs for name in SHAPE_KNOBS):
        m, n, k = (knobs[name] for name in SHAPE_KNOBS)
    else:
        raise ValueError("no problem shape: no knob_M/N/K values and no --problem")
    status, times, baselines = "ok", [], []
    if not _flag(row["compile_status"], "compile_status"):
        status = "compile_error"
    elif not _flag(row["benchmark_status"], "benchmark_status"):
        status = "run_error"
    else:
        times = [_time(row["benchmark_time_us"], "benchmark_time_us")]
        baselines = [_time(row["baseline_benchmark_time_us"], "baseline_benchmark_time_us")]
    position = _integer(row.get("candidate_id") or row.get("gen_id") or "0", "candidate_id")
    device = f"amdsharktuner/{row.get('benchmark_device_id') or 'unknown'}"
    return Record(
        problem=spec.problem(m, n, k),
        knobs=knobs,
        status=status,
        time_us=times,
        baseline_us=baselines,
        position=position,
        device=device,
        **fields,
    )


def import_csv(csv_path: Path, arch: str, dataset_dir: Path, spec: ProblemSpec, pipeline: str) -> ImportReport:
    """Append the CSV's rows as records to `dataset_dir/arch/amdsharktuner_<stem>.jsonl`."""
    out = dataset_dir / arch / f"amdsharktuner_{csv_path.stem}.jsonl"
    if out.exists():
        raise UserError(f"{out} exists: {csv_path.name} was imported already (delete it to import again)")
    report = ImportReport(out)
    records = []
    try:
        with open(csv_path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            header = reader.fieldnames or []
            missing = [name for name in REQUIRED if name not in header]
            knob_columns = _knob_columns(header)
            if missing or not knob_columns:
                what = ", ".join(missing) if missing else "knob_* / solution_* columns"
                raise UserError(f"{csv_path} is not an amdsharktuner tuning-record CSV (missing {what})")
            fields = {
                "arch": arch,
                "pipeline": f"amdsharktuner/{pipeline}",
                "ranker": "amdsharktuner",
                "run_id": f"amdsharktuner/{csv_path.stem}",
                "level": "dispatch",
                "compiler": "unknown",
                "timestamp": csv_path.stat().st_mtime,
            }
            while True:
                line = reader.line_num + 1
                try:
                    row = next(reader)
                    records.append(_row_record(row, knob_columns, spec, fields))
                except StopIteration:
                    break
                except (ValueError, csv.Error) as err:
                    report.skip(line, str(err))
    except (OSError, UnicodeDecodeError) as err:
        raise UserError(f"cannot read {csv_path}: {getattr(err, 'strerror', None) or err}") from None
    _write(out, records)
    report.imported = len(records)
    return report


def _write(out: Path, records: list[Record]) -> None:
    if not records:
        return
    try:
        writer = RecordWriter(out)
        try:
            for record in records:
                writer.append(record)
        finally:
            writer.close()
    except OSError as err:
        raise UserError(f"cannot write {out}: {err.strerror or err}") from None
