"""The readers of `linalg.generic` root ops that are neither a named contraction nor a convolution: reductions and
normalisations, multi-loop contractions (1x1 convolutions without their batch, strided ones too) and elementwise
ops (transposes, broadcasts, gathers, activations)."""

from __future__ import annotations

from iree.compiler import ir

from mltune.frontend.mlir import affine_map_text
from mltune.frontend.problem import (
    ELEMENT_BYTES,
    ELEMENTWISE,
    MULTI_LOOP_CONTRACTION,
    NORMALISED,
    REDUCTION,
    SUPPORTED_ELEMENT_TYPES,
    Problem,
    Untunable,
    gpu_configured,
    loop_bounds,
    reduction_configured,
)

GENERIC = "linalg.generic"


def _loop_kinds(op: ir.Operation) -> list[str]:
    """`r` or `p` for each loop of a generic: reduction or parallel (none for any other op)."""
    if op.name != GENERIC or "iterator_types" not in op.attributes:
        return []
    return ["r" if "reduction" in str(kind) else "p" for kind in op.attributes["iterator_types"]]


def is_reduction(op: ir.Operation) -> bool:
    """A generic with at least one reduction loop (contractions and convolutions are told apart before)."""
    return "r" in _loop_kinds(op)


def _static_element_types(
    op: ir.Operation, kind: str, supported: tuple[str, ...] = SUPPORTED_ELEMENT_TYPES
) -> list[str] | Untunable:
    """Every operand's element type, or why the op cannot be tuned (a dynamic shape, an unsupported type)."""
    types = [value.type for value in op.operands]
    if not all(isinstance(t, ir.ShapedType) and t.has_static_shape for t in types):
        return Untunable(op.name, f"a {kind} needs statically shaped tensor operands")
    elements = [str(t.element_type) for t in types]
    unsupported = [e for e in elements if e not in supported]
    if unsupported:
        return Untunable(op.name, f"unsupported element type {unsupported[0]}")
    return elements


def reduction_problem(op: ir.Operation) -> Problem | Untunable:
    """A reduction or normalisation (softmax, layer norm, RMS norm, mean pooling) as IREE dispatches it: a generic
    whose other ops (the accumulator's fill, an elementwise normalisation, a first reduction such as softmax's max)
    are fused around it. It reads one operand over every loop (the rows reduced), any others over parallel loops
    only; its body is not part of the problem (the configuration is the same tiles whatever it computes).
    `layout`: `p`/`r` per loop, then the number of inputs (`ppr_in2`: softmax's sum of exponentials, which reads
    the rows and their max; softmax's max itself, fused before it, is `ppr_in1`), then `_norm` when its result
    feeds only generics over its own loops (a norm's or softmax's normalisation; a spec configures those too)."""
    name = op.name
    maps = [attr.value for attr in op.attributes["indexing_maps"]]
    kinds = _loop_kinds(op)
    elements = _static_element_types(op, REDUCTION)
    if isinstance(elements, Untunable):
        return elements
    if not all(amap.is_projected_permutation for amap in maps):
        return Untunable(name, "a reduction whose operands are not read along its loops (strided or offset maps)")
    inputs = len(op.operands) - len(op.results)
    reduction = [loop for loop, kind in enumerate(kinds) if kind == "r"]
    reduced = [
        amap
        for amap in maps[:inputs]
        if any(isinstance(e, ir.AffineDimExpr) and e.position in reduction for e in amap.results)
    ]
    if len(reduced) != 1:
        return Untunable(
            name,
            f"a reduction reading {len(reduced)} operands along its reduction loops (one "
            "reduced operand is supported; more is a contraction)",
        )
    parallel = tuple(loop for loop, kind in enumerate(kinds) if kind == "p")
    if not parallel:
        return Untunable(name, "a full reduction to a scalar (no parallel loop to tile)")
    if gpu_configured(op) and not reduction_configured(op):
        return Untunable(
            name,
            "IREE configures this GPU reduction with TileAndFuse, not its VectorDistribute "
            "reduction config (no space for it yet)",
        )
    users = [use.owner for use in op.results[0].uses]
    normalised = bool(users) and all(
        user.name == GENERIC and len(user.attributes["iterator_types"]) == len(kinds) for user in users
    )
    return Problem(
        op_kind=REDUCTION,
        op_name=name,
        bounds=tuple(loop_bounds(op, maps)),
        batch=(),
        m=parallel,
        n=(),
        k=tuple(reduction),
        lhs_type=elements[0],
        rhs_type=elements[1] if inputs > 1 else elements[0],
        out_type=elements[inputs],
        indexing_maps=tuple(affine_map_text(m) for m in maps),
        layout=f"{''.join(kinds)}_in{inputs}{NORMALISED if normalised else ''}",
        operand_types=tuple(elements),
    )


# the ops of a multiply-accumulate body, its operands possibly widened first
_MULTIPLY_ACCUMULATE_OPS = {
    "arith.mulf",
    "arith.muli",
    "arith.addf",
    "arith.addi",
    "arith.extf",
    "arith.extsi",
    "arith.extui",
    "linalg.yield",
}


def is_multiply_accumulate(op: ir.Operation) -> bool:
    """A generic of two inputs and one init whose body is one multiply and one add: a contraction, whatever its
    maps (`linalg.isa_contraction_op` refuses strided ones)."""
    if len(op.operands) != 3 or len(op.results) != 1:
        return False
    names = [inner.name for inner in op.regions[0].blocks[0].operations]
    return (
        set(names) <= _MULTIPLY_ACCUMULATE_OPS
        and sum(n.startswith("arith.mul") for n in names) == 1
        and sum(n.startswith("arith.add") for n in names) == 1
    )


