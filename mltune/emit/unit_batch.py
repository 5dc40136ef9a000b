"""A batch-1 convolution of a model's source, written as the op IREE dispatches, so that a CUDA candidate's
`compilation_info` can sit on it.

IREE 3.13 folds the unit batch of a `linalg.conv_2d_nchw_fchw` away before it configures a GPU dispatch, into a new
generic over `(oc, oh, ow, ic, kh, kw)` (a 1x1 one over `(oc, oh, ow, ic)`), and drops any attribute set on the
model's op. Written in the source already (the image and result collapsed around it, the result expanded back, as
IREE's own fold does), the generic is the op IREE configures, and it honours the candidate's config as written
(`tests/test_gpu_simt_conv.py` compiles such a model and reads the dispatch's configuration back). Only convolutions
with static shapes, a unit batch and a unit dilation are taken.
"""

from __future__ import annotations

import math

from iree.compiler import ir
from iree.compiler.dialects import arith, linalg, tensor

from mltune.frontend.mlir import find_ops
from mltune.frontend.problem import Problem, problem_from_root_op

SOURCE_CONVOLUTION = "linalg.conv_2d_nchw_fchw"


def _shape(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def _steps(op: ir.Operation, name: str) -> list[int]:
    return [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])] if name in op.attributes else [1, 1]


def foldable(op: ir.Operation) -> bool:
    """A static NCHW x FCHW convolution with a unit batch and a unit dilation."""
    if op.name != SOURCE_CONVOLUTION or any(not ir.RankedTensorType(v.type).has_static_shape for v in op.operands):
        return False
    return _shape(op.operands[0])[0] == 1 and _steps(op, "dilations") == [1, 1]


def _folded_form(op: ir.Operation) -> tuple[list[list[int]], str, list[str]]:
    """The filter's reassociation (none for a window), the generic's indexing maps and its iterator kinds."""
    (_, _, kh, kw), (sh, sw) = _shape(op.operands[1]), _steps(op, "strides")
    row, col = (f"d1 * {sh}" if sh > 1 else "d1"), (f"d2 * {sw}" if sw > 1 else "d2")
    if (kh, kw) == (1, 1):
        maps = f"(d0, d1, d2, d3) -> (d3, {row}, {col})", "(d0, d1, d2, d3) -> (d0, d3)", "(d0, d1, d2, d3) -> (d0, d1, d2)"
        return [[0], [1, 2, 3]], ", ".join(f"affine_map<{m}>" for m in maps), ["parallel"] * 3 + ["reduction"]
    loops = "(d0, d1, d2, d3, d4, d5)"
    maps = (f"{loops} -> (d3, {row} + d4, {col} + d5)", f"{loops} -> (d0, d3, d4, d5)", f"{loops} -> (d0, d1, d2)")
    return [], ", ".join(f"affine_map<{m}>" for m in maps), ["parallel"] * 3 + ["reduction"] * 3


def _reassociation(groups: list[list[int]]) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, i) for i in group]) for group in groups])


def _collapsed(value: ir.Value, groups: list[list[int]]) -> ir.Value:
    shape = _shape(value)
    sizes = [math.prod(shape[i] for i in group) for group in groups]
    element = ir.RankedTensorType(value.type).element_type
    return tensor.CollapseShapeOp(ir.RankedTensorType.get(sizes, element), value, _reassociation(groups)).result


def fold(op: ir.Operation) -> ir.Operation:
    """Replace a `foldable` convolution by the generic IREE makes of it (in the op's context): the generic."""
    batch = [[0, 1], [2], [3]]
    filter_groups, maps, iterators = _folded_form(op)
    image, weights, init = op.operands
    with ir.InsertionPoint(op), op.location:
        image, init = _collapsed(image, batch), _collapsed(init, batch)
        if filter_groups:
            weights = _collapsed(weights, filter_groups)
        kinds = ir.Attribute.parse("[" + ", ".join(f"#linalg.iterator_type<{k}>" for k in iterators) + "]")
        generic = linalg.GenericOp([init.type], [image, weights], [init], ir.Attribute.parse(f"[{maps}]"), kinds)
        inputs = [ir.RankedTensorType(value.type).element_type for value in (image, weights)]
        element = ir.RankedTensorType(init.type).element_type
        body = generic.regions[0].blocks.append(*inputs, element)
        with ir.InsertionPoint(body):  # narrower operands are extended to the accumulator's type, as IREE's are
            lhs, rhs = (arg if arg.type == element else arith.ExtFOp(element, arg).result for arg in body.arguments[:2])
            product = arith.MulFOp(lhs, rhs).result
            linalg.YieldOp([arith.AddFOp(body.arguments[2], product).result])
        expanded = tensor.ExpandShapeOp(op.results[0].type, generic.result, _reassociation(batch), [],
                                        ir.DenseI64ArrayAttr.get(_shape(op.results[0])))
    op.results[0].replace_all_uses_with(expanded.result)
    op.erase()
    return generic.operation


def folded_problems(module: ir.Module) -> list[tuple[ir.Operation, Problem]]:
    """Each foldable convolution of `module` and the problem of the generic it would become (read from a copy of its
    folded form, the module itself unchanged)."""
    found = []
    for op in find_ops(module, foldable):
        (x, w, o), result = (v.type for v in op.operands), op.results[0].type
        strides = "dense<[{}, {}]> : tensor<2xi64>".format(*_steps(op, "strides"))
        with op.context:
            scratch = ir.Module.parse(f"func.func @f(%x: {x}, %w: {w}, %o: {o}) -> {result} {{\n"
                                      f"  %r = {SOURCE_CONVOLUTION} {{strides = {strides}, dilations = dense<1> : "
                                      f"tensor<2xi64>}} ins(%x, %w : {x}, {w}) outs(%o : {o}) -> {result}\n"
                                      f"  return %r : {result}\n}}")
            (copy,) = find_ops(scratch, foldable)
            problem = problem_from_root_op(fold(copy))
        if isinstance(problem, Problem):
            found.append((op, problem))
    return found
