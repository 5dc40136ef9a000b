"""One-op models of the reductions and normalisations models hold, written as PyTorch exports reach IREE: a layer
norm (row mean, then variance and normalisation), an RMS norm, a softmax (`linalg.softmax`, which IREE decomposes
into a max, a sum of exponentials and a division) and an NCHW global mean pool.

Each is `func.func @main` over f32 tensors; IREE makes one dispatch of each reduction with its elementwise
consumer fused (a layer norm: two, of one shape).
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("layernorm", "rmsnorm", "softmax", "meanpool")


@dataclass(frozen=True)
class ReductionShape:
    """`kind` over `dims`: rows x row length for the norms, batch x rows x row length for softmax, N x C x H x W
    for the pool (which reduces H x W)."""

    kind: str
    dims: tuple[int, ...]

    @property
    def name(self) -> str:
        return f"{self.kind}_{'x'.join(map(str, self.dims))}"

    @property
    def inputs(self) -> tuple[tuple[int, ...], ...]:
        """The shapes of `@main`'s arguments."""
        scales = {"layernorm": 2, "rmsnorm": 1}.get(
            self.kind, 0
        )  # a layer norm's weight and bias, an RMS norm's weight
        return (self.dims, *[self.dims[-1:]] * scales)


def _t(dims: tuple[int, ...]) -> str:
    return f"tensor<{'x'.join(map(str, dims))}xf32>"


_ROW = "affine_map<(d0, d1) -> (d0, d1)>"
_SUM = "affine_map<(d0, d1) -> (d0)>"
_COL = "affine_map<(d0, d1) -> (d1)>"


def _row_sum(name: str, source: str, rows: int, cols: int, square: bool) -> str:
    """`%name = sum over each row of source (squared when `square`)`, into a zero-filled accumulator."""
    value = "%sq" if square else "%in"
    body = "    %sq = arith.mulf %in, %in : f32\n" if square else ""
    return f"""  %{name} = linalg.generic {{indexing_maps = [{_ROW}, {_SUM}], iterator_types = ["parallel", "reduction"]}} ins(%{source} : {_t((rows, cols))}) outs(%zeros : {_t((rows,))}) {{
  ^bb0(%in: f32, %out: f32):
{body}    %s = arith.addf {value}, %out : f32
    linalg.yield %s : f32
  }} -> {_t((rows,))}
"""


def _normalise(result: str, source: str, rows: int, cols: int, bias: bool) -> str:
    """`%result = source * rsqrt(sum / cols + eps) * w (+ b)`: the elementwise op after a norm's second sum."""
    ins = f"%{source}, %sumsq, %w" + (", %b" if bias else "")
    types = f"{_t((rows, cols))}, {_t((rows,))}, {_t((cols,))}" + (f", {_t((cols,))}" if bias else "")
    maps = f"{_ROW}, {_SUM}, {_COL}" + (f", {_COL}" if bias else "") + f", {_ROW}"
    args = "%x: f32, %v: f32, %g: f32" + (", %c: f32" if bias else "")
    last = "    %o = arith.addf %u, %c : f32\n    linalg.yield %o : f32" if bias else "    linalg.yield %u : f32"
    return f"""  %{result} = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel", "parallel"]}} ins({ins} : {types}) outs(%empty : {_t((rows, cols))}) {{
  ^bb0({args}, %out: f32):
    %m = arith.divf %v, %n : f32
    %a = arith.addf %m, %eps : f32
    %r = math.rsqrt %a : f32
    %t = arith.mulf %x, %r : f32
    %u = arith.mulf %t, %g : f32
{last}
  }} -> {_t((rows, cols))}
"""


def _norm(shape: ReductionShape) -> str:
    rows, cols = shape.dims
    layer = shape.kind == "layernorm"
    args = f"%input: {_t((rows, cols))}, %w: {_t((cols,))}" + (f", %b: {_t((cols,))}" if layer else "")
    centre = ""
    if layer:
        centre = (
            _row_sum("sum", "input", rows, cols, False)
            + f"""  %centred = linalg.generic {{indexing_maps = [{_ROW}, {_SUM}, {_ROW}], iterator_types = ["parallel", "parallel"]}} ins(%input, %sum : {_t((rows, cols))}, {_t((rows,))}) outs(%empty : {_t((rows, cols))}) {{
  ^bb0(%x: f32, %s: f32, %out: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %x, %mean : f32
    linalg.yield %d : f32
  }} -> {_t((rows, cols))}
"""
        )
    source = "centred" if layer else "input"
    return f"""func.func @main({args}) -> {_t((rows, cols))} {{
  %zero = arith.constant 0.0 : f32
  %n = arith.constant {float(cols)!r} : f32
  %eps = arith.constant 1.0e-05 : f32
  %empty = tensor.empty() : {_t((rows, cols))}
  %acc = tensor.empty() : {_t((rows,))}
  %zeros = linalg.fill ins(%zero : f32) outs(%acc : {_t((rows,))}) -> {_t((rows,))}
{centre}{_row_sum("sumsq", source, rows, cols, True)}{_normalise("y", source, rows, cols, layer)}  return %y : {_t((rows, cols))}
}}
"""


def _softmax(shape: ReductionShape) -> str:
    x = _t(shape.dims)
    return f"""func.func @main(%x: {x}) -> {x} {{
  %empty = tensor.empty() : {x}
  %y = linalg.softmax dimension({len(shape.dims) - 1}) ins(%x : {x}) outs(%empty : {x}) -> {x}
  return %y : {x}
}}
"""


def _meanpool(shape: ReductionShape) -> str:
    n, c, h, w = shape.dims
    x, pooled = _t(shape.dims), _t((n, c))
    loops = "(d0, d1, d2, d3)"
    return f"""func.func @main(%x: {x}) -> {pooled} {{
  %zero = arith.constant 0.0 : f32
  %count = arith.constant {float(h * w)!r} : f32
  %empty = tensor.empty() : {pooled}
  %zeros = linalg.fill ins(%zero : f32) outs(%empty : {pooled}) -> {pooled}
  %sum = linalg.generic {{indexing_maps = [affine_map<{loops} -> (d0, d1, d2, d3)>, affine_map<{loops} -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}} ins(%x : {x}) outs(%zeros : {pooled}) {{
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  }} -> {pooled}
  %y = linalg.generic {{indexing_maps = [{_ROW}, {_ROW}], iterator_types = ["parallel", "parallel"]}} ins(%sum : {pooled}) outs(%empty : {pooled}) {{
  ^bb0(%in: f32, %out: f32):
    %m = arith.divf %in, %count : f32
    linalg.yield %m : f32
  }} -> {pooled}
  return %y : {pooled}
}}
"""


_SOURCES = {"layernorm": _norm, "rmsnorm": _norm, "softmax": _softmax, "meanpool": _meanpool}


def reduction_model(shape: ReductionShape) -> str:
    """MLIR source of `@main` computing `shape`'s reduction and its normalisation."""
    return _SOURCES[shape.kind](shape)
