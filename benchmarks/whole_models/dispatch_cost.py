"""The work in one dumped dispatch, read from its IR: floating-point or integer operations and bytes moved.

A compile-only stand-in for time where there is no device to time on (gfx942 here). FLOPs are summed over the
dispatch's structured ops (the root op and what IREE fused around it): a contraction or convolution counts its
multiply and add (2 per point of its iteration space), any other `linalg` op the arithmetic ops of its body per
point (an elementwise op counts its own body: a bias add 1, a GELU its dozen; a copy, transpose or fill 0), an
attention 2 x B x M x K2 x (K1 + N) (its two matmuls; the softmax's exponentials are left out). Bytes are what the
dispatch reads and writes in global memory: every tensor it loads from and stores to its bindings, and the buffers
of ops IREE left on memory (a copy), once each (the roofline minimum; re-reads through the caches are not counted).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from iree.compiler import ir
from iree.compiler.dialects import iree_codegen, linalg

_LOADS = ("iree_codegen.load_from_buffer", "iree_tensor_ext.dispatch.tensor.load")
_STORES = ("iree_codegen.store_to_buffer", "iree_tensor_ext.dispatch.tensor.store")
_ATTENTION = ("iree_linalg_ext.online_attention", "iree_linalg_ext.attention")
# body ops that move or convert values without arithmetic
_NOT_ARITHMETIC = re.compile(r"arith\.(constant|ext|trunc|index_cast|bitcast|.*tofp|fpto.*)|linalg\.(yield|index)")
_BITS = re.compile(r"(\d+)")


@dataclass(frozen=True)
class DispatchCost:
    """Operations per call and bytes read plus written per call of one dispatch."""

    flops: float
    bytes: float


def _tensor_bytes(value_type: ir.Type) -> int:
    """Bytes of a statically shaped tensor (0 for anything else: a dynamic shape has no size to count)."""
    if not isinstance(value_type, ir.ShapedType) or not ir.ShapedType(value_type).has_static_shape:
        return 0
    shaped = ir.ShapedType(value_type)
    bits = _BITS.search(str(shaped.element_type))
    return math.prod(shaped.shape) * (int(bits.group(1)) if bits else 64) // 8


def _maps(op: ir.Operation) -> list[ir.AffineMap]:
    if "indexing_maps" in op.attributes:
        return [attr.value for attr in op.attributes["indexing_maps"]]
    return [attr.value for attr in linalg.get_indexing_maps(op)]


def _iteration_space(op: ir.Operation, maps: list[ir.AffineMap]) -> list[int]:
    """Each loop's trip count: the size of an operand dimension indexed by that loop alone."""
    bounds = [1] * maps[0].n_dims
    for amap, value in zip(maps, op.operands):
        if isinstance(value.type, ir.ShapedType):
            for expr, size in zip(amap.results, ir.ShapedType(value.type).shape):
                if isinstance(expr, ir.AffineDimExpr):
                    bounds[expr.position] = size
    return bounds


def _body_operations(op: ir.Operation) -> int:
    if not op.regions or not op.regions[0].blocks:
        return 0
    return sum(1 for inner in op.regions[0].blocks[0].operations if not _NOT_ARITHMETIC.match(inner.operation.name))


def _op_flops(op: ir.Operation) -> float:
    """The operations of one structured op (see the module docstring); 0 for an op that is not one."""
    if op.name in _ATTENTION:
        maps = _maps(op)
        bounds = _iteration_space(op, maps)
        output = maps[len(op.operands) - (3 if op.name == _ATTENTION[0] else 1)]
        detail = iree_codegen.get_attention_op_detail(maps[0], maps[1], maps[2], output)
        batch, m, k1, k2, n = (
            math.prod(bounds[d] for d in dims)
            for dims in (detail.batch_dims, detail.m_dims, detail.k1_dims, detail.k2_dims, detail.n_dims)
        )
        return 2.0 * batch * m * k2 * (k1 + n)
    if not op.name.startswith("linalg.") or op.name in ("linalg.yield", "linalg.index"):
        return 0.0
    points = math.prod(_iteration_space(op, _maps(op)))
    if linalg.isa_contraction_op(op) or linalg.isa_convolution_op(op):
        return 2.0 * points
    return float(points * _body_operations(op))


def _walk(op: ir.Operation, visit) -> None:
    visit(op)
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                _walk(inner.operation, visit)


def dispatch_cost(module: ir.Module) -> DispatchCost:
    """The FLOPs and global-memory bytes of every dispatch function in a dumped benchmark (one in practice)."""
    totals = {"flops": 0.0, "bytes": 0.0}

    def visit(op: ir.Operation) -> None:
        if op.name in _LOADS:
            totals["bytes"] += _tensor_bytes(op.results[0].type)
        elif op.name in _STORES:
            totals["bytes"] += _tensor_bytes(op.operands[0].type)
        elif op.name.startswith(("linalg.", "iree_linalg_ext.")):
            totals["flops"] += _op_flops(op)
            totals["bytes"] += sum(_tensor_bytes(v.type) for v in op.operands if isinstance(v.type, ir.MemRefType))

    with module.context:
        for variant in iree_codegen.get_executable_variant_ops(module):
            _walk(variant.operation, visit)
    return DispatchCost(totals["flops"], totals["bytes"])
