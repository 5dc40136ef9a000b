"""A model's entry point as IREE compiled it: the exported functions of the `.vmfb`, and the types of one's
arguments and results.

Every frontend (iree-turbine, `iree-import-onnx`, JAX's StableHLO, TOSA, plain linalg) ends up as the same
VM module, so the signature is read there rather than from the source, whatever its dialect and size. A
function of builtin tensors carries IREE's own `iree.abi.declaration` reflection (`sync func @main(%input0:
tensor<1x128xi64>) -> (%output0: ...)`). A torch-dialect function carries none: IREE's torch input
conversion writes the `hal.buffer_view` ABI itself. For it, the model is lowered to IREE's `abi` phase
(input conversion only, no code generation; weights elided from the printed IR), where each argument is
imported as a builtin tensor (`hal.tensor.import ... -> tensor<1x128xi64>`) and each result exported.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from iree.compiler import ir

from mltune.errors import UserError
from mltune.frontend.mlir import ELIDE_WEIGHTS, parse_module_file
from mltune.system.tools import run_compiler, tool_path

DECLARATION = "iree.abi.declaration"
BUFFER_VIEW = "!hal.buffer_view"  # the type left to an argument the model never reads: IREE imports no tensor from it
ABI_TIMEOUT_S = 600


@dataclass(frozen=True)
class AbiValue:
    """One argument or result: a tensor (its shape, None for a dynamic dimension) or anything else (a scalar)."""

    text: str  # the type as IREE prints it: tensor<1x128xi64>, i32
    shape: tuple[int | None, ...] | None = None  # None: not a tensor
    element_type: str = ""

    @property
    def is_tensor(self) -> bool:
        return self.shape is not None

    @property
    def is_static(self) -> bool:
        return self.shape is not None and None not in self.shape

    @staticmethod
    def of_type(mlir_type: ir.Type) -> AbiValue:
        if isinstance(mlir_type, ir.RankedTensorType):
            dynamic = ir.ShapedType.get_dynamic_size()
            shape = tuple(None if d == dynamic else d for d in mlir_type.shape)
            return AbiValue(str(mlir_type), shape, str(mlir_type.element_type))
        return AbiValue(str(mlir_type))


@dataclass(frozen=True)
class FunctionAbi:
    """An exported function of a compiled module: the names to call it by and its signature."""

    module_name: str  # the VM module's name (`module @jit_f` in StableHLO from JAX; `module` by default)
    name: str
    arguments: tuple[AbiValue, ...]
    results: tuple[AbiValue, ...]


def exported_functions(vmfb: Path) -> tuple[str, dict[str, dict[str, str]]]:
    """The module's name and its public functions with their reflection: IREE's own (`__init`, ...) left out, and
    the `$async` twin of a function whose synchronous form is exported too."""
    import iree.runtime as rt  # the runtime only where a compiled module is read

    module = rt.VmModule.mmap(rt.VmInstance(), str(vmfb))
    names = [n for n in module.function_names if not n.startswith("__")]
    public = [n for n in names if not (n.endswith("$async") and n.removesuffix("$async") in names)]
    return module.name, {n: dict(module.lookup_function(n).reflection) for n in public}


def choose_function(names: Sequence[str], requested: str | None, path: Path) -> str:
    """`requested`, else `main`, else the only function."""
    if requested is not None:
        if requested not in names:
            raise UserError(f"{path}: no public function @{requested} (found: {', '.join(sorted(names)) or 'none'})")
        return requested
    if "main" in names:
        return "main"
    if len(names) == 1:
        return names[0]
    if not names:
        raise UserError(f"{path}: no public function to benchmark")
    raise UserError(f"{path}: several public functions ({', '.join(sorted(names))}); choose one with --function")


def _split_top_level(text: str) -> list[str]:
    """`text` split at the commas outside any brackets (`tensor<4xf32, #enc>` stays whole)."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "<([{":
            depth += 1
        elif char in ">)]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    tail = text[start:]
    return [p.strip() for p in [*parts, tail] if p.strip()]


def _closing(text: str, open_at: int) -> int:
    """The index of the bracket closing the one at `open_at`."""
    depth = 0
    for index in range(open_at, len(text)):
        if text[index] in "<([{":
            depth += 1
        elif text[index] in ">)]}":
            depth -= 1
            if depth == 0:
                return index
    raise ValueError(f"unbalanced brackets in {text!r}")


def _declared_values(items: str, context: ir.Context) -> tuple[AbiValue, ...]:
    """`%input0: tensor<4xf32>, %input1: i32 {attrs}` as values."""
    values = []
    for item in _split_top_level(items):
        type_text = item.split(":", 1)[1].strip() if item.startswith("%") else item
        if type_text.endswith("}"):  # argument attributes
            type_text = type_text[: type_text.rindex("{")].strip()
        with context:
            values.append(AbiValue.of_type(ir.Type.parse(type_text)))
    return tuple(values)


def parse_declaration(declaration: str, context: ir.Context) -> tuple[tuple[AbiValue, ...], tuple[AbiValue, ...]]:
    """The arguments and results of IREE's `iree.abi.declaration` text."""
    open_args = declaration.index("(")
    close_args = _closing(declaration, open_args)
    rest = declaration[close_args + 1 :].strip().removeprefix("->").strip()
    results = rest[1 : _closing(rest, 0)] if rest.startswith("(") else rest
    return _declared_values(declaration[open_args + 1 : close_args], context), _declared_values(results, context)


def _abi_phase_function(module: ir.Module, name: str) -> ir.Operation:
    functions = {
        op.attributes["sym_name"].value: op
        for op in module.body.operations
        if op.operation.name == "util.func" and "sym_name" in op.attributes
    }
    found = functions.get(f"{name}$async", functions.get(name))
    if found is None:
        raise UserError(f"IREE's ABI lowering has no function @{name}")
    return found


def _abi_phase_values(function: ir.Operation) -> tuple[tuple[AbiValue, ...], tuple[AbiValue, ...]]:
    """The tensor each `!hal.buffer_view` argument is imported as (its other arguments as they are; the coarse-fences
    model's two trailing fences left out), and the tensor each result is exported from."""
    arguments = list(function.regions[0].blocks[0].arguments)
    if "iree.abi.model" in function.attributes and function.attributes["iree.abi.model"].value == "coarse-fences":
        arguments = arguments[:-2]
    values = []
    for index, argument in enumerate(arguments):
        if str(argument.type) != BUFFER_VIEW:
            values.append(AbiValue.of_type(argument.type))
            continue
        imports = [use.owner for use in argument.uses if use.owner.operation.name == "hal.tensor.import"]
        if not imports:  # never read by the model: IREE checks nothing about it
            values.append(AbiValue(BUFFER_VIEW))
            continue
        values.append(AbiValue.of_type(imports[0].results[0].type))
    results = []
    block = function.regions[0].blocks[0]
    returns = [op for op in block.operations if op.operation.name == "util.return"]
    for value in returns[0].operands if returns else []:
        owner = value.owner if isinstance(value, ir.OpResult) else None
        exported = owner is not None and owner.operation.name == "hal.tensor.export"
        results.append(AbiValue.of_type(owner.operands[0].type) if exported else AbiValue(str(value.type)))
    return tuple(values), tuple(results)


def read_function_abi(
    vmfb: Path, source: Path, compile_flags: Sequence[str], work_dir: Path, context: ir.Context, requested: str | None
) -> FunctionAbi:
    """The signature of the function to tune in the compiled `vmfb` (built from `source` with `compile_flags`)."""
    module_name, functions = exported_functions(vmfb)
    name = choose_function(list(functions), requested, source)
    declaration = functions[name].get(DECLARATION)
    if declaration is not None:
        arguments, results = parse_declaration(declaration, context)
        return FunctionAbi(module_name, name, arguments, results)
    lowered = work_dir / "abi.mlir"
    result = run_compiler(
        [
            tool_path("iree-compile"),
            str(source),
            *compile_flags,
            "--compile-to=abi",
            *ELIDE_WEIGHTS,
            "-o",
            str(lowered),
        ],
        timeout_s=ABI_TIMEOUT_S,
    )
    if not result.ok:
        raise UserError(f"iree-compile cannot lower {source} to its ABI: {result.describe_failure()}")
    module = parse_module_file(lowered, context)
    with context:
        arguments, results = _abi_phase_values(_abi_phase_function(module, name))
    return FunctionAbi(module_name, name, arguments, results)
