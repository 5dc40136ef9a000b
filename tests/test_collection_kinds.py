"""The CPU problem set of `benchmarks/collection/gpu_kinds.py`: each source gives one tunable dispatch of its kind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from iree_helpers import mltune

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "collection"))
from gpu_kinds import CPU_PROBLEMS  # noqa: E402

KIND = {
    "attention": "attention_",
    "layernorm": "reduction_",
    "softmax": "reduction_",
    "meanpool": "reduction_",
    "rmsnorm": "reduction_",
    "dw3x3": "depthwise_convolution_",
    "3x3": "convolution_",
    "7x7": "convolution_",
}
ONE_OF_EACH = ["bert_base_attention_s128", "resnet50_stem_7x7s2_nchw", "bert_base_layernorm_128x768"]


def expected_prefix(name: str) -> str:
    return next(prefix for word, prefix in KIND.items() if word in name)


def compiled_problems(name: str, tmp_path: Path) -> list[dict]:
    model = tmp_path / f"{name}.mlir"
    model.write_text(CPU_PROBLEMS[name][0])
    run_dir = tmp_path / "run"
    done = mltune(
        [
            "tune",
            str(model),
            "--compile-only",
            "--budget",
            "1",
            "--ranker",
            "shuffle",
            "--run-dir",
            str(run_dir),
            "-o",
            str(tmp_path / "spec.mlir"),
            "--dataset-dir",
            str(tmp_path / "ds"),
        ],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads((run_dir / "compile_only.json").read_text())


def check(name: str, tmp_path: Path) -> None:
    (dispatch,) = compiled_problems(name, tmp_path)
    assert dispatch["problem"].startswith(expected_prefix(name)), dispatch["problem"]
    assert dispatch["candidates"] >= 30 and dispatch["compiled"] == dispatch["tried"] == 1


@pytest.mark.e2e
@pytest.mark.parametrize("name", ONE_OF_EACH)
def test_one_problem_of_each_kind_is_a_tunable_dispatch_of_that_kind(name, tmp_path):
    check(name, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in CPU_PROBLEMS if n not in ONE_OF_EACH])
def test_every_cpu_problem_is_a_tunable_dispatch_of_its_kind(name, tmp_path):
    check(name, tmp_path)


def test_every_cpu_problem_names_its_kind():
    assert all(any(word in name for word in KIND) for name in CPU_PROBLEMS)


def test_dataset_summary_has_a_row_per_record_file():
    """On a committed dataset: one table row per record file, speeds read from its records."""
    folder = Path(__file__).resolve().parent.parent / "datasets" / "sm_90"
    script = folder.parent.parent / "benchmarks" / "collection" / "dataset_summary.py"
    done = subprocess.run([sys.executable, str(script), str(folder)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = done.stdout.splitlines()[2:]
    assert len(rows) == len(list(folder.glob("*.jsonl.xz")))
    attention = next(r for r in rows if r.startswith("| attention_20x4096x64_f16 "))
    cells = [c.strip() for c in attention.strip("|").split("|")]
    assert cells[1] == "attention" and float(cells[4].rstrip("x")) >= float(cells[5].rstrip("x")) > 0


def test_dataset_summary_refuses_a_missing_folder(tmp_path):
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "collection" / "dataset_summary.py"
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "nothing")], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1


def test_evaluation_positions_lists_every_problem_of_an_evaluation():
    """On a committed `mltune evaluate` output: one row per problem, the heuristic's position a 1-based place."""
    root = Path(__file__).resolve().parent.parent
    evaluation = root / "benchmarks" / "results" / "sm_90" / "attention" / "evaluation.json"
    done = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "ranking" / "evaluation_positions.py"), str(evaluation)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = done.stdout.splitlines()[2:]
    problems = json.loads(evaluation.read_text())["rankers"]["heuristic"]["problems"]
    assert [r.split("|")[1].strip() for r in rows] == [p["problem"] for p in problems]
    assert all(1 <= int(r.split("|")[5]) <= int(r.split("|")[2]) for r in rows)
