"""`benchmarks/whole_models/model_tunable_share.py` on a GPU target without a GPU: the dump, each dispatch's kind,
FLOPs and bytes, and the dumped folder read back for timing elsewhere."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from whole_models import model_tunable_share  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "matmul_f32.mlir"  # 100 x 300 @ 300 x 1000, f32
M, K, N = 100, 300, 1000


@pytest.fixture(scope="module")
def dumped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("share")
    model_tunable_share.dump(EXAMPLE, "gfx942", work)
    return work


def test_a_matmul_counts_its_multiply_adds_and_its_three_operands(dumped: Path) -> None:
    model, target, dispatches = model_tunable_share.load(dumped)
    assert (Path(model).name, target) == (EXAMPLE.name, "gfx942")
    (matmul,) = dispatches
    assert matmul.kind == "contraction" and matmul.problem is not None and matmul.calls == 1
    assert matmul.cost.flops == 2 * M * N * K, "the fill around it adds no operation"
    assert matmul.cost.bytes == 4 * (M * K + K * N + M * N), "read once, written once"
    assert matmul.bench.is_file()


def test_without_a_device_the_report_is_compile_only(
    dumped: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["model_tunable_share.py", "--dumped", str(dumped)])
    assert model_tunable_share.main() == 0
    out = capsys.readouterr().out
    assert "compile-only (not timed)" in out and "share of the model's time" not in out
    assert "tunable by FLOPs: 100.0 %" in out and "tunable by bytes: 100.0 %" in out


def test_reclassify_reads_the_dumped_root_ops_again(dumped: Path, tmp_path: Path) -> None:
    """A dump whose recorded kind is stale (here written over by the test: synthetic) gets this checkout's kind back."""
    work = tmp_path / "work"
    shutil.copytree(dumped, work, ignore=shutil.ignore_patterns("spaces"))
    data = json.loads((work / model_tunable_share.DUMPED).read_text())
    data["dispatches"][0].update(kind="not tunable: stale", problem=None)
    (work / model_tunable_share.DUMPED).write_text(json.dumps(data))
    _, _, dispatches = model_tunable_share.load(work)
    (matmul,) = model_tunable_share.reclassify(dispatches, work)
    assert matmul.kind == "contraction" and matmul.problem is not None and matmul.cost == dispatches[0].cost
