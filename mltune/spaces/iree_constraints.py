"""IREE's own SMT constraints for a dispatch (`--iree-codegen-emit-pipeline-constraints`), as Z3.

On GPU targets the compiler can describe which configurations its pipelines accept as
`iree_codegen.smt.constraints` ops (one per pipeline). Conjoining them with mltune's own
model keeps the space in step with the compiler: what the compiler knows to reject is never
enumerated. They exist for matmuls and convolutions, not for every op (batch matmul on
ROCm crashes the compiler in 3.13), so they are optional. Their loop knobs are numbered in the loop nest of
the op the compiler configured when it recompiles the dump from the start, which may differ from the dispatch's
(`emitted_loops.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import z3
from iree.compiler import ir
from iree.compiler.dialects import iree_codegen, linalg

from mltune.frontend.mlir import find_ops, parse_module_file
from mltune.system.tools import run_compiler, tool_path

EMIT_TIMEOUT_S = 120


@dataclass(frozen=True)
class EmittedConstraints:
    """One pipeline's constraints: Z3 assertions over IREE's knob names, and its MMA choices in order."""

    pipeline: str  # e.g. TileAndFuse
    assertions: tuple[z3.BoolRef, ...]
    mma_choices: tuple[str, ...]  # the `mma_idx` one_of list
    knobs_text: str  # the printed `knobs` dictionary: which lowering-config entries are knobs
    # the role (batch, m, n or k) of each loop of the op the constraints were emitted for; () unless a contraction
    loop_roles: tuple[str, ...] = ()

    def variables(self) -> set[str]:
        return set().union(*(variables_of(assertion) for assertion in self.assertions))

    def over(self, names: dict[str, z3.ArithRef], bounds: Sequence[int]) -> list[z3.BoolRef]:
        """The assertions rewritten over mltune's knobs: `names` gives an expression for each of IREE's knobs,
        `bounds` the loop bounds (IREE's `problem_dim_<i>`)."""
        names = {**names, **{f"problem_dim_{i}": z3.IntVal(size) for i, size in enumerate(bounds)}}
        used = self.variables()
        unknown = used - set(names)
        if unknown:
            raise ValueError(f"IREE's {self.pipeline} constraints use unknown variables {sorted(unknown)}")
        pairs = [(z3.Int(name), expr) for name, expr in names.items() if name in used]
        return [z3.substitute(assertion, *pairs) for assertion in self.assertions]

    def without(self, unwanted: Callable[[z3.BoolRef, set[str]], bool]) -> "EmittedConstraints":
        """These constraints less the assertions for which `unwanted(assertion, its variables)` holds."""
        kept = [assertion for assertion in self.assertions if not unwanted(assertion, variables_of(assertion))]
        return replace(self, assertions=tuple(kept))

    def renamed(self, pairs: Sequence[tuple[z3.ArithRef, z3.ArithRef]]) -> "EmittedConstraints":
        """These constraints with each (variable, expression) pair substituted at once."""
        return replace(
            self,
            assertions=tuple(z3.substitute(assertion, *pairs) if pairs else assertion for assertion in self.assertions),
        )


def pins_prefetch(assertion: z3.BoolRef, variables: set[str]) -> bool:
    """IREE's "prefetch_num_stages == 2", which its own IGEMM and VectorDistribute defaults do not follow."""
    return variables == {"prefetch_num_stages"}


def divides_size(size: int, loop: int, knob: str) -> Callable[[z3.BoolRef, set[str]], bool]:
    """IREE's "<a loop's size> must be divisible by <a tile made of `knob`>", as `size % tile == 0` with the size as
    `problem_dim_<loop>` or as the number itself."""

    def unwanted(assertion: z3.BoolRef, variables: set[str]) -> bool:
        if not (
            z3.is_eq(assertion)
            and z3.is_int_value(assertion.arg(1))
            and assertion.arg(1).as_long() == 0
            and z3.is_mod(assertion.arg(0))
        ):
            return False
        dividend, tile = assertion.arg(0).arg(0), assertion.arg(0).arg(1)
        is_size = str(dividend) == f"problem_dim_{loop}" or (z3.is_int_value(dividend) and dividend.as_long() == size)
        return is_size and knob in variables_of(tile)

    return unwanted


def variables_of(expr: z3.ExprRef) -> set[str]:
    """The names of the uninterpreted constants (IREE's knobs and problem dims) in `expr`."""
    found: set[str] = set()
    _collect(expr, found)
    return found


def _collect(expr: z3.ExprRef, found: set[str]) -> None:
    if z3.is_const(expr) and expr.decl().kind() == z3.Z3_OP_UNINTERPRETED:
        found.add(expr.decl().name())
    for child in expr.children():
        _collect(child, found)


def _constraint_ops(module: ir.Module) -> list[ir.Operation]:
    return find_ops(module, lambda op: op.name == "iree_codegen.smt.constraints")


def _root_set(attribute: ir.Attribute) -> str:
    """The root-op set a `root_op` attribute or a constraints op's `target` names."""
    found = re.search(r"set = (\d+)", str(attribute))
    return found.group(1) if found else ""


def _loop_roles(module: ir.Module, constraints: ir.Operation) -> tuple[str, ...]:
    """Each loop's role in the contraction the constraints op describes (its root op of the same set); () otherwise."""
    wanted = _root_set(constraints.attributes["target"])
    roots = [op for op in iree_codegen.get_tuner_root_ops(module) if _root_set(op.attributes["root_op"]) == wanted]
    if len(roots) != 1 or not linalg.isa_contraction_op(roots[0]) or "indexing_maps" not in roots[0].attributes:
        return ()
    dims = linalg.infer_contraction_dimensions(roots[0])
    roles = [""] * roots[0].attributes["indexing_maps"][0].value.n_dims
    for role in ("batch", "m", "n", "k"):
        for loop in getattr(dims, role):
            roles[loop] = role
    return tuple(roles)


def emit_constraints(stripped_bench: Path, work_dir: Path, context: ir.Context) -> list[EmittedConstraints]:
    """Run the compiler on a stripped dispatch benchmark; [] where it emits nothing or fails."""
    out = work_dir / f"{stripped_bench.stem}.constraints.mlir"
    result = run_compiler(
        [
            tool_path("iree-compile"),
            str(stripped_bench),
            "--iree-codegen-emit-pipeline-constraints",
            "--compile-to=executable-configurations",
            "-o",
            str(out),
        ],
        timeout_s=EMIT_TIMEOUT_S,
    )
    if not result.ok:
        return []
    module = parse_module_file(out, context)
    emitted = []
    with context:
        for op in _constraint_ops(module):
            pipeline = re.search(r"pipeline<(\w+)>", str(op.attributes["pipeline"]))
            mmas = re.search(r'one_of_knob<"mma_idx", \[([^\]]*)\]', str(op.attributes["knobs"]))
            names = tuple(re.findall(r"mma_layout<(\w+)>", mmas.group(1))) if mmas else ()
            assertions = tuple(z3.parse_smt2_string(iree_codegen.convert_constraints_op_to_smtlib(op)))
            emitted.append(
                EmittedConstraints(
                    pipeline.group(1) if pipeline else "",
                    assertions,
                    names,
                    str(op.attributes["knobs"]),
                    _loop_roles(module, op),
                )
            )
    return emitted
