"""One-op models: a `func.func @main` that computes a single contraction, convolution or attention.

A problem is measured at the model level (`docs/dispatch-benchmarks-vs-model.md`: the dumped dispatch benchmark
misleads), so measuring a contraction shape needs a model holding just that op.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ContractionShape:
    """A matmul (`batch` 0) or batch matmul: `m` x `k` times `k` x `n`, optionally with an N x K right-hand side."""

    m: int
    n: int
    k: int
    batch: int = 0
    in_type: str = "f32"
    out_type: str = "f32"
    transpose_rhs: bool = False

    @property
    def name(self) -> str:
        batch = f"{self.batch}x" if self.batch else ""
        layout = "nt" if self.transpose_rhs else "nn"
        return (
            f"{'bmm' if self.batch else 'mm'}_{batch}{self.m}x{self.n}x{self.k}_{self.in_type}{self.out_type}_{layout}"
        )


def _tensor(dims: tuple[int, ...], element: str) -> str:
    return f"tensor<{'x'.join(map(str, dims))}x{element}>"


def contraction_model(shape: ContractionShape) -> str:
    """MLIR source of `@main(lhs, rhs) -> lhs @ rhs` for `shape`, accumulating into zeros."""
    lead = (shape.batch,) if shape.batch else ()
    lhs = _tensor(lead + (shape.m, shape.k), shape.in_type)
    rhs = _tensor(lead + ((shape.n, shape.k) if shape.transpose_rhs else (shape.k, shape.n)), shape.in_type)
    out = _tensor(lead + (shape.m, shape.n), shape.out_type)
    zero = "0" if shape.out_type.startswith("i") else "0.0"
    maps = ""
    if shape.transpose_rhs:
        d = "d0, " if shape.batch else ""
        loops = "(d0, d1, d2, d3)" if shape.batch else "(d0, d1, d2)"
        m, n, k = ("d1", "d2", "d3") if shape.batch else ("d0", "d1", "d2")
        maps = (
            f"indexing_maps = [affine_map<{loops} -> ({d}{m}, {k})>, affine_map<{loops} -> ({d}{n}, {k})>, "
            f"affine_map<{loops} -> ({d}{m}, {n})>] "
        )
    op = "linalg.batch_matmul" if shape.batch else "linalg.matmul"
    return f"""func.func @main(%lhs: {lhs}, %rhs: {rhs}) -> {out} {{
  %zero = arith.constant {zero} : {shape.out_type}
  %empty = tensor.empty() : {out}
  %acc = linalg.fill ins(%zero : {shape.out_type}) outs(%empty : {out}) -> {out}
  %r = {op} {maps}ins(%lhs, %rhs : {lhs}, {rhs}) outs(%acc : {out}) -> {out}
  return %r : {out}
}}
"""


@dataclass(frozen=True)
class AttentionShape:
    """A scaled dot-product attention over `batch` (batch x heads) slices: query `m` x `k1`, key `k2` x `k1`, value
    `k2` x `n` (the head dims `k1` and `n` are usually equal), with the scale 1 / sqrt(k1)."""

    batch: int
    m: int
    k1: int
    k2: int
    n: int
    element: str = "f32"

    @property
    def name(self) -> str:
        return f"attention_{self.batch}x{self.m}x{self.k1}x{self.k2}x{self.n}_{self.element}"

    @property
    def operands(self) -> tuple[tuple[int, int, int], ...]:
        """The shapes of query, key and value."""
        return (self.batch, self.m, self.k1), (self.batch, self.k2, self.k1), (self.batch, self.k2, self.n)


def attention_model(shape: AttentionShape) -> str:
    """MLIR source of `@main(q, k, v) -> attention(q, k, v)`: one `iree_linalg_ext.attention`, as a PyTorch scaled
    dot-product attention without mask reaches IREE (IREE dispatches it as `online_attention`)."""
    q, k, v = (_tensor(dims, shape.element) for dims in shape.operands)
    out = _tensor((shape.batch, shape.m, shape.n), shape.element)
    loops = "(d0, d1, d2, d3, d4)"  # batch, M, N, K1, K2
    maps = ", ".join(
        f"affine_map<{loops} -> ({r})>" for r in ("d0, d1, d3", "d0, d4, d3", "d0, d4, d2", "", "d0, d1, d2")
    )
    return f"""func.func @main(%q: {q}, %k: {k}, %v: {v}) -> {out} {{
  %scale = arith.constant {shape.k1**-0.5!r} : {shape.element}
  %empty = tensor.empty() : {out}
  %r = iree_linalg_ext.attention <{{indexing_maps = [{maps}]}}> ins(%q, %k, %v, %scale : {q}, {k}, {v}, {shape.element}) outs(%empty : {out}) {{
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  }} -> {out}
  return %r : {out}
}}
"""


def convolution_model(
    op: str, image: tuple[int, ...], weights: tuple[int, ...], result: tuple[int, ...], stride: int
) -> str:
    """MLIR source of `@main(x, w)`: one f32 named 2-D convolution `op` (e.g. `linalg.conv_2d_nchw_fchw`) with a unit
    dilation, its input pre-padded, as a model's convolution reads it after padding is fused."""
    x, k, o = (_tensor(shape, "f32") for shape in (image, weights, result))
    return f"""func.func @main(%x: {x}, %w: {k}) -> {o} {{
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : {o}
  %acc = linalg.fill ins(%zero : f32) outs(%empty : {o}) -> {o}
  %r = {op} {{dilations = dense<1> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}} ins(%x, %w : {x}, {k}) outs(%acc : {o}) -> {o}
  return %r : {o}
}}
"""


