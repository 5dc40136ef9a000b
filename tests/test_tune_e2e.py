"""`mltune tune` end to end: the real compiler, runtime and CLI on tiny inputs with tiny budgets."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from iree_helpers import HOST_FLAGS, compile_with_configs_dump, interrupt_when, mltune, trial_record_files

from mltune.execution.build import NOT_APPLIED
from mltune.frontend.problem import Problem
from mltune.records.dataset import SCHEMA_VERSION, STATUSES
from mltune.spaces.cpu_contraction import cpu_contraction_space, tile_lists
from mltune.spaces.cpu_data_tiling import KNOBS as DATA_TILING_KNOBS
from mltune.spaces.cpu_data_tiling import data_tiled_rows

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # whole tuning runs: `pytest -m slow`

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


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def check_records(records: list[dict], dumped, run_dir: Path, arch_dir: Path, ranker: str, level: str) -> None:
    space = cpu_contraction_space(dumped.problem, dumped.cpu)
    assert [r["position"] for r in records] == list(range(len(records)))
    for record in records:
        assert DESIGN_FIELDS <= set(record), DESIGN_FIELDS - set(record)
        assert record["schema"] == SCHEMA_VERSION
        assert record["arch"] == arch_dir.name == dumped.cpu.arch
        assert record["device"] and record["compiler"]
        assert record["run_id"] == run_dir.name
        assert record["ranker"] in (ranker, f"{ranker}+near-default")  # picks near IREE's default, unless shuffle
        assert record["level"] == level
        assert Problem.from_record(record["problem"]) == dumped.problem
        knobs = record["knobs"]
        if knobs.get("lowering", 0):  # a model's one problem holds its data-tiled lowering too: compile flags
            assert level == "model" and record["pipeline"] == "Mmt4dTilingExpert"
            assert tuple(knobs.values()) in {tuple(row) for row in data_tiled_rows(dumped.problem, dumped.cpu)}
        else:
            assert record["pipeline"] == "DoubleTilingExpert"
            assert space.contains({n: v for n, v in knobs.items() if n not in DATA_TILING_KNOBS}), knobs
        assert record["status"] in STATUSES
        if record["status"] == "ok":
            assert len(record["time_us"]) >= 1 and len(record["time_us"]) == len(record["baseline_us"])
            assert all(t > 0 for t in record["time_us"] + record["baseline_us"])
        assert record["timestamp"] > 1.6e9
    assert len({json.dumps(r["knobs"], sort_keys=True) for r in records}) == len(records), "no candidate twice"


def tune_and_check(dumped, input_path: Path, tmp_path: Path, budget: int, ranker: str, level: str):
    run_dir, dataset_dir, output = tmp_path / "run", tmp_path / "datasets", tmp_path / "out" / "spec.mlir"
    result = mltune(
        [
            "tune",
            str(input_path),
            "--budget",
            str(budget),
            "--ranker",
            ranker,
            "--run-dir",
            str(run_dir),
            "--dataset-dir",
            str(dataset_dir),
            "-o",
            str(output),
            "--jobs",
            "2",
            "--model-dir",
            str(tmp_path / "models"),
        ],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert (run_dir / "results.jsonl").is_file()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["level"] == level
    (dispatch,) = summary["dispatches"]
    assert dispatch["problem"] == dumped.problem.key
    assert dispatch["benchmarked"] == budget and dispatch["stop_reason"] == "budget spent"
    assert dispatch["tried"] >= budget and dispatch["candidates"] > budget

    (dataset_file,) = trial_record_files(dataset_dir)
    assert dataset_file.name == f"{run_dir.name}.jsonl"
    records = read_jsonl(dataset_file)
    assert len(records) == dispatch["tried"], "one record per tried candidate"
    # a candidate that builds IREE's default binary (some hosts' defaults lie in the space) is recorded, never timed
    timed = [r for r in records if r["status"] not in ("compile_error", NOT_APPLIED)]
    assert len(timed) == budget, [r["status"] for r in records]
    check_records(records, dumped, run_dir, dataset_file.parent, ranker, level)
    # the run directory holds the same records
    run_records = read_jsonl(run_dir / "results.jsonl")
    strip = lambda r: {k: v for k, v in r.items() if k != "timestamp"}  # noqa: E731
    assert [strip(r) for r in run_records] == [strip(r) for r in records]
    return result, summary, output, records


def test_tune_a_model(tiny, tmp_path):
    source = tmp_path / "tiny.mlir"
    shutil.copy(tiny.source, source)
    result, summary, output, _ = tune_and_check(tiny, source, tmp_path, budget=3, ranker="shuffle", level="model")
    assert "model-level" in result.stdout
    assert tiny.problem.key in result.stdout
    (dispatch,) = summary["dispatches"]
    if summary["spec"] is None:  # nothing won, or the winner did not pay off in the whole-model check
        assert dispatch["winner"] is None or summary["config_check"]["dropped"] or summary["withdrawn"]
        assert "No tuning spec written" in result.stdout
        assert not output.exists(), "no empty spec file is left behind"
    else:
        assert Path(summary["spec"]) == output and output.is_file()
        assert (tmp_path / "run" / "best_spec.mlir").read_text() == output.read_text()
        configs = compile_with_configs_dump(source, tmp_path / "with_spec", output, HOST_FLAGS)
        assert configs["linalg.matmul"] == [tile_lists(tiny.problem, dispatch["winner"]["knobs"])]
        assert dispatch["winner"]["speedup"] >= 1.03


def test_tune_a_dispatch_benchmark(tiny, tmp_path):
    bench = tmp_path / tiny.bench.name
    shutil.copy(tiny.bench, bench)
    result, summary, output, records = tune_and_check(
        tiny, bench, tmp_path, budget=2, ranker="heuristic", level="dispatch"
    )
    assert "dispatch-level" in result.stdout
    if summary["spec"] is not None:
        stripped = tmp_path / "run" / "dispatch_stripped.mlir"
        configs = compile_with_configs_dump(stripped, tmp_path / "with_spec", output)
        assert configs["linalg.matmul"] == [tile_lists(tiny.problem, summary["dispatches"][0]["winner"]["knobs"])]


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if text in cmdline:
            found.append(int(pid))
    return found


def test_ctrl_c_keeps_every_record(tiny, tmp_path):
    source = tmp_path / "tiny.mlir"
    shutil.copy(tiny.source, source)
    run_dir, dataset_dir = tmp_path / "run", tmp_path / "datasets"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "tune",
            str(source),
            "--budget",
            "60",
            "--ranker",
            "shuffle",
            "--run-dir",
            str(run_dir),
            "--dataset-dir",
            str(dataset_dir),
            "-o",
            str(tmp_path / "spec.mlir"),
            "--jobs",
            "2",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # a shell starts background jobs with SIGINT ignored, and Python keeps it so: give the tuner Ctrl-C back
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )

    def first_record() -> Path | None:
        files = trial_record_files(dataset_dir)
        return files[0] if files and files[0].read_bytes().count(b"\n") >= 1 else None

    stdout, stderr_bytes = interrupt_when(proc, lambda: first_record() is not None, 180)
    dataset_file = first_record()
    stderr = stderr_bytes.decode()
    assert proc.returncode == 130, stderr[-2000:]
    assert "Traceback" not in stderr and b"Traceback" not in stdout

    lines = dataset_file.read_text().splitlines()
    assert len(lines) >= 1
    for line in lines:
        record = json.loads(line)  # every line is a whole record
        assert record["run_id"] == run_dir.name
    # each record goes to the dataset first, then to the run directory: an interrupt between the two
    # appends can leave the run directory one record short, never more
    run_records = read_jsonl(run_dir / "results.jsonl")
    assert len(lines) - 1 <= len(run_records) <= len(lines)
    for ours, theirs in zip(run_records, lines):
        assert ours["knobs"] == json.loads(theirs)["knobs"]
    time.sleep(0.5)  # killed process groups are reaped by their parents' exit
    leftovers = [p for p in _processes_mentioning(str(run_dir)) if p != proc.pid]
    assert not leftovers, "no compile or timing process outlives the interrupted run"
    # not a terminal: no progress bar, only the one message
    assert stderr.strip().splitlines() == [
        f"mltune: interrupted; every record measured so far is kept (continue with: mltune tune --resume {run_dir})"
    ], stderr
    assert json.loads((run_dir / "state.json").read_text())["status"] == "interrupted"


def test_two_dispatches_share_the_budget(tmp_path):
    """A model's budget is split over its top problems by time share; the result is checked end to end."""
    from iree_helpers import TWO_OP_SOURCE, assert_searched_together

    source = tmp_path / "two_ops.mlir"
    source.write_text(TWO_OP_SOURCE)
    run_dir, dataset_dir = tmp_path / "run", tmp_path / "datasets"
    result = mltune(
        [
            "tune",
            str(source),
            "--budget",
            "4",
            "--top",
            "2",
            "--ranker",
            "heuristic",
            "--screen",
            "none",
            "--run-dir",
            str(run_dir),
            "--dataset-dir",
            str(dataset_dir),
            "-o",
            str(tmp_path / "spec.mlir"),
            "--jobs",
            "2",
        ],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads((run_dir / "summary.json").read_text())
    problems = sorted(d["problem"] for d in summary["dispatches"])
    assert problems == ["contraction_100x1000x300_f32f32f32_nn", "contraction_12x128x128x64_f32f32f32_nn"]
    assert sorted(p["problem"] for p in summary["profile"]) == problems
    assert 0.5 < sum(p["share"] for p in summary["profile"]) <= 1.0 + 1e-3  # of all the model's dispatch time
    assert {p["timed_in"] for p in summary["profile"]} == {"model"}, "llvm-cpu: timed inside runs of the model"
    assert "Where the model spends its time (timed in runs of the model" in result.stdout
    budgets = {a["problem"]: a["budget"] for a in summary["allocations"]}
    assert sum(budgets.values()) == 4
    assert all(d["benchmarked"] == budgets[d["problem"]] for d in summary["dispatches"])
    records = read_jsonl(run_dir / "results.jsonl")
    assert sorted({Problem.from_record(r["problem"]).key for r in records}) == problems
    assert_searched_together(run_dir, summary, records)
    assert summary["flags"] is None
    if summary["spec"]:  # one linked spec, whatever number of dispatches won, checked for numerics and timed
        assert (tmp_path / "spec.mlir").read_text().count("iree_codegen.tuning_spec_entrypoint") == 1
        assert summary["numerics"]["ok"]
        assert summary["end_to_end"]["recommended"]["speedup"] > 0
        assert "--iree-codegen-tuning-spec-path=" in (run_dir / "compile_command.txt").read_text()


@pytest.mark.parametrize("ranker", ["tpe", "random-forest"])
def test_tune_with_a_learned_ranker(tiny, tmp_path, ranker):
    from learn_helpers import write_synthetic_dataset

    from mltune.learn.train import train

    # the forest is trained on synthetic records filed under this CPU's arch, and put where --model-dir says (MODEL_DIR/ARCH/KIND)
    train(
        write_synthetic_dataset(tmp_path / "training", arch=tiny.cpu.arch),
        tiny.cpu.arch,
        tmp_path / "models",
        force=True,
    )
    bench = tmp_path / tiny.bench.name
    shutil.copy(tiny.bench, bench)
    tune_and_check(tiny, bench, tmp_path, budget=2, ranker=ranker, level="dispatch")


def test_model_flags_and_starter_spec(dumps, context, tmp_path):
    """With --flag-search the tuned model and its data-tiled variant (its flag sets screened on the model) are timed
    against IREE's default build; the starter spec is merged and the command line compiles."""
    import shlex

    from iree_helpers import TWO_OP_SOURCE, applied_configs, run
    from test_model_merge import THEIRS_BMM
    from test_spec import spec_for

    source = tmp_path / "two_ops.mlir"
    source.write_text(TWO_OP_SOURCE)
    starter = tmp_path / "starter.mlir"
    starter.write_text(spec_for(dumps["batch_matmul"], THEIRS_BMM, context))
    run_dir = tmp_path / "run"
    result = mltune(
        [
            "tune",
            str(source),
            "--budget",
            "2",
            "--top",
            "1",
            "--run-dir",
            str(run_dir),
            "--dataset-dir",
            str(tmp_path / "datasets"),
            "-o",
            str(tmp_path / "spec.mlir"),
            "--starter-spec",
            str(starter),
            "--flag-search",
        ],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads((run_dir / "summary.json").read_text())
    flags = summary["flags"]
    assert "default flags, tuned" in flags["measured"] and len(flags["measured"]) <= 2
    # the starter's DoubleTilingExpert config does not compile on the data-tiled batch matmul: such flag sets fail
    variants = set(flags["screened"]) | set(flags["failed"])
    assert variants and all(name.startswith("data-tiling") for name in variants)
    assert set(flags["measured"]) - {"default flags, tuned"} <= set(flags["screened"])
    data_tiling = "--iree-opt-data-tiling" in flags["kept"]
    assert "Flag variant default flags, tuned" in result.stdout
    assert summary["spec"], "the starter spec is part of the result even when mltune adds nothing"
    assert summary["numerics"]["ok"]
    assert "starter spec" in summary["end_to_end"] and "recommended" in summary["end_to_end"]
    command = shlex.split((run_dir / "compile_command.txt").read_text())
    assert ("--iree-opt-data-tiling" in command) == data_tiling
    assert f"--iree-codegen-tuning-spec-path={tmp_path / 'spec.mlir'}" in command
    command[command.index("-o") + 1] = str(tmp_path / "recommended.vmfb")
    config_dir = tmp_path / "configs"
    compiled = run([*command, f"--iree-hal-dump-executable-configurations-to={config_dir}"], cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stderr[-2000:]
    if data_tiling:  # the matmuls became mmt4d: nothing for the starter's matcher to match
        assert "linalg.batch_matmul" not in applied_configs(config_dir)
    else:  # the batch matmul was not tuned (--top 1): the starter's config is on it
        assert applied_configs(config_dir)["linalg.batch_matmul"] == [
            tile_lists(dumps["batch_matmul"].problem, THEIRS_BMM)
        ]


def test_flag_search_tunes_the_data_tiled_variant_and_compares(tiny, tmp_path):
    """--flag-search on a model: the data-tiled variant's flag sets are screened (identical modules once), the best
    is timed with the tuned model against IREE's default build, and the command line carries the kept flags."""
    import shlex

    source = tmp_path / "tiny.mlir"
    shutil.copy(tiny.source, source)
    run_dir = tmp_path / "run"
    result = mltune(
        [
            "tune",
            str(source),
            "--budget",
            "2",
            "--run-dir",
            str(run_dir),
            "--dataset-dir",
            str(tmp_path / "datasets"),
            "-o",
            str(tmp_path / "spec.mlir"),
            "--flag-search",
        ],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    flags = json.loads((run_dir / "summary.json").read_text())["flags"]
    assert flags["screened"] and not flags["failed"]
    assert len(flags["measured"]) == 2 and "default flags, tuned" in flags["measured"]
    assert "Data-tiled variant:" in result.stdout
    command_file = run_dir / "compile_command.txt"
    if flags["kept"]:
        command = shlex.split(command_file.read_text())
        assert all(flag in command for flag in flags["kept"]) and "--iree-opt-data-tiling" in command


def test_a_killed_run_resumes_without_measuring_anything_twice(tiny, tmp_path):
    """kill -9 after a few records, then `--resume`: every candidate is recorded once, the budget is met, and
    the run directory says the run finished."""
    source = tmp_path / "tiny.mlir"
    shutil.copy(tiny.source, source)
    run_dir, dataset_dir = tmp_path / "run", tmp_path / "datasets"
    budget = 12
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "tune",
            str(source),
            "--budget",
            str(budget),
            "--ranker",
            "shuffle",
            "--batch",
            "4",
            "--run-dir",
            str(run_dir),
            "--dataset-dir",
            str(dataset_dir),
            "-o",
            str(tmp_path / "spec.mlir"),
        ],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:
            results = run_dir / "results.jsonl"
            if results.exists() and results.read_bytes().count(b"\n") >= 3:
                break
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    before = read_jsonl(run_dir / "results.jsonl")
    assert 3 <= len(before) < budget
    assert json.loads((run_dir / "state.json").read_text())["status"] == "running"  # as a kill leaves it

    resumed = mltune(["tune", "--resume", str(run_dir)], cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    after = read_jsonl(run_dir / "results.jsonl")
    (dataset_file,) = trial_record_files(dataset_dir)
    dataset = read_jsonl(dataset_file)
    for records in (after, dataset):
        knobs = [json.dumps(r["knobs"], sort_keys=True) for r in records]
        assert len(knobs) == len(set(knobs)), "a candidate was measured twice"
    assert [r["knobs"] for r in after[: len(before)]] == [r["knobs"] for r in before]  # kept, not re-measured
    assert sum(r["status"] == "ok" for r in after) == budget
    assert json.loads((run_dir / "state.json").read_text())["status"] == "finished"
