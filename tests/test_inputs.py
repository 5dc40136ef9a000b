"""Function arguments: seeded random files that IREE's own tools and the timing worker both read (synthetic data)."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import numpy as np
import pytest
from iree_helpers import HOST_FLAGS, matmul_source, run

from mltune.errors import UserError
from mltune.frontend.mlir import new_context, parse_module_file
from mltune.input.abi import AbiValue
from mltune.input.files import InputFile
from mltune.input.generated import generate_inputs
from mltune.input.int_range import DEFAULT_INT_RANGE, int_range
from mltune.input.call_inputs import CallInputs
from mltune.input.tuning_input import prepare_input, write_random_inputs
from mltune.system.tools import tool_path
from mltune.targets import CpuTarget


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
    assert (
        first.shape == (8, 16) and str(first.dtype) == {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}[element]
    )
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
    result = run(
        [
            runner,
            f"--module={vmfb}",
            "--device=local-task",
            "--function=main",
            f"--flagfile={tmp_path / 'inputs' / 'flags.txt'}",
        ]
    )
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


def test_generated_integers_are_small_and_non_negative(tmp_path):
    """Token ids, positions and masks must index their tables: integers come from --int-range, [0, 2) by default."""
    arguments = [AbiValue(f"tensor<64x32x{t}>", (64, 32), t) for t in ("i64", "i32", "i8", "i1")]
    for ints, allowed in ((DEFAULT_INT_RANGE, {0, 1}), (int_range("3:9"), set(range(3, 9)))):
        files = generate_inputs(arguments, tmp_path / str(ints).replace(":", "_"), seed=0, ints=ints)
        for argument, file in zip(arguments[:3], files):
            assert set(np.unique(file.load()).tolist()) == allowed, argument.text  # all of them, nothing else
        assert set(np.unique(files[3].load()).tolist()) == {False, True}  # a mask, whatever the range
    with pytest.raises(UserError, match=r"--int-range 0:300: argument 2 \(tensor<64x32xi8>\) holds only \[-128, 128\)"):
        generate_inputs(arguments, tmp_path / "wide", seed=0, ints=int_range("0:300"))
    with pytest.raises(argparse.ArgumentTypeError, match="LOW < HIGH"):
        int_range("2:2")


def test_an_exported_model_gets_generated_ids_in_range(tmp_path):
    """A torch-dialect BERT's token ids, generated from --int-range, seeded, and said to be generated."""
    model = Path(__file__).resolve().parent.parent / "examples" / "models" / "exported" / "bert.mlir"
    tuning_input = prepare_input(
        model, CpuTarget(), tmp_path, new_context(), seed=5, given=CallInputs(int_range=int_range("0:512"))
    )
    (ids,) = tuning_input.invocation.inputs
    values = ids.load()
    assert values.dtype == np.int64 and values.shape == (1, 32) and 0 <= values.min() and values.max() < 512
    assert len(np.unique(values)) > 16  # drawn over the whole range
    assert tuning_input.arguments == ("tensor<1x32xi64>: generated, integers uniform in [0, 512) (--int-range)",)
    assert (tmp_path / "inputs" / "flags.txt").read_text().splitlines() == ["--function=main", ids.flag]
