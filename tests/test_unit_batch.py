"""Writing a model's batch-1 convolutions as the ops IREE dispatches (`mltune.emit.unit_batch`) changes nothing it
computes: the small ResNet-50-style and MobileNet-V2-style exports (iree-turbine, random weights), folded and not,
built for this CPU and run on the same input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from iree.compiler import ir
from iree_helpers import run

from mltune.emit.unit_batch import fold, foldable, folded_forms, folded_problems
from mltune.frontend.mlir import find_ops
from mltune.system.tools import tool_path
from mltune.targets import parse_target

EXPORTED = Path(__file__).resolve().parents[1] / "examples" / "models" / "exported"


def _lowered(tmp_path: Path, model: str = "resnet50") -> Path:
    lowered = tmp_path / f"{model}.input.mlir"
    result = run([tool_path("iree-compile"), str(EXPORTED / f"{model}.mlir"), "--compile-to=input", "-o", str(lowered)])
    assert result.returncode == 0, result.stderr[-2000:]
    return lowered


def test_every_batch_1_convolution_is_read_as_the_op_iree_dispatches(tmp_path, context):
    """3x3, 7x7 and 1x1 ones alike: a windowed one as a batchless convolution, a 1x1 one as a multi-loop contraction."""
    with context:
        module = ir.Module.parse(_lowered(tmp_path).read_text())
        problems = [problem for _, forms in folded_problems(module) for _, problem in forms]
        kinds = sorted({problem.op_kind for problem in problems})
        assert kinds == ["contraction", "convolution", "multi_loop_contraction"]
        assert all(not problem.batch for problem in problems)


def test_every_batch_1_depthwise_convolution_is_read_as_the_op_iree_dispatches(tmp_path, context):
    """MobileNet-V2's depthwise 3x3s, strided and not, as batchless depthwise convolutions over `(oh, ow, c, kh, kw)`,
    as IREE dispatches them for a GPU."""
    with context:
        module = ir.Module.parse(_lowered(tmp_path, "mobilenet_v2").read_text())
        depthwise = [
            problem
            for _, forms in folded_problems(module)
            for _, problem in forms
            if problem.op_kind == "depthwise_convolution"
        ]
        assert len(depthwise) == 17 and {p.strides for p in depthwise} == {(1, 1), (2, 2)}
        assert all(p.layout == "nchw_chw" and not p.batch and p.m == (0, 1) and p.n == (2,) for p in depthwise)


@pytest.mark.e2e
@pytest.mark.parametrize(
    "model",
    [
        pytest.param("resnet50", marks=pytest.mark.slow),  # 5 s
        pytest.param("mobilenet_v2", marks=pytest.mark.slow),
    ],
)  # 18 s
def test_folding_changes_no_output(tmp_path, context, model):
    lowered = _lowered(tmp_path, model)
    with context:
        module = ir.Module.parse(lowered.read_text())
        ops = find_ops(module, foldable)
        assert len(ops) >= 5
        for op in ops:
            fold(op, folded_forms(op)[-1])  # a 1x1 one as a contraction, if unstrided
        folded = tmp_path / "folded.mlir"
        folded.write_text(str(module))
    outputs = []
    for source in (lowered, folded):
        vmfb, out = source.with_suffix(".vmfb"), source.with_suffix(".npy")
        result = run(
            [
                tool_path("iree-compile"),
                str(source),
                *parse_target("host", probe=False).compile_flags(),
                "-o",
                str(vmfb),
            ]
        )
        assert result.returncode == 0, result.stderr[-2000:]
        result = run(
            [
                tool_path("iree-run-module"),
                f"--module={vmfb}",
                "--function=main",
                f"--input=@{EXPORTED / f'{model}.input0.npy'}",
                f"--output=@{out}",
            ]
        )
        assert result.returncode == 0, result.stderr[-2000:]
        outputs.append(np.load(out))
    assert np.abs(outputs[0]).max() > 0 and np.array_equal(outputs[0], outputs[1])