def _operand_dims(problem_map: str, bounds: tuple[int, ...]) -> tuple[int, ...]:
    """An operand's shape from its projected indexing map (`affine_map<(d0, d1, d2) -> (d0, d2)>` -> (b0, b2))."""
    results = problem_map.split("->", 1)[1]
    return tuple(bounds[int(d)] for d in re.findall(r"d(\d+)", results))


def _widen(value: str, source: str, target: str) -> tuple[str, str]:
    """MLIR that widens `value` from `source` to `target` element type (none when they are equal), and its name."""
    if source == target:
        return "", value
    op = "arith.extsi" if target.startswith("i") else "arith.extf"
    return f"    %{value}_w = {op} %{value} : {source} to {target}\n", f"{value}_w"


def generic_contraction_model(
    bounds: tuple[int, ...],
    reductions: tuple[int, ...],
    indexing_maps: tuple[str, ...],
    lhs_type: str,
    rhs_type: str,
    out_type: str,
    operand_shapes: tuple[tuple[int, ...], ...] = (),
) -> str:
    """MLIR source of `@main(lhs, rhs)`: one `linalg.generic` contraction with exactly these indexing maps, loop
    bounds and element types (operands widened to the output type, accumulating into zeros), so that a spec that
    matches a model's contraction by maps, types and sizes matches it too. `operand_shapes` where a strided map
    (`d1 * 2`) does not give them."""
    shapes = list(operand_shapes) or [_operand_dims(m, bounds) for m in indexing_maps]
    lhs, rhs, out = (_tensor(s, e) for s, e in zip(shapes, (lhs_type, rhs_type, out_type)))
    iterators = ", ".join('"reduction"' if i in reductions else '"parallel"' for i in range(len(bounds)))
    integer = out_type.startswith("i")
    widen_a, a = _widen("a", lhs_type, out_type)
    widen_b, b = _widen("b", rhs_type, out_type)
    mul, add = ("arith.muli", "arith.addi") if integer else ("arith.mulf", "arith.addf")
    return f"""func.func @main(%lhs: {lhs}, %rhs: {rhs}) -> {out} {{
  %zero = arith.constant {"0" if integer else "0.0"} : {out_type}
  %empty = tensor.empty() : {out}
  %acc = linalg.fill ins(%zero : {out_type}) outs(%empty : {out}) -> {out}
  %r = linalg.generic {{indexing_maps = [{", ".join(indexing_maps)}], iterator_types = [{iterators}]}} ins(%lhs, %rhs : {lhs}, {rhs}) outs(%acc : {out}) {{
  ^bb0(%a: {lhs_type}, %b: {rhs_type}, %c: {out_type}):
{widen_a}{widen_b}    %p = {mul} %{a}, %{b} : {out_type}
    %s = {add} %c, %p : {out_type}
    linalg.yield %s : {out_type}
  }} -> {out}
  return %r : {out}
}}
"""


