"""A run's record files: what a run folder's earlier records are, and how their reuse is said."""

from __future__ import annotations

import json
import lzma
import time
from pathlib import Path

from mltune.tuning.run_records import RunRecords

MEASURED = Path(__file__).resolve().parent.parent / "datasets" / "znver3" / "bmm_12x128x128x64_f32f32_nn.jsonl.xz"


def _write(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_reused_measurements_are_said_with_when_and_load(tmp_path):
    """Measured records given synthetic times and loads, in a run folder: the note says how many are reused, from
    when, and how busy the machine was; a record without its load makes the load unknown; a fresh folder says
    nothing."""
    run_dir = tmp_path / "runs" / "r1"
    assert RunRecords(tmp_path / "datasets", "znver3", run_dir).reused() == ""
    stamp = time.mktime((2026, 12, 7, 9, 30, 0, 0, 0, -1))
    measured = [json.loads(line) for line in lzma.open(MEASURED, "rt").read().splitlines()[:4]]
    records = [
        {**r, "position": i, "timestamp": stamp + 60 * i, "busy_cores": [0.0, 1.4 * i]}
        for i, r in enumerate(measured[:3])
    ]
    _write(run_dir / "results.jsonl", records)
    said = RunRecords(tmp_path / "datasets", "znver3", run_dir).reused()
    assert said.startswith(f"note: 3 measurements recorded in {run_dir} from 2026-12-07 09:30 to 2026-12-07 09:32 ")
    assert "up to 2.8 cores busy" in said and "new --run-dir" in said
    _write(run_dir / "results.jsonl", records + [{**measured[3], "position": 9, "busy_cores": []}])
    said = RunRecords(tmp_path / "datasets", "znver3", run_dir).reused()
    assert "4 measurements" in said and "load then is not recorded" in said
