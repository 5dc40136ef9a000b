"""`--input` in the syntax of IREE's tools: mltune's files hold exactly what `iree-run-module` reads from the same
flags (synthetic values), and a value the function cannot take is refused."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from iree_helpers import CPU_FLAGS, compile_cpu, run

from mltune.errors import UserError
from mltune.frontend.mlir import new_context
from mltune.input.abi import read_function_abi
from mltune.input.tuning_input import write_tool_flags
from mltune.input.specs import materialize_inputs, parse_input

# returns its arguments, so that iree-run-module prints what it read
ECHO = """func.func @main(%a: tensor<2x3xf32>, %b: tensor<4xi64>, %c: tensor<2x2xi32>, %d: tensor<3xf16>, %e: tensor<2xi1>)
    -> (tensor<2x3xf32>, tensor<4xi64>, tensor<2x2xi32>, tensor<3xf16>, tensor<2xi1>) {
  return %a, %b, %c, %d, %e : tensor<2x3xf32>, tensor<4xi64>, tensor<2x2xi32>, tensor<3xf16>, tensor<2xi1>
}
"""

FORMS = {
    "npy files, the next array of the same file, raw bytes, continued, and a splat": [
        "@a.npy",
        "+a.npy",
        "2x2xi32=@raw.bin",
        "3xf16=1.5",
        "2xi1=+raw.bin",
    ],
    "inline values with commas, spaces and brackets; zeros": [
        "2x3xf32=1,2,3,4,5,6",
        "4xi64=[7 8][9 10]",
        "2x2xi32=[[1 2][3 4]]",
        "3xf16",
        "2xi1=00,01",
    ],
    "every array left in a file": ["@a.npy", "*b.npy"],
}


@pytest.fixture(scope="module")
def echo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("echo")
    source = folder / "echo.mlir"
    source.write_text(ECHO)
    vmfb = compile_cpu(source, folder / "echo.vmfb")
    return vmfb, read_function_abi(vmfb, source, CPU_FLAGS, folder, new_context(), None)


def write_data(folder) -> None:
    """Synthetic data files: two arrays in a.npy, four in b.npy, 18 raw bytes."""
    with open(folder / "a.npy", "wb") as handle:
        np.save(handle, np.arange(6, dtype=np.float32).reshape(2, 3))
        np.save(handle, np.array([1, -2, 3, 2**40], dtype=np.int64))
    with open(folder / "b.npy", "wb") as handle:
        for array in (
            np.array([4, 3, 2, 1]),
            np.array([[5, 6], [7, 8]], np.int32),
            np.array([0.5, -1, 2], np.float16),
            np.array([True, False]),
        ):
            np.save(handle, array)
    (folder / "raw.bin").write_bytes(np.array([10, 20, 30, 40], dtype=np.int32).tobytes() + bytes([1, 0]))


def iree_outputs(vmfb, folder, flags) -> list[tuple[tuple[int, ...], bytes]]:
    """The shape and bytes of each value iree-run-module read, as the function returned it."""
    outputs = [folder / f"out{i}.npy" for i in range(5)]
    result = run(
        [
            shutil.which("iree-run-module"),
            f"--module={vmfb}",
            "--device=local-task",
            "--function=main",
            *flags,
            *(f"--output=@{o}" for o in outputs),
        ],
        cwd=folder,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return [(np.load(o).shape, np.load(o).tobytes()) for o in outputs]


@pytest.mark.parametrize("form", list(FORMS))
def test_mltune_reads_what_iree_reads(echo, tmp_path, monkeypatch, form):
    vmfb, abi = echo
    write_data(tmp_path)
    monkeypatch.chdir(tmp_path)  # relative paths resolve against the current directory, as in IREE's tools
    texts = FORMS[form]
    files, origins = materialize_inputs([parse_input(t) for t in texts], abi, tmp_path / "inputs")
    assert [f.shape for f in files] == [a.shape for a in abi.arguments]
    assert all(o.startswith(f"{a.text}: --input=") for o, a in zip(origins, abi.arguments))
    write_tool_flags(tmp_path / "inputs", files)
    given = iree_outputs(vmfb, tmp_path, [f"--input={t}" for t in texts])
    assert iree_outputs(vmfb, tmp_path, [f"--flagfile={tmp_path / 'inputs' / 'flags.txt'}"]) == given
    assert [shape for shape, _ in given] == [a.shape for a in abi.arguments]


def test_signed_and_unsigned_integers_and_bytes_for_i1_are_taken(echo, tmp_path):
    """As IREE's runtime does: any integer of the right width for a signless integer, bytes for i1."""
    vmfb, abi = echo
    arrays = {
        "a": np.zeros((2, 3), np.float32),
        "b": np.array([1, 2, 3, 4], np.uint64),
        "c": np.ones((2, 2), np.uint32),
        "d": np.zeros(3, np.float16),
        "e": np.array([1, 0], np.uint8),
    }
    for name, array in arrays.items():
        np.save(tmp_path / f"{name}.npy", array)
    files, _ = materialize_inputs([parse_input(f"@{tmp_path / n}.npy") for n in arrays], abi, tmp_path / "inputs")
    assert [f.load().dtype.name for f in files] == ["float32", "int64", "int32", "float16", "bool"]
    assert files[1].load().tolist() == [1, 2, 3, 4]


