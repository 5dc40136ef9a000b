"""Which problems may a held-out one be judged against? Splits that group problems for cross-validation.

Held out one problem at a time, a model is still trained on its near neighbours: the same layer at another batch,
the up- and down-projection of one MLP, a shape measured on two archs. That is not how it meets a new dispatch, and
it flatters: the sm_90 forest's cross-validation by problem claimed it typically found a candidate within 5 % of the
best first, and on shapes no record held it needed far more on the H100 (`docs/evaluation/honest-split.md`). The
honest split groups every problem with its neighbours (same op kind, a GEMM's kinds counted as one, and element
types, every role's size within `NEIGHBOUR_FACTOR` of each other): each fold holds out whole connected components of
that relation where there are at least two, else single problems, and in either case no model learns from a
neighbour of a problem it is scored on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from mltune.features import GEMM_KINDS
from mltune.frontend.problem import Problem

NEIGHBOUR_FACTOR = 2.0


def role_sizes(problem: Problem) -> tuple[int, ...]:
    """The product of each role's loop sizes: batch, M, N, K, and attention's K2 (1 where a role has no loop)."""
    return tuple(
        math.prod(problem.sizes(loops)) for loops in (problem.batch, problem.m, problem.n, problem.k, problem.k2)
    )


def _kind(problem: Problem) -> tuple[str, ...]:
    """A GEMM's op kinds count as one: one model may learn them together (`mltune.features.SIMT_GEMM`), so a 1x1
    convolution is the neighbour of a matmul of its sizes."""
    kind = "gemm" if problem.op_kind in GEMM_KINDS else problem.op_kind
    return (kind, problem.lhs_type, problem.rhs_type, problem.out_type, *problem.operand_types)


def neighbours(a: Problem, b: Problem, factor: float = NEIGHBOUR_FACTOR) -> bool:
    """Same op kind (a GEMM's kinds counted as one) and element types, and every role's size within `factor` of the
    other's."""
    return _kind(a) == _kind(b) and all(max(x, y) <= factor * min(x, y) for x, y in zip(role_sizes(a), role_sizes(b)))


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


def honest_groups(problems: Sequence[Problem]) -> list[int]:
    """Fold groups of the honest split: the neighbourhoods, or single problems where all form one neighbourhood."""
    groups = neighbourhood_groups(problems)
    return groups if len(set(groups)) >= 2 else problem_groups(problems)


def neighbours_of(problems: Sequence[Problem], held_out: Sequence[int]) -> set[int]:
    """The problems within `NEIGHBOUR_FACTOR` of any held-out one (themselves included): all kept out of training."""
    return {j for j, other in enumerate(problems) if any(neighbours(problems[i], other) for i in held_out)}


def can_hold_out(problems: Sequence[Problem]) -> bool:
    """Whether some problem has one that is not its neighbour to learn from: else no honest fold exists."""
    return any(not neighbours(a, b) for a in problems for b in problems)


@dataclass(frozen=True)
class Split:
    """How cross-validation folds are formed: the groups `GroupKFold` keeps together, and whether a fold's training
    also leaves out the neighbours of the problems it holds out."""

    groups: Callable[[Sequence[Problem]], list[int]]
    without_neighbours: bool


PER_PROBLEM = "per-problem"
HONEST = "honest"
HOLDOUT = "holdout"  # the problems a dataset keeps out of training for good (`holdout.json`)
SPLITS: dict[str, Split] = {PER_PROBLEM: Split(problem_groups, False), HONEST: Split(honest_groups, True)}
