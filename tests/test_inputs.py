"""Function arguments: seeded random files that IREE's own tools and the timing worker both read."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from iree_helpers import HOST_FLAGS, matmul_source, run

from mltune.input_files import InputFile
from mltune.inputs import write_random_inputs
from mltune.mlir import new_context, parse_module_file
from mltune.tools import tool_path


@pytest.mark.parametrize("element", ["f32", "f16", "bf16"])
def test_random_inputs_run_in_iree_run_module(tmp_path, element):
    source = tmp_path / "mm.mlir"
    source.write_text(matmul_source(8, 16, 4, in_type=element))
    context = new_context()
    module = parse_module_file(source, context)
    with context:
        function = next(op for op in module.body.operations if op.operation.name == "func.func")
        files = write_random_inputs(function, tmp_path / "inputs", seed=3)
    assert [f.shape for f in files] == [(8, 16), (16, 4)]
    assert all(f.element_type == element for f in files)
    first = files[0].load()
    assert first.shape == (8, 16) and str(first.dtype) == {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}[element]
    assert np.all(np.abs(first.astype(np.float32)) <= 1.0) and np.std(first.astype(np.float32)) > 0.1
    # the same seed gives the same data
    with context:
        again = write_random_inputs(function, tmp_path / "again", seed=3)
    assert np.array_equal(again[0].load().astype(np.float32), first.astype(np.float32))
    # IREE's own tools read the flags mltune writes (bf16 goes through a raw .bin file)
    flags = (tmp_path / "inputs" / "flags.txt").read_text().splitlines()
    assert flags == [f.flag for f in files]
    vmfb = tmp_path / "mm.vmfb"
    assert run([tool_path("iree-compile"), str(source), *HOST_FLAGS, "-o", str(vmfb)]).returncode == 0
    runner = shutil.which("iree-run-module")
    assert runner is not None
    result = run([runner, f"--module={vmfb}", "--device=local-task", "--function=main",
                  f"--flagfile={tmp_path / 'inputs' / 'flags.txt'}"])
    assert result.returncode == 0, result.stderr[-2000:]
    assert "8x4xf32" in result.stdout


def test_bf16_file_round_trip(tmp_path):
    import ml_dtypes

    # synthetic values, exactly representable in bf16
    values = np.array([[1.0, -2.5], [0.125, 3.0]], dtype=ml_dtypes.bfloat16)
    path = tmp_path / "x.bin"
    values.tofile(path)
    loaded = InputFile(path, (2, 2), "bf16").load()
    assert loaded.dtype == ml_dtypes.bfloat16 and np.array_equal(loaded, values)
    assert InputFile(path, (2, 2), "bf16").flag == f"--input=2x2xbf16=@{path}"
