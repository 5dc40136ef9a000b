"""Dataset records: durable appends, self-describing fields, and torn lines skipped on load."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mltune.records.dataset import SCHEMA_VERSION, STATUSES, Record, RecordWriter, device_id, pooled_ratio, read_records

DESIGN_FIELDS = {
    "schema",
    "arch",
    "device",
    "compiler",
    "problem",
    "pipeline",
    "knobs",
    "status",
    "time_us",
    "baseline_us",
    "ranker",
    "position",
    "run_id",
    "timestamp",
}


PROBLEM = {
    "op_kind": "contraction",
    "op_name": "linalg.matmul",
    "bounds": [32, 48, 64],
    "batch": [],
    "m": [0],
    "n": [1],
    "k": [2],
    "lhs_type": "f32",
    "rhs_type": "f32",
    "out_type": "f32",
    "indexing_maps": [],
    "layout": "nn",
}


def make_record(position: int, status: str = "ok") -> Record:
    # synthetic: a plausible record, not a measurement
    return Record(
        arch="znver4",
        device=device_id("local-task", 2),
        problem=PROBLEM,
        pipeline="DoubleTilingExpert",
        knobs={"wg_m": 16, "wg_n": 16, "vec_m": 4, "vec_n": 16, "vec_k": 8},
        status=status,
        time_us=[10.0 + position, 10.5],
        baseline_us=[11.0, 11.2],
        ranker="shuffle",
        position=position,
        run_id="run-1",
        level="model",
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


def test_a_writer_that_records_nothing_leaves_no_file(tmp_path):
    writer = RecordWriter(tmp_path / "znver4" / "run-1.finals.jsonl")
    writer.close()
    assert not (tmp_path / "znver4").exists()


def test_a_candidate_measured_twice_is_labelled_by_all_its_rounds():
    # synthetic: a 3-round screening and a 9-round re-measure of one candidate
    screened = {"status": "ok", "time_us": [50.0, 52.0, 90.0], "baseline_us": [100.0] * 3}
    re_measured = {"status": "ok", "time_us": [98.0] * 5 + [102.0] * 4, "baseline_us": [100.0] * 9}
    failed = {"status": "run_error", "time_us": [], "baseline_us": []}
    assert pooled_ratio([screened]) == 0.52
    assert pooled_ratio([screened, re_measured, failed]) == 0.98  # the 12 rounds' median
    assert pooled_ratio([failed]) == float("inf")


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
    from mltune.cli.command import main
    from mltune.records.dataset import read_records

    folder = tmp_path / "datasets" / "znver4"
    folder.mkdir(parents=True)
    (folder / "run.jsonl").write_text("".join(make_record(i).to_json() + "\n" for i in range(5)))
    before = list(read_records(folder))
    assert main(["dataset", "compact", "--arch", "znver4", "--dataset-dir", str(tmp_path / "datasets")]) == 0
    assert [p.name for p in folder.iterdir()] == ["run.jsonl.xz"]
    assert list(read_records(folder)) == before


# name: how a good record (synthetic) is spoiled
SPOILED = {
    "string_time": lambda r: {**r, "time_us": "12.5"},
    "knobs_not_an_object": lambda r: {**r, "knobs": [16, 16]},
    "knob_not_an_integer": lambda r: {**r, "knobs": {**r["knobs"], "wg_m": "16"}},
    "bounds_not_a_list": lambda r: {**r, "problem": {**r["problem"], "bounds": 32}},
    "loop_past_bounds": lambda r: {**r, "problem": {**r["problem"], "m": [7]}},
    "unknown_problem_field": lambda r: {**r, "problem": {**r["problem"], "evil": 1}},
    "unknown_status": lambda r: {**r, "status": "fast"},
    "no_knobs": lambda r: {k: v for k, v in r.items() if k != "knobs"},
    "target_not_facts": lambda r: {**r, "target": {"kind": "tpu"}},
    "not_an_object": lambda r: [r],
}


def _good_record(position: int) -> dict:
    return json.loads(make_record(position).to_json())


def test_malformed_records_are_skipped_with_one_counted_warning_per_file(tmp_path, capsys):
    """Synthetic records: each file holds two good records around every kind of spoiled one."""
    folder = tmp_path / "datasets" / "znver4"
    folder.mkdir(parents=True)
    good = [_good_record(0), _good_record(1)]
    spoiled = [json.dumps(spoil(_good_record(9))) for spoil in SPOILED.values()]
    (folder / "a.jsonl").write_text("\n".join([json.dumps(good[0]), *spoiled, json.dumps(good[1])]) + "\n")
    (folder / "b.jsonl").write_bytes(b"\x00\xff\xfe binary \x81\n" + json.dumps(good[0]).encode() + b"\n")
    (folder / "c.jsonl").mkdir()  # a folder with a record file's name
    records = list(read_records(folder.parent))
    assert [r["position"] for r in records] == [0, 1, 0]
    warnings = capsys.readouterr().err.splitlines()
    assert len(warnings) == 3, warnings
    assert f"skipped {len(SPOILED)} unusable records of {folder / 'a.jsonl'}" in warnings[0]
    assert f"{folder / 'a.jsonl'}:2: time_us is not a list of numbers" in warnings[0]
    assert "skipped 1 unusable record of" in warnings[1] and "b.jsonl:1" in warnings[1]
    assert "c.jsonl: skipped, cannot be read" in warnings[2]


def test_a_config_refused_for_wrong_results_is_read_as_refused_everywhere(tmp_path):
    """Synthetic: a config measured fast in one run and refused for its results in another."""
    fast = _good_record(0)
    refused = {**_good_record(1), "status": "wrong_result", "time_us": [], "baseline_us": []}
    other = {**_good_record(2), "knobs": {**fast["knobs"], "wg_m": 32}}
    (tmp_path / "run1.jsonl").write_text(json.dumps(fast) + "\n" + json.dumps(other) + "\n")
    (tmp_path / "run2.jsonl").write_text(json.dumps(refused) + "\n")
    statuses = {r["position"]: r["status"] for r in read_records(tmp_path)}
    assert statuses == {0: "wrong_result", 1: "wrong_result", 2: "ok"}
    assert "wrong_result" in STATUSES


def test_compact_leaves_files_that_are_not_record_files(tmp_path, capsys):
    """Hidden, garbage, half-record and folder `*.jsonl` are left as they were, one warning line each; the record
    file beside them is compressed (synthetic records)."""
    from mltune.cli.command import main

    folder = tmp_path / "datasets" / "znver4"
    (folder / "dir.jsonl").mkdir(parents=True)
    good = "".join(make_record(i).to_json() + "\n" for i in range(3))
    others = {
        ".foo.jsonl": good,
        "notes.jsonl": "hello\n",
        "config.jsonl": '{"model": 1}\n',
        "torn.jsonl": good + good[:40],
        "empty.jsonl": "",
        "binary.jsonl": b"\xff\xfe\x00",
    }
    for name, content in others.items():
        (folder / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    (folder / "run.jsonl").write_text(good)
    assert main(["dataset", "compact", "--arch", "znver4", "--dataset-dir", str(tmp_path / "datasets")]) == 0
    assert sorted(p.name for p in folder.iterdir()) == sorted([*others, "dir.jsonl", "run.jsonl.xz"])
    warnings = capsys.readouterr().err.splitlines()
    assert len(warnings) == len(others) + 1 and all(w.startswith("warning: left as it is") for w in warnings)
    assert any(".foo.jsonl: a hidden file" in w for w in warnings)


WRITER = """
import sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from test_dataset import make_record
from mltune.records.dataset import RecordWriter
writer = RecordWriter(Path({path!r}))
for index in range({count}):
    writer.append(make_record(index))
    if index == 0:
        print("first", flush=True)
