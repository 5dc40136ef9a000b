"""A batch-1 convolution of a model's source, written as the op IREE dispatches, so that a CUDA candidate's
`compilation_info` can sit on it.

IREE 3.13 folds the unit batch of a `linalg.conv_2d_nchw_fchw` away before it configures a GPU dispatch, into a new
generic over `(oc, oh, ow, ic, kh, kw)` (a 1x1 one over `(oc, oh, ow, ic)`, or with the image's rows and columns
merged; a `linalg.depthwise_conv_2d_nchw_chw` over `(oh, ow, c, kh, kw)`), and drops any attribute set on the
model's op. Written in the source already (the image and result collapsed around it, the result expanded back, as
IREE's own fold does), the generic is the op IREE configures, and it honours the candidate's config as written
(`tests/test_gpu_simt_conv.py` compiles such a model and reads the dispatch's configuration back;
`tests/test_unit_batch.py` runs a folded model against the original). Only convolutions with static shapes, a unit
batch and a unit dilation are taken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from iree.compiler import ir
from iree.compiler.dialects import arith, linalg, tensor

from mltune.frontend.mlir import find_ops
from mltune.frontend.problem import Problem
from mltune.frontend.root_ops import problem_from_root_op

SOURCE_CONVOLUTION = "linalg.conv_2d_nchw_fchw"
SOURCE_DEPTHWISE = "linalg.depthwise_conv_2d_nchw_chw"


def _shape(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def _steps(op: ir.Operation, name: str) -> list[int]:
    return [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])] if name in op.attributes else [1, 1]


def foldable(op: ir.Operation) -> bool:
    """A static NCHW x FCHW (or depthwise NCHW x CHW) convolution with a unit batch and a unit dilation."""
    if op.name not in (SOURCE_CONVOLUTION, SOURCE_DEPTHWISE):
        return False
    if any(not ir.RankedTensorType(v.type).has_static_shape for v in op.operands):
        return False
    return _shape(op.operands[0])[0] == 1 and _steps(op, "dilations") == [1, 1]


@dataclass(frozen=True)
class FoldedForm:
    """One op IREE may make of a batch-1 convolution: how its image, filter and result are reshaped (no filter
    reshape: `()`) and the generic's indexing maps and iterator kinds."""

    image: tuple[tuple[int, ...], ...]
    filter: tuple[tuple[int, ...], ...]
    maps: str
    iterators: tuple[str, ...]


def _maps(loops: str, *results: str) -> str:
    return ", ".join(f"affine_map<{loops} -> ({result})>" for result in results)


def folded_forms(op: ir.Operation) -> list[FoldedForm]:
    """The ops IREE makes of a `foldable` convolution: a windowed one over `(oc, oh, ow, ic, kh, kw)`; a 1x1 one over
    `(oc, oh, ow, ic)` (a multi-loop contraction) or, unstrided, also with the image's rows and columns as one loop
    (a contraction: IREE does so where nothing keeps them apart); a depthwise one over `(oh, ow, c, kh, kw)`."""
    (*_, kh, kw), (sh, sw) = _shape(op.operands[1]), _steps(op, "strides")
    image = ((0, 1), (2,), (3,))
    if op.name == SOURCE_DEPTHWISE:
        row, col = (f"d0 * {sh}" if sh > 1 else "d0"), (f"d1 * {sw}" if sw > 1 else "d1")
        loops = "(d0, d1, d2, d3, d4)"
        return [
            FoldedForm(
                image,
                (),
                _maps(loops, f"d2, {row} + d3, {col} + d4", "d2, d3, d4", "d2, d0, d1"),
                ("parallel",) * 3 + ("reduction",) * 2,
            )
        ]
    row, col = (f"d1 * {sh}" if sh > 1 else "d1"), (f"d2 * {sw}" if sw > 1 else "d2")
    if (kh, kw) != (1, 1):
        loops = "(d0, d1, d2, d3, d4, d5)"
        return [
            FoldedForm(
                image,
                (),
                _maps(loops, f"d3, {row} + d4, {col} + d5", "d0, d3, d4, d5", "d0, d1, d2"),
                ("parallel",) * 3 + ("reduction",) * 3,
            )
        ]
    one_tap = ((0,), (1, 2, 3))
    forms = [
        FoldedForm(
            image,
            one_tap,
            _maps("(d0, d1, d2, d3)", f"d3, {row}, {col}", "d0, d3", "d0, d1, d2"),
            ("parallel",) * 3 + ("reduction",),
        )
    ]
    if (sh, sw) == (1, 1):
        forms.append(
            FoldedForm(
                ((0, 1), (2, 3)),
                one_tap,
                _maps("(d0, d1, d2)", "d2, d1", "d0, d2", "d0, d1"),
                ("parallel", "parallel", "reduction"),
            )
        )
    return forms


