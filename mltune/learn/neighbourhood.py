"""Which problems may a held-out one be judged against? Splits that group problems for cross-validation.

Held out one problem at a time, a model is still trained on its near neighbours: the same layer at another batch,
the up- and down-projection of one MLP, a shape measured on two archs. That is not how it meets a new dispatch,
and it flatters: on the H100 records a forest held out by problem needed 1 benchmark (median) where shapes that no
record came near needed 24. The honest split groups every problem with its neighbours (same op kind and element
types, every role's size within `NEIGHBOUR_FACTOR` of each other), transitively: each fold holds out whole
connected components of that relation, so no model is scored on a problem within 2x of one it learned from.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from mltune.problem import Problem

NEIGHBOUR_FACTOR = 2.0


def role_sizes(problem: Problem) -> tuple[int, ...]:
    """The product of each role's loop sizes: batch, M, N, K, and attention's K2 (1 where a role has no loop)."""
    return tuple(math.prod(problem.sizes(loops)) for loops in
                 (problem.batch, problem.m, problem.n, problem.k, problem.k2))


def _kind(problem: Problem) -> tuple[str, ...]:
    return (problem.op_kind, problem.lhs_type, problem.rhs_type, problem.out_type, *problem.operand_types)


def neighbours(a: Problem, b: Problem, factor: float = NEIGHBOUR_FACTOR) -> bool:
    """Same op kind and element types, and every role's size within `factor` of the other's."""
    return _kind(a) == _kind(b) and all(max(x, y) <= factor * min(x, y)
                                        for x, y in zip(role_sizes(a), role_sizes(b)))


def neighbourhood_groups(problems: Sequence[Problem], factor: float = NEIGHBOUR_FACTOR) -> list[int]:
    """A group id per problem: the connected component of the neighbour relation it belongs to."""
    n = len(problems)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if neighbours(problems[i], problems[j], factor)]
    rows = np.array([i for i, _ in pairs], dtype=np.int64)
    cols = np.array([j for _, j in pairs], dtype=np.int64)
    graph = csr_matrix((np.ones(len(pairs)), (rows, cols)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    return [int(label) for label in labels]


def problem_groups(problems: Sequence[Problem]) -> list[int]:
    """A group id per problem key: a shape measured on several archs (pooled) is held out on all at once."""
    ids: dict[str, int] = {}
    return [ids.setdefault(p.key, len(ids)) for p in problems]


Split = Callable[[Sequence[Problem]], list[int]]
SPLITS: dict[str, Split] = {"per-problem": problem_groups, "honest": neighbourhood_groups}
HONEST = "honest"
PER_PROBLEM = "per-problem"
