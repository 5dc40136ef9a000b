"""IREE's emitted constraints renumbered into the problem's loops.

The compiler emits a dispatch's constraints while it recompiles the stripped benchmark, and there it may configure
another loop nest than the one the dispatch holds when the model compiles (where a spec or an annotation configures
it, and from which the problem was read). IREE 3.13's `GPUCombineLayoutTransformation` rewrites a batch matmul with
a unit batch (loops batch 1, M, N, K) into a contraction of five loops, the unit batch split into a unit M loop and a
unit K loop (1, M, N, 1, K); its knobs `wg_<i>`, `sg_<i>`, `red_<i>` and `problem_dim_<i>` then name other loops than
the problem's. Each emitted loop is paired with the problem's loop of the same role and size, and its knobs renamed
to that loop's; an emitted unit loop without one is pinned to 1 (its size, and the only tile it has). (Compiled from
the phase it was dumped at, as mltune builds a dump's candidates, the dispatch keeps its own four loops, but IREE 3.13
crashes emitting constraints for them.)
"""

from __future__ import annotations

import re

import z3

from mltune.frontend.problem import Problem
from mltune.spaces.iree_constraints import EmittedConstraints

LOOP_KNOB = re.compile(r"(wg|sg|red|problem_dim)_(\d+)")
ROLES = ("batch", "m", "n", "k")


def emitted_bounds(emitted: EmittedConstraints) -> dict[int, int]:
    """The emitted loops' sizes, from IREE's own `problem_dim_<i> == size` assertions."""
    bounds = {}
    for assertion in emitted.assertions:
        if z3.is_eq(assertion) and z3.is_int_value(assertion.arg(1)):
            match = LOOP_KNOB.fullmatch(str(assertion.arg(0)))
            if match and match.group(1) == "problem_dim":
                bounds[int(match.group(2))] = assertion.arg(1).as_long()
    return bounds


def loop_pairs(emitted: EmittedConstraints, problem: Problem) -> dict[int, int | None]:
    """For each emitted loop, the problem's loop of the same role and size (in order), or None for a unit loop the
    problem lacks; a ValueError where a loop that is not a unit has no counterpart."""
    bounds = emitted_bounds(emitted)
    free = {role: list(getattr(problem, role)) for role in ROLES}
    pairs: dict[int, int | None] = {}
    for loop, role in enumerate(emitted.loop_roles):
        size = bounds.get(loop)
        same = [p for p in free.get(role, []) if problem.bounds[p] == size]
        if same:
            pairs[loop] = same[0]
            free[role].remove(same[0])
        elif size == 1:
            pairs[loop] = None
        else:
            shape = [f"{r}{bounds.get(i)}" for i, r in enumerate(emitted.loop_roles)]
            raise ValueError(
                f"IREE's {emitted.pipeline} constraints are over loops {shape}, which do not match the "
                f"dispatch's {list(problem.bounds)}"
            )
    return pairs


def in_problem_loops(emitted: EmittedConstraints, problem: Problem) -> EmittedConstraints:
    """The constraints with their loop knobs renamed to the problem's loops; `emitted` itself where the emitted op is
    not a contraction, or is the problem's own loop nest."""
    if not emitted.loop_roles or problem.op_kind not in ("contraction", "matvec"):
        return emitted
    pairs = loop_pairs(emitted, problem)
    renames = []
    for name in sorted(emitted.variables()):
        match = LOOP_KNOB.fullmatch(name)
        if match and int(match.group(2)) in pairs and pairs[int(match.group(2))] != int(match.group(2)):
            target = pairs[int(match.group(2))]
            renames.append((z3.Int(name), z3.IntVal(1) if target is None else z3.Int(f"{match.group(1)}_{target}")))
    return emitted.renamed(renames) if renames else emitted
