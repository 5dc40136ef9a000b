"""The entry point's signature, read from the module IREE compiled, for each frontend: iree-turbine's and
iree-import-onnx's torch dialect (no reflection: IREE's ABI lowering), StableHLO and TOSA (IREE's reflection)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from iree_helpers import CPU_FLAGS, compile_cpu

from mltune.errors import UserError
from mltune.frontend.mlir import new_context
from mltune.input.abi import DECLARATION, AbiValue, exported_functions, parse_declaration, read_function_abi
from mltune.input.files import InputFile
from mltune.input.generated import generate_inputs
from mltune.input.tuning_input import Invocation, check_generatable
from mltune.whole_model.numerics import run_outputs

EXPORTED = Path(__file__).resolve().parent.parent / "examples" / "models" / "exported"

# JAX names its module after the jitted function: the VM module is `jit_forward`, not `module`
STABLEHLO = """module @jit_forward {
  func.func public @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> (tensor<4x16xf32> {jax.result_info = ""}) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %1 = stablehlo.tanh %0 : tensor<4x16xf32>
    return %1 : tensor<4x16xf32>
  }
}
"""

TOSA = """func.func @main(%a: tensor<1x4x8xf32>, %b: tensor<1x8x16xf32>) -> tensor<1x4x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  return %0 : tensor<1x4x16xf32>
}
"""

DYNAMIC_AND_SCALAR = """func.func @dynamic(%a: tensor<?x128xi64>) -> tensor<?x128xi64> {
  return %a : tensor<?x128xi64>
}
func.func @scalar(%a: tensor<4xf32>, %n: i32) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
"""


def exported(name: str) -> Path:
    path = EXPORTED / name
    assert path.is_file(), f"{path}: the tiny exported models live in examples/models/exported/"
    return path


def signature(source: Path, tmp_path: Path, function: str | None = None):
    vmfb = compile_cpu(source, tmp_path / f"{source.stem}.vmfb")
    return vmfb, read_function_abi(vmfb, source, CPU_FLAGS, tmp_path, new_context(), function)


@pytest.mark.parametrize(
    "name, function", [("bert.mlir", "main"), pytest.param("bert_onnx.mlir", "main_graph", marks=pytest.mark.slow)]
)
def test_torch_dialect_signature_from_iree_abi_lowering(tmp_path, name, function):
    """iree-turbine and iree-import-onnx export `!torch.vtensor<[1,32],si64>` arguments; IREE imports them as
    signless tensors and its torch input conversion leaves no reflection in the module."""
    source = exported(name)
    vmfb, abi = signature(source, tmp_path)
    module_name, functions = exported_functions(vmfb)
    assert list(functions) == [function] and DECLARATION not in functions[function]  # `$async` twin left out
    assert (abi.module_name, abi.name) == (module_name, function)
    assert abi.arguments == (AbiValue("tensor<1x32xi64>", (1, 32), "i64"),)
    assert abi.results == (AbiValue("tensor<1x32x64xf32>", (1, 32, 64), "f32"),)
    assert (tmp_path / "abi.mlir").stat().st_size < source.stat().st_size / 4, "the weights are elided"


@pytest.mark.parametrize("text, module_name", [(STABLEHLO, "jit_forward"), (TOSA, "module")])
def test_reflected_signature_and_a_run_on_generated_inputs(tmp_path, text, module_name):
    """StableHLO and TOSA carry IREE's `iree.abi.declaration`; the numerics child finds the function in a module of
    any name."""
    source = tmp_path / "model.mlir"
    source.write_text(text)
    vmfb, abi = signature(source, tmp_path)
    assert DECLARATION in exported_functions(vmfb)[1]["main"]
    assert abi.module_name == module_name and not (tmp_path / "abi.mlir").exists()
    assert [a.element_type for a in abi.arguments] == ["f32", "f32"] and abi.results[0].shape[-2:] == (4, 16)
    inputs = generate_inputs(abi.arguments, tmp_path / "inputs", seed=1)
    (output,) = run_outputs(vmfb, Invocation("main", inputs, False), "local-task", tmp_path / "out")
    x, w = (f.load().reshape(-1, f.shape[-1]) for f in inputs)
    expected = np.tanh(x @ w) if "stablehlo" in text else x @ w
    assert np.allclose(output.reshape(expected.shape), expected, rtol=1e-5, atol=1e-5)


def test_dynamic_dimension_and_scalar_are_refused_in_one_line(tmp_path):
    source = tmp_path / "model.mlir"
    source.write_text(DYNAMIC_AND_SCALAR)
    _, dynamic = signature(source, tmp_path, "dynamic")
    assert dynamic.arguments[0].shape == (None, 128)
    with pytest.raises(
        UserError,
        match=r"argument 0 of @dynamic has a dynamic dimension \(tensor<\?x128xi64>\): "
        r"export with static shapes, or give --input with a concrete shape",
    ):
        check_generatable(dynamic)
    _, scalar = signature(source, tmp_path, "scalar")
    with pytest.raises(UserError, match="argument 1 of @scalar is i32, not a tensor"):
        check_generatable(scalar)
    with pytest.raises(UserError, match=r"several public functions \(dynamic, scalar\); choose one with --function"):
        signature(source, tmp_path)


def test_declaration_text_with_attributes_and_no_results():
    """IREE's declaration text as the runtime reflects it, parsed into types (synthetic declarations)."""
    context = new_context()
    arguments, results = parse_declaration(
        'sync func @f(%input0: tensor<2x?xbf16> {iree.abi.name = "ids"}, %input1: i64) -> ()', context
    )
    assert arguments == (AbiValue("tensor<2x?xbf16>", (2, None), "bf16"), AbiValue("i64"))
    assert results == ()
    _, results = parse_declaration(
        "sync func @g(%input0: tensor<f32>) -> (%output0: tensor<f32>, %output1: i1)", context
    )
    assert results == (AbiValue("tensor<f32>", (), "f32"), AbiValue("i1"))


def test_jax_export_reflects_its_signature_and_runs_under_its_module_name(tmp_path):
    """JAX's StableHLO names its module `jit_block`: the numerics child calls @main there, on the export's input."""
    source = exported("jax_block.mlir")
    vmfb, abi = signature(source, tmp_path)
    assert DECLARATION in exported_functions(vmfb)[1]["main"] and not (tmp_path / "abi.mlir").exists()
    assert abi.module_name == "jit_block"
    assert abi.arguments == abi.results == (AbiValue("tensor<1x32x64xf32>", (1, 32, 64), "f32"),)
    given = InputFile(EXPORTED / "jax_block.input0.npy", (1, 32, 64), "f32")
    (output,) = run_outputs(vmfb, Invocation("main", (given,), False), "local-task", tmp_path / "out")
    assert output.shape == (1, 32, 64) and np.isfinite(output).all() and output.std() > 0


def test_an_argument_the_model_never_reads_has_no_type_to_generate(tmp_path):
    """IREE's torch conversion imports no tensor from an unused argument, so nothing says what it holds."""
    source = tmp_path / "model.mlir"
    source.write_text("""func.func @main(%x: !torch.vtensor<[4],f32>, %unused: !torch.vtensor<[4],si64>)
    -> !torch.vtensor<[4],f32> {
  %0 = torch.aten.tanh %x : !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}
""")
    _, abi = signature(source, tmp_path)
    assert [a.text for a in abi.arguments] == ["tensor<4xf32>", "!hal.buffer_view"]
    with pytest.raises(UserError, match="argument 1 of @main is never read by the model"):
        check_generatable(abi)
