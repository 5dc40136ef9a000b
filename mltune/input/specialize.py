"""A model exported with dynamic dimensions, specialised to the concrete shapes the user names.

IREE dumps no benchmark for a dispatch whose workload is dynamic, and a tuning spec matches an op by its static
sizes, so a model with a dynamic sequence length has nothing to tune as it is. Its entry function's arguments are
given the user's shapes and cast back to their dynamic types at the function's entry (`torch.tensor_static_info_cast`
for torch's value tensors, `tensor.cast` for builtin tensors): IREE's canonicalisations fold the casts into the
ops, whose sizes become static, as they are when the model is exported at that shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from iree.compiler import ir

from mltune.errors import UserError
from mltune.input.abi import AbiValue, FunctionAbi

FUNCTION_OPS = ("func.func", "util.func")
TORCH_TENSOR = re.compile(r"^!torch\.vtensor<\[([^\]]*)\],([^>]+)>$")
# torch's element types as IREE's tools name them (`--input=1x128xi64=...`)
TORCH_ELEMENTS = {"si64": "i64", "si32": "i32", "si16": "i16", "si8": "i8", "ui8": "ui8"}
RESOURCES = b"{-#"  # where a module's dialect resources (iree-turbine's inlined weights) start


@dataclass(frozen=True)
class Specialised:
    """The specialised copy of a model and what changed: per argument, its type before and after."""

    source: Path
    changes: tuple[tuple[str, str], ...]

    def describe(self) -> str:
        return ", ".join(f"{before} -> {after}" for before, after in self.changes)


def shape_tag(shapes: Sequence[Sequence[int]]) -> str:
    """A file-name-safe name for one set of argument shapes (`1x128`, `1x128_1x128x64`)."""
    return "_".join("x".join(map(str, shape)) or "scalar" for shape in shapes)


def _function(module: ir.Module, name: str | None) -> ir.Operation:
    public = []
    for op in module.body.operations:
        if op.operation.name not in FUNCTION_OPS or len(op.regions[0].blocks) == 0:
            continue
        visibility = op.attributes["sym_visibility"].value if "sym_visibility" in op.attributes else "public"
        if visibility == "public":
            public.append(op)
    names = [op.attributes["sym_name"].value for op in public]
    wanted = name if name is not None else "main" if "main" in names else names[0] if len(names) == 1 else None
    for op in public:
        if op.attributes["sym_name"].value == wanted:
            return op.operation
    raise UserError(
        f"no public function @{wanted or '?'} to call (found: {', '.join(names) or 'none'}); name one with --function"
    )


def argument_value(mlir_type: ir.Type) -> AbiValue:
    """An argument's type as IREE's tools see it: torch's value tensors read as the builtin tensor IREE imports."""
    match = TORCH_TENSOR.match(str(mlir_type))
    if match is None:
        return AbiValue.of_type(mlir_type)
    dims = tuple(None if d.strip() == "?" else int(d) for d in match.group(1).split(",") if d.strip())
    element = TORCH_ELEMENTS.get(match.group(2), match.group(2))
    text = f"tensor<{''.join(f'{d if d is not None else chr(63)}x' for d in dims)}{element}>"
    return AbiValue(text, dims, element)


def _static_type(mlir_type: ir.Type, shape: Sequence[int]) -> ir.Type:
    match = TORCH_TENSOR.match(str(mlir_type))
    if match is not None:
        return ir.Type.parse(f"!torch.vtensor<[{','.join(map(str, shape))}],{match.group(2)}>")
    assert isinstance(mlir_type, ir.RankedTensorType)
    return ir.RankedTensorType.get(list(shape), mlir_type.element_type)


def _cast(static: ir.Value, dynamic: ir.Type, torch: bool, location: ir.Location) -> ir.Operation:
    """The op that hands the static argument to the body as the dynamic type it was written against."""
    name = "torch.tensor_static_info_cast" if torch else "tensor.cast"
    return ir.Operation.create(name, results=[dynamic], operands=[static], loc=location)


def has_dynamic_signature(path: Path) -> bool:
    """Whether a textual model's public function takes a tensor with a `?` dimension: read from the signature
    lines alone, so that a model without dynamic dimensions is never parsed here."""
    try:
        with open(path, "rb") as handle:
            for line in handle:
                stripped = line.lstrip()
                if stripped.startswith(RESOURCES):  # the weights' blobs follow the code: nothing more to read
                    return False
                if stripped.startswith((b"func.func @", b"util.func public @", b"func.func public @")):
                    signature = stripped.split(b"->")[0]
                    if b"?" in signature:
                        return True
    except OSError:
        return False
    return False


def function_abi(module: ir.Module, function: str | None, context: ir.Context) -> FunctionAbi:
    """The entry function's argument types as written in the source (dynamic dimensions as None)."""
    with context:
        op = _function(module, function)
        types = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
        return FunctionAbi(
            "module", op.attributes["sym_name"].value, tuple(argument_value(t) for t in types.inputs), ()
        )


def specialise(
    module: ir.Module, function: str | None, shapes: Sequence[Sequence[int]], out: Path, context: ir.Context
) -> Specialised:
    """Write the parsed `module` with its entry function's arguments given `shapes` (one per argument) to `out`
    (the module is changed in place)."""
    with context:
        op = _function(module, function)
        block = op.regions[0].blocks[0]
        types = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
        if len(shapes) != len(types.inputs):
            raise UserError(
                f"{len(shapes)} shapes given for the {len(types.inputs)} arguments of "
                f"@{op.attributes['sym_name'].value}"
            )
        changes, inputs = [], []
        for argument, shape in zip(block.arguments, shapes):
            before = argument.type
            value = argument_value(before)
            if value.is_static or not value.is_tensor:
                inputs.append(before)
                continue
            after = _static_type(before, shape)
            argument.set_type(after)
            with ir.InsertionPoint.at_block_begin(block):
                cast = _cast(argument, before, TORCH_TENSOR.match(str(before)) is not None, op.location)
            argument.replace_all_uses_except(cast.result, cast)
            changes.append((str(before), str(after)))
            inputs.append(after)
        op.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, types.results))
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "w") as handle:
            module.operation.print(file=handle, enable_debug_info=False)
    return Specialised(out, tuple(changes))
