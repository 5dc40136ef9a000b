"""The single place that creates IREE `ir.Context`s and parses or prints IR with the bindings."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from iree.compiler import ir

from mltune.errors import UserError

# `iree-compile` printing flags that leave a model's weights out of the IR it writes: what mltune reads from an
# intermediate phase is structure, and hundreds of megabytes of constants would only be read past
ELIDE_WEIGHTS = ("--mlir-elide-elementsattrs-if-larger=16", "--mlir-elide-resource-strings-if-larger=16")


def new_context() -> ir.Context:
    """A context with every IREE dialect registered; keep parsed modules alive while using their ops."""
    return ir.Context()


def parse_module_file(path: Path, context: ir.Context) -> ir.Module:
    """Parse an MLIR file, turning a parse failure into a one-line user error."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise UserError(f"cannot read {path}: {err}") from None
    try:
        with context:
            return ir.Module.parse(text)
    except ir.MLIRError as err:
        first = str(err).strip().splitlines()
        detail = next((line.strip() for line in first[1:] if line.strip()), first[0] if first else "")
        raise UserError(f"{path}: not valid MLIR: {detail}") from None


def find_ops(module: ir.Module, wanted: Callable[[ir.Operation], bool]) -> list[ir.Operation]:
    """Every op of the module, nested ones included, for which `wanted` is true (in walk order)."""
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if wanted(op):
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def affine_map_text(amap: ir.AffineMap) -> str:
    """`affine_map<...>` as the transform dialect parses it (plain `str(map)` omits the wrapper)."""
    return str(ir.AffineMapAttr.get(amap))
