"""A configuration space: named knobs with finite domains, constrained by Z3 formulas.

The constraints are Z3 expressions, so they can be checked, combined and solved by Z3
(`Space.solver`). Enumerating every solution one Z3 model at a time with blocking clauses
is slow (tens of seconds for a few thousand solutions), so `Space.enumerate` evaluates the
same Z3 expression trees over the Cartesian product of the domains with numpy instead, knob by
knob: every solution Z3 would accept, in a fixed order, in milliseconds.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import reduce
from typing import Callable, Mapping, Sequence

import numpy as np
import z3

CHUNK = 1 << 22  # points of the Cartesian product evaluated at once
MAX_PRODUCT = 1 << 31  # beyond this a space is too large to enumerate at all


@dataclass(frozen=True)
class Knob:
    """One tunable integer and the values it may take."""

    name: str
    domain: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.domain:
            raise ValueError(f"knob {self.name} has an empty domain")


_BINARY: dict[int, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    z3.Z3_OP_LE: operator.le,
    z3.Z3_OP_LT: operator.lt,
    z3.Z3_OP_GE: operator.ge,
    z3.Z3_OP_GT: operator.gt,
    z3.Z3_OP_EQ: operator.eq,
    z3.Z3_OP_SUB: operator.sub,
    z3.Z3_OP_IMPLIES: lambda a, b: np.logical_or(np.logical_not(a), b),
}
_VARIADIC: dict[int, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    z3.Z3_OP_ADD: operator.add,
    z3.Z3_OP_MUL: operator.mul,
    z3.Z3_OP_AND: np.logical_and,
    z3.Z3_OP_OR: np.logical_or,
}


def _z3_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """SMT-LIB `mod`: Euclidean, and unconstrained for a zero divisor (taken as `a` here)."""
    safe = np.where(b == 0, 1, b)
    return np.where(b == 0, a, np.mod(a, np.abs(safe)))


def _z3_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """SMT-LIB `div`: Euclidean division, so that a = b * div(a, b) + mod(a, b)."""
    safe = np.where(b == 0, 1, b)
    return np.where(b == 0, 0, (a - _z3_mod(a, safe)) // safe)


def evaluate(
    expr: z3.ExprRef, columns: Mapping[str, np.ndarray], cache: dict[int, np.ndarray] | None = None
) -> np.ndarray:
    """Evaluate an integer/boolean Z3 expression elementwise over numpy columns, one per variable.

    Shared subexpressions (IREE's emitted constraints repeat them through `let`) are evaluated
    once per call through `cache`, keyed by Z3's AST id.
    """
    cache = {} if cache is None else cache
    key = expr.get_id()
    if key not in cache:
        cache[key] = _evaluate(expr, columns, cache)
    return cache[key]


def _evaluate(expr: z3.ExprRef, columns: Mapping[str, np.ndarray], cache: dict[int, np.ndarray]) -> np.ndarray:
    kind = expr.decl().kind()
    if z3.is_int_value(expr):
        return np.int64(expr.as_long())
    if z3.is_true(expr) or z3.is_false(expr):
        return np.bool_(z3.is_true(expr))
    if kind == z3.Z3_OP_UNINTERPRETED and expr.num_args() == 0:
        return columns[expr.decl().name()]
    args = [evaluate(child, columns, cache) for child in expr.children()]
    if kind in _VARIADIC:
        return reduce(_VARIADIC[kind], args)
    if kind in _BINARY:
        return _BINARY[kind](*args)
    if kind == z3.Z3_OP_NOT:
        return np.logical_not(args[0])
    if kind == z3.Z3_OP_UMINUS:
        return -args[0]
    if kind == z3.Z3_OP_ITE:
        return np.where(*args)
    if kind == z3.Z3_OP_MOD:
        return _z3_mod(*args)
    if kind == z3.Z3_OP_IDIV:
        return _z3_div(*args)
    if kind == z3.Z3_OP_DISTINCT:
        return reduce(np.logical_and, [args[i] != args[j] for i in range(len(args)) for j in range(i + 1, len(args))])
    raise NotImplementedError(f"Z3 operator {expr.decl().name()} in {expr}")


def _variables(expr: z3.ExprRef, seen: dict[int, frozenset[str]] | None = None) -> frozenset[str]:
    """The names of the variables an expression uses (shared subexpressions visited once)."""
    seen = {} if seen is None else seen
    key = expr.get_id()
    if key not in seen:
        if z3.is_const(expr) and expr.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            seen[key] = frozenset({expr.decl().name()})
        else:
            seen[key] = frozenset().union(*[_variables(child, seen) for child in expr.children()])
    return seen[key]


def _satisfying(columns: dict[str, np.ndarray], constraints: Sequence[z3.BoolRef]) -> dict[str, np.ndarray]:
    """The rows of `columns` that satisfy every constraint; once most rows fail, the remaining constraints are
    evaluated on the survivors only (cheap, selective constraints first make this fast)."""
    size = len(next(iter(columns.values())))
    valid = np.ones(size, dtype=bool)
    cache: dict[int, np.ndarray] = {}
    for constraint in constraints:
        valid &= np.broadcast_to(evaluate(constraint, columns, cache), valid.shape)
        if 2 * np.count_nonzero(valid) < valid.size:  # most rows are out: go on with the rest only
            columns = {name: column[valid] for name, column in columns.items()}
            valid, cache = np.ones(np.count_nonzero(valid), dtype=bool), {}
    return {name: column[valid] for name, column in columns.items()}


class Space:
    """Knobs with finite domains and Z3 constraints over them; the valid points are the solutions."""

    def __init__(self, knobs: Sequence[Knob], constraints: Sequence[z3.BoolRef]):
        self.knobs = tuple(knobs)
        self.variables = {knob.name: z3.Int(knob.name) for knob in self.knobs}
        self.constraints = tuple(constraints)

    def var(self, name: str) -> z3.ArithRef:
        return self.variables[name]

    def domain_constraints(self) -> list[z3.BoolRef]:
        return [z3.Or([self.variables[knob.name] == value for value in knob.domain]) for knob in self.knobs]

    def solver(self) -> z3.Solver:
        """A Z3 solver holding the whole space: domains and constraints."""
        solver = z3.Solver()
        solver.add(*self.domain_constraints(), *self.constraints)
        return solver

    def contains(self, point: Mapping[str, int]) -> bool:
        """Ask Z3 whether an assignment is in the space (unknown is an error, never a 'no')."""
        solver = self.solver()
        solver.add(*[self.variables[name] == value for name, value in point.items()])
        verdict = solver.check()
        if verdict == z3.unknown:
            raise RuntimeError(f"Z3 returned unknown: {solver.reason_unknown()}")
        return verdict == z3.sat

    def admits(self, point: Mapping[str, int]) -> bool:
        """Whether an assignment of every knob is a point of the space, evaluated as `enumerate` does."""
        if any(point[knob.name] not in knob.domain for knob in self.knobs):
            return False
        columns = {knob.name: np.array([point[knob.name]], dtype=np.int64) for knob in self.knobs}
        return bool(len(_satisfying(columns, self.constraints)[self.knobs[0].name]))

    def enumerate(self) -> np.ndarray:
        """Every solution, one row per point and one column per knob, in domain (lexicographic) order.

        The points are built one knob at a time (each new knob varying fastest, which keeps the order), and each
        constraint is evaluated as soon as every knob it names has its values: the partial points it rejects are
        never crossed with the later knobs' domains. Each step is taken in chunks, so memory stays bounded.
        """
        shape = tuple(len(k.domain) for k in self.knobs)
        if int(np.prod(shape, dtype=np.int64)) > MAX_PRODUCT:
            raise ValueError(
                f"space too large to enumerate ({int(np.prod(shape, dtype=np.int64))} points before constraints)"
            )
        if not self.knobs:
            return np.empty((0, 0), dtype=np.int64)
        pending = [(constraint, _variables(constraint)) for constraint in self.constraints]
        columns: dict[str, np.ndarray] = {}
        count, bound = 1, set()
        for knob in self.knobs:
            bound.add(knob.name)
            ready = [constraint for constraint, names in pending if names <= bound]
            pending = [(constraint, names) for constraint, names in pending if not names <= bound]
            domain = np.asarray(knob.domain, dtype=np.int64)
            step = max(1, CHUNK // len(domain))
            pieces = []
            for start in range(0, count, step):
                rows = min(step, count - start)
                part = {name: np.repeat(column[start : start + rows], len(domain)) for name, column in columns.items()}
                part[knob.name] = np.tile(domain, rows)
                pieces.append(_satisfying(part, ready))
            if not pieces:  # no partial point left
                return np.empty((0, len(self.knobs)), dtype=np.int64)
            columns = {name: np.concatenate([piece[name] for piece in pieces]) for name in pieces[0]}
            count = len(columns[knob.name])
        return np.stack([columns[k.name] for k in self.knobs], axis=1)

    def points(self) -> list[dict[str, int]]:
        names = [k.name for k in self.knobs]
        return [dict(zip(names, map(int, row))) for row in self.enumerate()]