def _loop_step(expr: ir.AffineExpr) -> tuple[int, int] | None:
    """(loop, step) of an operand dimension read as `d` or `d * step`; None for anything else (a window's sum)."""
    if isinstance(expr, ir.AffineDimExpr):
        return expr.position, 1
    if (
        isinstance(expr, ir.AffineMulExpr)
        and isinstance(expr.lhs, ir.AffineDimExpr)
        and isinstance(expr.rhs, ir.AffineConstantExpr)
    ):
        return expr.lhs.position, expr.rhs.value
    return None


def multi_loop_contraction_problem(op: ir.Operation) -> Problem | Untunable:
    """A contraction that the one-M-one-N-one-K contraction space cannot describe: several M or N loops (a 1x1
    convolution whose batch IREE folded away: channels x height x width), or operands read with a step (a strided
    1x1 projection, `d1 * 2`). IREE 3.13 tiles such an op per loop (`DoubleTilingExpert`, as a reduction), so it is
    tuned per loop. `batch`: parallel loops both inputs read; `m`: those only the first reads; `n`: only the
    second; `strides`: the step each loop is read with; `operand_shapes` is set when a step is not 1."""
    name = op.name
    maps = [attr.value for attr in op.attributes["indexing_maps"]]
    elements = _static_element_types(op, "contraction")
    if isinstance(elements, Untunable):
        return elements
    reads = [[_loop_step(expr) for expr in amap.results] for amap in maps]
    if any(read is None for operand in reads for read in operand):
        return Untunable(name, "a contraction whose operands are read with offsets or sums of loops (a window)")
    steps = [1] * maps[0].n_dims
    for loop, step in (read for operand in reads for read in operand):
        steps[loop] = max(steps[loop], step)
    kinds = _loop_kinds(op)
    lhs, rhs = ({loop for loop, _ in operand} for operand in reads[:2])
    parallel = [loop for loop, kind in enumerate(kinds) if kind == "p"]
    if not set(parallel) <= lhs | rhs:
        return Untunable(name, "a contraction with a parallel loop no input reads (a broadcast into its result)")
    strided = any(step != 1 for step in steps)
    return Problem(
        op_kind=MULTI_LOOP_CONTRACTION,
        op_name=name,
        bounds=tuple(loop_bounds(op, maps)),
        batch=tuple(loop for loop in parallel if loop in lhs and loop in rhs),
        m=tuple(loop for loop in parallel if loop in lhs and loop not in rhs),
        n=tuple(loop for loop in parallel if loop in rhs and loop not in lhs),
        k=tuple(loop for loop, kind in enumerate(kinds) if kind == "r"),
        lhs_type=elements[0],
        rhs_type=elements[1],
        out_type=elements[2],
        indexing_maps=tuple(affine_map_text(m) for m in maps),
        layout=f"{''.join(kinds)}_in2",
        strides=tuple(steps) if strided else (),
        operand_types=tuple(elements),
        operand_shapes=tuple(tuple(value.type.shape) for value in op.operands) if strided else (),
    )


def is_elementwise(op: ir.Operation) -> bool:
    """A generic with loops, every one of them parallel."""
    return set(_loop_kinds(op)) == {"p"}


def _in_loop_order(amap: ir.AffineMap) -> bool:
    """Whether an operand walks its loops in their order (identity or broadcast), not transposed."""
    positions = [expr.position for expr in amap.results]
    return positions == sorted(positions)


def elementwise_problem(op: ir.Operation) -> Problem | Untunable:
    """An op whose loops are all parallel (elementwise arithmetic, a transpose, a broadcast, a gather reading a table
    inside its body), dispatched alone: its loops are tiled and spread over threads, whatever its body computes, so
    the body is not part of the problem. `m` holds every loop; `operand_types` every operand's element type (inputs,
    then inits; index and mask types too); `layout`: `p` per loop, `_t` where an operand walks the loops in another
    order (a transpose), then the number of inputs (`ppp_t_in2`)."""
    name = op.name
    maps = [attr.value for attr in op.attributes["indexing_maps"]]
    elements = _static_element_types(op, ELEMENTWISE, tuple(ELEMENT_BYTES))
    if isinstance(elements, Untunable):
        return elements
    if not all(amap.is_projected_permutation for amap in maps):
        return Untunable(name, "an elementwise op whose operands are not read along its loops (strided or offset maps)")
    if not op.results:
        return Untunable(
            name, "a copy between buffers (IREE's `slow_memcpy` dispatch: no tensor op for a spec to match)"
        )
    inputs = len(op.operands) - len(op.results)
    loops = tuple(range(maps[0].n_dims))
    transposed = "" if all(_in_loop_order(amap) for amap in maps) else "_t"
    first_input = elements[0] if inputs else elements[-1]
    return Problem(
        op_kind=ELEMENTWISE,
        op_name=name,
        bounds=tuple(loop_bounds(op, maps)),
        batch=(),
        m=loops,
        n=(),
        k=(),
        lhs_type=first_input,
        rhs_type=elements[1] if inputs > 1 else first_input,
        out_type=elements[inputs],
        indexing_maps=tuple(affine_map_text(m) for m in maps),
        layout=f"{'p' * len(loops)}{transposed}_in{inputs}",
        operand_types=tuple(elements),
    )