writer.close()
"""


def test_compact_beside_a_live_run_loses_no_record(tmp_path):
    """A process appending records (synthetic) while `compact` runs again and again: the file it holds is left to
    it, and once it has ended every record is in the dataset exactly once, whatever compact did meanwhile."""
    from mltune.records.dataset import compact, read_records

    folder = tmp_path / "datasets" / "znver4"
    path = folder / "live.jsonl"
    count = 400
    code = WRITER.format(tests=str(Path(__file__).parent), path=str(path), count=count)
    writer = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert writer.stdout.readline().strip() == "first"
    held_back = 0
    while writer.poll() is None:
        _, left = compact(folder)
        held_back += any("a live run is appending" in line for line in left)
    assert writer.wait() == 0 and held_back > 0
    compact(folder)
    assert not path.exists() and (folder / "live.jsonl.xz").exists()
    records = read_records(folder / "live.jsonl.xz")
    assert sorted(r["position"] for r in records) == list(range(count))


def test_a_file_compacted_before_its_run_resumed_keeps_both_parts(tmp_path):
    """A run's records compacted, then the run resumed (its `.jsonl` again): compacting again keeps both parts."""
    from mltune.records.dataset import RecordWriter, compact, read_records

    folder = tmp_path / "datasets" / "znver4"
    for part in (range(3), range(3, 5)):
        writer = RecordWriter(folder / "run.jsonl")
        for index in part:
            writer.append(make_record(index))
        writer.close()
        compact(folder)
    assert sorted(r["position"] for r in read_records(folder / "run.jsonl.xz")) == [0, 1, 2, 3, 4]
