"""Dataset records: durable appends, self-describing fields, and torn lines skipped on load."""

from __future__ import annotations

import json

import pytest

from mltune.dataset import SCHEMA_VERSION, STATUSES, Record, RecordWriter, device_id, read_records

DESIGN_FIELDS = {"schema", "arch", "device", "compiler", "problem", "pipeline", "knobs", "status", "time_us",
                 "baseline_us", "ranker", "position", "run_id", "timestamp"}


def make_record(position: int, status: str = "ok") -> Record:
    # synthetic: a plausible record, not a measurement
    return Record(
        arch="znver4", device=device_id("local-task", 2),
        problem={"op_kind": "contraction", "bounds": [32, 48, 64]}, pipeline="DoubleTilingExpert",
        knobs={"wg_m": 16, "wg_n": 16, "vec_m": 4, "vec_n": 16, "vec_k": 8}, status=status,
        time_us=[10.0 + position, 10.5], baseline_us=[11.0, 11.2], ranker="shuffle", position=position,
        run_id="run-1", level="model",
    )


def test_record_has_the_design_fields():
    data = json.loads(make_record(0).to_json())
    assert DESIGN_FIELDS <= set(data)
    assert data["schema"] == SCHEMA_VERSION
    assert data["timestamp"] > 1.6e9, "an unset timestamp is filled in when the record is written"
    assert data["compiler"], "the compiler version is recorded"
    assert data["status"] in STATUSES
    assert "\n" not in make_record(0).to_json()


def test_device_id_is_stable_and_names_the_device():
    assert device_id("local-task", 2) == device_id("local-task", 2)
    assert device_id("local-task", 2) != device_id("local-task", 4)
    assert "local-task" in device_id("local-task", 2)
    # it names the machine that ran the code (its CPU model), not the CPU the code was compiled for
    with open("/proc/cpuinfo") as cpuinfo:
        model = next(line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name"))
    assert model in device_id("local-task", 2)


def test_writer_appends_durable_lines(tmp_path):
    path = tmp_path / "datasets" / "znver4" / "run-1.jsonl"
    writer = RecordWriter(path)
    try:
        for position in range(3):
            writer.append(make_record(position))
            # visible to another reader before the writer is closed
            lines = path.read_text().splitlines()
            assert len(lines) == position + 1
            assert json.loads(lines[-1])["position"] == position
    finally:
        writer.close()
    # a second writer on the same file appends; it does not truncate
    writer = RecordWriter(path)
    writer.append(make_record(3, status="compile_error"))
    writer.close()
    records = list(read_records(path))
    assert [r["position"] for r in records] == [0, 1, 2, 3]
    assert records[3]["status"] == "compile_error"


def test_read_records_skips_a_torn_last_line(tmp_path, capsys):
    path = tmp_path / "run.jsonl"
    full = [make_record(i).to_json() for i in range(3)]
    torn = full[2][: len(full[2]) // 2]  # a kill in the middle of a write
    path.write_text(full[0] + "\n" + full[1] + "\n" + torn)
    records = list(read_records(path))
    assert [r["position"] for r in records] == [0, 1]
    err = capsys.readouterr().err
    assert "warning" in err and f"{path}:3" in err


def test_read_records_of_a_folder_and_schema_filter(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "b" / "c").mkdir(parents=True)
    (tmp_path / "a" / "one.jsonl").write_text(make_record(0).to_json() + "\n\n")
    other_schema = json.loads(make_record(1).to_json())
    other_schema["schema"] = SCHEMA_VERSION + 1
    (tmp_path / "b" / "c" / "two.jsonl").write_text(make_record(2).to_json() + "\n" + json.dumps(other_schema) + "\n")
    (tmp_path / "notes.txt").write_text("not a record\n")
    records = list(read_records(tmp_path))
    assert sorted(r["position"] for r in records) == [0, 2]
    assert capsys.readouterr().err == "", "blank lines and other schemas are skipped silently"


def test_append_after_a_torn_line_keeps_the_new_record(tmp_path):
    path = tmp_path / "run.jsonl"
    first = make_record(0).to_json()
    path.write_text(first + "\n" + make_record(1).to_json()[:40])
    writer = RecordWriter(path)
    writer.append(make_record(2))
    writer.close()
    assert [r["position"] for r in read_records(path)] == [0, 2]


def test_compacted_records_read_as_before(tmp_path):
    """`mltune dataset compact` turns *.jsonl into *.jsonl.xz; every reader sees the same records."""
    from mltune.cli import main
    from mltune.dataset import read_records

    folder = tmp_path / "datasets" / "znver4"
    folder.mkdir(parents=True)
    (folder / "run.jsonl").write_text("".join(make_record(i).to_json() + "\n" for i in range(5)))
    before = list(read_records(folder))
    assert main(["dataset", "compact", "--arch", "znver4", "--dataset-dir", str(tmp_path / "datasets")]) == 0
    assert [p.name for p in folder.iterdir()] == ["run.jsonl.xz"]
    assert list(read_records(folder)) == before