def _produced(source: str, operand: str, shape: tuple[int, ...], element: str) -> str:
    """`source` with function argument `%operand` first passed through a ReLU (named `%operand` from then on)."""
    tensor = _tensor(shape, element)
    loops = ", ".join(f"d{i}" for i in range(len(shape)))
    identity = f"affine_map<({loops}) -> ({loops})>"
    zero, maximum = ("0", "arith.maxsi") if element.startswith("i") else ("0.0", "arith.maximumf")
    relu = f"""  %{operand}_zero = arith.constant {zero} : {element}
  %{operand}_empty = tensor.empty() : {tensor}
  %{operand} = linalg.generic {{indexing_maps = [{identity}, {identity}], iterator_types = [{", ".join(['"parallel"'] * len(shape))}]}} ins(%{operand}_in : {tensor}) outs(%{operand}_empty : {tensor}) {{
  ^bb0(%in: {element}, %out: {element}):
    %positive = {maximum} %in, %{operand}_zero : {element}
    linalg.yield %positive : {element}
  }} -> {tensor}
"""
    header, body = source.split("\n", 1)
    return header.replace(f"%{operand}:", f"%{operand}_in:", 1) + "\n" + relu + body


def _padded_result(source: str, shape: tuple[int, ...], padded: tuple[bool, ...], pad: int, element: str) -> str:
    """`source` returning its result padded by `pad` on both sides of each dimension marked in `padded`."""
    out = _tensor(shape, element)
    grown = _tensor(tuple(size + 2 * pad * marked for size, marked in zip(shape, padded)), element)
    edges = ", ".join(str(pad * marked) for marked in padded)
    indices = ", ".join(f"%i{i}: index" for i in range(len(shape)))
    zero = "0" if element.startswith("i") else "0.0"
    return source.replace(f"-> {out} {{", f"-> {grown} {{", 1).replace(
        f"  return %r : {out}",
        f"""  %pad_zero = arith.constant {zero} : {element}
  %padded = tensor.pad %r low[{edges}] high[{edges}] {{
  ^bb0({indices}):
    tensor.yield %pad_zero : {element}
  }} : {out} to {grown}
  return %padded : {grown}""",
    )


def dispatched_contraction_model(
    bounds: tuple[int, ...],
    reductions: tuple[int, ...],
    indexing_maps: tuple[str, ...],
    types: tuple[str, str, str],
    operand_shapes: tuple[tuple[int, ...], ...] = (),
    produced: tuple[int, ...] = (),
    padded_loops: tuple[int, ...] = (),
    pad: int = 1,
) -> str:
    """`generic_contraction_model` with the neighbours that make IREE dispatch it as a model's: each input in
    `produced` (0 the left, 1 the right) a ReLU's output, as a previous layer's (IREE folds a step of a function
    argument's read into a strided load, another problem), and the result padded by `pad` along `padded_loops`, as
    for a padded convolution after it (IREE collapses M loops it can collapse otherwise)."""
    operand_shapes = operand_shapes or tuple(_operand_dims(m, bounds) for m in indexing_maps)
    source = generic_contraction_model(bounds, reductions, indexing_maps, *types, operand_shapes)
    for position in produced:
        source = _produced(source, ("lhs", "rhs")[position], operand_shapes[position], types[position])
    if not padded_loops:
        return source
    result_loops = tuple(int(d) for d in re.findall(r"d(\d+)", indexing_maps[2].split("->", 1)[1]))
    return _padded_result(
        source, operand_shapes[2], tuple(loop in padded_loops for loop in result_loops), pad, types[2]
    )


def one_by_one_convolution_model(
    out_channels: int, size: int, in_channels: int, stride: int, pad_output: int = 0
) -> str:
    """MLIR source of `@main(lhs, rhs)` (image, weights): a 1x1 convolution as IREE dispatches a ResNet block's at
    batch 1, a `linalg.generic` over output channels x height x width x input channels reading the image with
    `stride`.

    As in the model, the image is a ReLU's output (IREE keeps the stride in the dispatch's indexing map then, where it
    folds the stride of a function argument into a strided load), and with `pad_output` the result is padded for a
    3x3 convolution after it (IREE then keeps height and width apart, where it collapses them otherwise); either
    way the dispatch is another problem without."""
    image = (in_channels, size * stride, size * stride)
    read = f"d1 * {stride}, d2 * {stride}" if stride > 1 else "d1, d2"
    maps = (
        f"affine_map<(d0, d1, d2, d3) -> (d3, {read})>",
        "affine_map<(d0, d1, d2, d3) -> (d0, d3)>",
        "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>",
    )
    shapes = (image, (out_channels, in_channels), (out_channels, size, size))
    return dispatched_contraction_model(
        (out_channels, size, size, in_channels),
        (3,),
        maps,
        ("f32", "f32", "f32"),
        shapes,
        produced=(0,),
        padded_loops=(1, 2) if pad_output else (),
        pad=pad_output,
    )