def _reassociation(groups: tuple[tuple[int, ...], ...]) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, i) for i in group]) for group in groups])


def _collapsed(value: ir.Value, groups: tuple[tuple[int, ...], ...]) -> ir.Value:
    shape = _shape(value)
    sizes = [math.prod(shape[i] for i in group) for group in groups]
    element = ir.RankedTensorType(value.type).element_type
    return tensor.CollapseShapeOp(ir.RankedTensorType.get(sizes, element), value, _reassociation(groups)).result


def fold(op: ir.Operation, form: FoldedForm) -> ir.Operation:
    """Replace a `foldable` convolution by the generic of `form` (in the op's context): the generic."""
    image, weights, init = op.operands
    with ir.InsertionPoint(op), op.location:
        image, init = _collapsed(image, form.image), _collapsed(init, form.image)
        if form.filter:
            weights = _collapsed(weights, form.filter)
        kinds = ir.Attribute.parse("[" + ", ".join(f"#linalg.iterator_type<{k}>" for k in form.iterators) + "]")
        generic = linalg.GenericOp([init.type], [image, weights], [init], ir.Attribute.parse(f"[{form.maps}]"), kinds)
        inputs = [ir.RankedTensorType(value.type).element_type for value in (image, weights)]
        element = ir.RankedTensorType(init.type).element_type
        body = generic.regions[0].blocks.append(*inputs, element)
        with ir.InsertionPoint(body):  # narrower operands are extended to the accumulator's type, as IREE's are
            lhs, rhs = (arg if arg.type == element else arith.ExtFOp(element, arg).result for arg in body.arguments[:2])
            product = arith.MulFOp(lhs, rhs).result
            linalg.YieldOp([arith.AddFOp(body.arguments[2], product).result])
        expanded = tensor.ExpandShapeOp(
            op.results[0].type,
            generic.result,
            _reassociation(form.image),
            [],
            ir.DenseI64ArrayAttr.get(_shape(op.results[0])),
        )
    op.results[0].replace_all_uses_with(expanded.result)
    op.erase()
    return generic.operation


def folded_problems(module: ir.Module) -> list[tuple[ir.Operation, list[tuple[FoldedForm, Problem]]]]:
    """Each foldable convolution of `module`, with each form IREE may make of it and that form's problem (read from a
    folded copy, the module itself unchanged)."""
    found = []
    for op in find_ops(module, foldable):
        (x, w, o), result = (v.type for v in op.operands), op.results[0].type
        strides = "dense<[{}, {}]> : tensor<2xi64>".format(*_steps(op, "strides"))
        forms = []
        for form in folded_forms(op):
            with op.context:
                scratch = ir.Module.parse(
                    f"func.func @f(%x: {x}, %w: {w}, %o: {o}) -> {result} {{\n"
                    f"  %r = {op.name} {{strides = {strides}, dilations = dense<1> : "
                    f"tensor<2xi64>}} ins(%x, %w : {x}, {w}) outs(%o : {o}) -> {result}\n"
                    f"  return %r : {result}\n}}"
                )
                (copy,) = find_ops(scratch, foldable)
                problem = problem_from_root_op(fold(copy, form))
            if isinstance(problem, Problem):
                forms.append((form, problem))
        found.append((op, forms))
    return found
