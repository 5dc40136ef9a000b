"""One-op models of the elementwise ops models dispatch alone, written as PyTorch exports reach IREE: a bias add
(transposed into or out of attention's heads, or not), an activation after it (GELU, SiLU), and an embedding gather
with its position embedding. Each is `func.func @main` of one `linalg.generic` whose loops are all parallel."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Operand:
    """An operand of the generic: its indexing map's results over the loops `d0, d1, ...` and its tensor type."""

    dims: str
    type: str


BIAS_ADD = """  ^bb0(%x: f32, %b: f32, %o: f32):
    %y = arith.addf %x, %b : f32
    linalg.yield %y : f32"""
BIAS_GELU = """  ^bb0(%x: f32, %b: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.70710678 : f32
    %v = arith.addf %x, %b : f32
    %z = arith.mulf %v, %rsqrt2 : f32
    %erf = math.erf %z : f32
    %p = arith.addf %erf, %one : f32
    %q = arith.mulf %p, %half : f32
    %y = arith.mulf %q, %v : f32
    linalg.yield %y : f32"""
BIAS_SILU = """  ^bb0(%x: f32, %b: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %v = arith.addf %x, %b : f32
    %n = arith.negf %v : f32
    %exp = math.exp %n : f32
    %d = arith.addf %exp, %one : f32
    %y = arith.divf %v, %d : f32
    linalg.yield %y : f32"""


def gather_body(table: str) -> str:
    """An embedding lookup of `%table` (rows x hidden, an argument of `@main`) by the first operand's ids, plus the
    second operand (the position embedding)."""
    return f"""  ^bb0(%id: i64, %p: f32, %o: f32):
    %col = linalg.index 1 : index
    %row = arith.index_cast %id : i64 to index
    %w = tensor.extract %table[%row, %col] : {table}
    %y = arith.addf %w, %p : f32
    linalg.yield %y : f32"""


def elementwise_model(ins: list[Operand], out: Operand, body: str, table: str = "") -> str:
    """`@main` computing one parallel `linalg.generic` of `ins` into `out` with `body`; `table`: the type of a
    `%table` argument the body reads without it being an operand (a gather's)."""
    loops = max(len(operand.dims.split(",")) for operand in [*ins, out])
    dims = ", ".join(f"d{i}" for i in range(loops))
    maps = ", ".join(f"affine_map<({dims}) -> ({operand.dims})>" for operand in [*ins, out])
    args = ", ".join([f"%table: {table}"] * bool(table) + [f"%a{i}: {operand.type}" for i, operand in enumerate(ins)])
    operands = ", ".join(f"%a{i}" for i in range(len(ins)))
    types = ", ".join(operand.type for operand in ins)
    iterators = ", ".join(['"parallel"'] * loops)
    return f"""func.func @main({args}) -> {out.type} {{
  %e = tensor.empty() : {out.type}
  %r = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{iterators}]}}
      ins({operands} : {types}) outs(%e : {out.type}) {{
{body}
  }} -> {out.type}
  return %r : {out.type}
}}
"""
