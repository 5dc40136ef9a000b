"""Models as frontends export them, tuned for CUDA: mltune annotates the source's ops there (IREE 3.13 ignores specs
on CUDA), so a torch, ONNX or JAX export is lowered once to IREE's input form (`mltune.whole_model.input_form`), compile
only (no GPU here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from iree_helpers import mltune

from mltune.frontend.one_op_model import ContractionShape, contraction_model
from mltune.whole_model.input_form import has_frontend_ops

EXPORTED = Path(__file__).resolve().parents[1] / "examples" / "models" / "exported"


def test_frontend_ops_are_told_from_linalg(tmp_path):
    """A torch export (iree-turbine), an ONNX import and a JAX export hold a frontend's ops; a linalg model does not,
    whatever its constants are named."""
    for name in ("bert", "bert_onnx", "jax_block"):
        assert has_frontend_ops(EXPORTED / f"{name}.mlir"), name
    linalg = tmp_path / "mm.mlir"
    linalg.write_text(contraction_model(ContractionShape(64, 64, 64)) + "// torch.float32\n")
    assert not has_frontend_ops(linalg)


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("name", ["bert", "jax_block"])
def test_an_export_compiles_its_candidates_for_cuda(tmp_path, name):
    """Before, every candidate of such a model failed ("no op to annotate"): its source held no linalg op."""
    result = mltune(
        [
            "tune",
            str(EXPORTED / f"{name}.mlir"),
            "--target",
            "sm_90",
            "--compile-only",
            "--budget",
            "1",
            "--run-dir",
            "run",
        ],
        cwd=tmp_path,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    checks = json.loads((tmp_path / "run" / "compile_only.json").read_text())
    assert checks and all(c["compiled"] == c["tried"] == 1 for c in checks), checks
    (lowered,) = (tmp_path / "run").glob("*.input.mlir")
    assert not has_frontend_ops(lowered) and "linalg." in lowered.read_text()


@pytest.mark.slow
@pytest.mark.e2e
def test_a_resnet_export_tunes_its_batch_1_convolutions_in_the_model_for_cuda(tmp_path):
    """The small ResNet-50-style export (torch ops, batch 1, f32): lowered to its input form, its 3x3, 7x7 and 1x1
    convolutions folded as IREE folds them (`mltune.emit.unit_batch`), every candidate tried compiles."""
    result = mltune(
        [
            "tune",
            str(EXPORTED / "resnet50.mlir"),
            "--target",
            "sm_90",
            "--compile-only",
            "--budget",
            "1",
            "--run-dir",
            "run",
        ],
        cwd=tmp_path,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    checks = json.loads((tmp_path / "run" / "compile_only.json").read_text())
    assert all(c["compiled"] == c["tried"] == 1 for c in checks), checks
    kinds = {c["problem"].split("_")[0] for c in checks}
    assert {"convolution", "multi"} <= kinds and sum(c["problem"].startswith("convolution") for c in checks) >= 3