@pytest.mark.parametrize(
    "texts, message",
    [
        (["2x3xf32=1"] * 4, "4 given for the 5 arguments of @main"),
        (["2x3xf32=1", "4xi64=1", "2x2xi32=1", "3xf32=1", "2xi1=01"], "argument 3 of @main, tensor<3xf16>"),
        (["2x3xf32=1", "4xi64=1", "2x2xi32=1", "1x3xf16=1", "2xi1=01"], "its shape does not match"),
        (["2x3xf32=1", "4xi64=1", "2x2xi32=1", "3xf16=1", "2xi1=01", "2xi1=01"], "6 given for the 5"),
        (["2x3xf32=1", "4xi64=1", "2x2xi32=1", "3xf16=1", "2xi1=@raw.bin"], "raw.bin holds 16 bytes after"),
        (["2x3xf32=1 2 3 4 5 x", "4xi64=1", "2x2xi32=1", "3xf16=1", "2xi1=01"], "not a f32 value"),
        (["2x3xf32=1 2 3", "4xi64=1", "2x2xi32=1", "3xf16=1", "2xi1=01"], "3 values for 6 elements"),
        (["2x3xf32=1", "4xi64=1", "2x2xi32=1", "3xf16=1", "2xi1=1"], "i1 values as bytes in hex"),
    ],
)
def test_a_value_the_function_cannot_take_is_refused(echo, tmp_path, monkeypatch, texts, message):
    _, abi = echo
    write_data(tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError, match=message.replace("(", r"\(")):
        materialize_inputs([parse_input(t) for t in texts], abi, tmp_path / "inputs")


def test_syntax_errors_name_the_value():
    for text, message in [
        ("@x.npy", "cannot read x.npy: not found"),
        ("&2xf32", "output storage"),
        ("2xq8=1", "SHAPExTYPE"),
        ("7", "a scalar"),
        ("", "no value"),
    ]:
        with pytest.raises(UserError, match=message):
            parse_input(text)


def test_a_concrete_value_for_a_dynamic_dimension(tmp_path):
    """A torch-dialect function with a dynamic batch takes a value of any batch (synthetic values)."""
    source = tmp_path / "dynamic.mlir"
    source.write_text("""func.func @main(%x: !torch.vtensor<[?,16],f32>) -> !torch.vtensor<[?,16],f32> {
  %0 = torch.aten.tanh %x : !torch.vtensor<[?,16],f32> -> !torch.vtensor<[?,16],f32>
  return %0 : !torch.vtensor<[?,16],f32>
}
""")
    vmfb = compile_cpu(source, tmp_path / "dynamic.vmfb")
    abi = read_function_abi(vmfb, source, CPU_FLAGS, tmp_path, new_context(), None)
    assert abi.arguments[0].shape == (None, 16)
    (given,), _ = materialize_inputs([parse_input("3x16xf32=0.5")], abi, tmp_path / "inputs")
    assert given.shape == (3, 16)
    with pytest.raises(UserError, match="its shape does not match"):
        materialize_inputs([parse_input("3x8xf32=0.5")], abi, tmp_path / "inputs")
