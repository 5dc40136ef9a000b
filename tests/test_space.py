"""`Space` (numpy evaluation of Z3 constraints) against Z3 itself, and the CPU contraction space."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
import z3
from iree_helpers import knobs_from_levels

from mltune.frontend.problem import Problem
from mltune.spaces.cpu_contraction import (
    ELEMENT_BYTES,
    MAX_VECTOR_TILE,
    MAX_WORKGROUP_TILE,
    VECTOR_BYTES_LIMIT_FACTOR,
    CpuContraction,
    cpu_contraction_space,
    vector_tile_values,
    workgroup_tile_values,
)
from mltune.spaces.space import MAX_PRODUCT, Knob, Space, evaluate
from mltune.targets.cpu import CpuInfo

KNOB_NAMES = ["wg_m", "wg_n", "vec_m", "vec_n", "vec_k"]


def z3_solutions(space: Space) -> set[tuple[int, ...]]:
    """Every solution as Z3 itself finds them: one model at a time, blocking each one found."""
    solver = space.solver()
    variables = [space.var(k.name) for k in space.knobs]
    found = set()
    while True:
        verdict = solver.check()
        assert verdict != z3.unknown, solver.reason_unknown()
        if verdict == z3.unsat:
            return found
        model = solver.model()
        point = tuple(model.eval(v, model_completion=True).as_long() for v in variables)
        found.add(point)
        solver.add(z3.Or([v != value for v, value in zip(variables, point)]))


def synthetic_space() -> Space:
    # synthetic: a small space with negative values, exercising every operator evaluate() supports
    space = Space([Knob("a", tuple(range(-6, 7))), Knob("b", (-4, -3, -1, 1, 2, 3, 5)), Knob("c", (-2, 0, 1, 4))], [])
    a, b, c = space.var("a"), space.var("b"), space.var("c")
    space.constraints = (
        z3.Or(a % b == 0, c < 0, a / b == -2),
        a * c < 9,
        z3.If(a > 0, b <= 3, b >= -3) == z3.Not(c == 1),
        z3.Not(z3.And(a == 0, c == 4)),
        z3.Implies(b == 5, a - c >= -3),
        -a + b * 2 > -12,
        z3.Distinct(a, b, c),
        z3.If(c > 0, a + c, a - c) <= 7,
    )
    return space


def test_enumerate_equals_z3_enumeration():
    space = synthetic_space()
    rows = space.enumerate()
    ours = {tuple(int(v) for v in row) for row in rows}
    theirs = z3_solutions(space)
    assert len(theirs) > 20, "the synthetic space should have a fair number of solutions"
    assert len(theirs) < 13 * 7 * 4, "the constraints should exclude some points"
    assert ours == theirs
    assert len(ours) == len(rows), "enumerate must not repeat a point"
    # domain (lexicographic) order, as documented
    assert [tuple(r) for r in rows.tolist()] == sorted(tuple(r) for r in rows.tolist())


def test_points_are_dicts_of_plain_ints():
    space = synthetic_space()
    points = space.points()
    assert len(points) == len(space.enumerate())
    assert all(set(p) == {"a", "b", "c"} and all(type(v) is int for v in p.values()) for p in points)
    json.dumps(points)  # plain values: usable in records


@pytest.mark.parametrize("op", ["mod", "div"])
def test_evaluate_mod_div_match_z3_for_negative_numbers(op):
    # synthetic: every pair of small integers, negative ones included (zero divisors excluded: Z3 leaves them free)
    values = [v for v in range(-9, 10)]
    pairs = [(x, y) for x in values for y in values if y != 0]
    xs = np.array([p[0] for p in pairs], dtype=np.int64)
    ys = np.array([p[1] for p in pairs], dtype=np.int64)
    x, y = z3.Ints("x y")
    expr = x % y if op == "mod" else x / y
    ours = evaluate(expr, {"x": xs, "y": ys})
    theirs = [z3.simplify(z3.substitute(expr, (x, z3.IntVal(p)), (y, z3.IntVal(q)))).as_long() for p, q in pairs]
    assert ours.tolist() == theirs
    # sanity: this really covers the cases where Euclidean and truncating/floor division differ
    assert evaluate(x % y, {"x": np.array([-7]), "y": np.array([-2])}).tolist() == [1]
    assert evaluate(x / y, {"x": np.array([-7]), "y": np.array([2])}).tolist() == [-4]
    assert evaluate(x / y, {"x": np.array([7]), "y": np.array([-2])}).tolist() == [-3]


def test_evaluate_rejects_unsupported_operators():
    x, y = z3.Ints("x y")
    with pytest.raises(NotImplementedError):
        evaluate(z3.Xor(x > 0, y > 0), {"x": np.arange(3), "y": np.arange(3)})


def test_contains():
    space = synthetic_space()
    points = {tuple(p.values()) for p in space.points()}
    names = [k.name for k in space.knobs]
    domain = itertools.product(*[k.domain for k in space.knobs])
    for point in domain:
        assert space.contains(dict(zip(names, point))) == (point in points)
    assert not space.contains({"a": 100, "b": 1, "c": -2}), "a value outside the knob's domain"
    assert space.contains({"a": 2}), "a partial assignment that some solution extends"


def test_constant_constraints():
    # synthetic
    space = Space([Knob("a", (1, 2, 3)), Knob("b", (4, 5))], [z3.BoolVal(True)])
    assert space.enumerate().shape == (6, 2)
    space.constraints = (z3.BoolVal(True), z3.BoolVal(False))
    assert space.enumerate().shape == (0, 2)
    assert z3_solutions(space) == set()


def test_enumerate_refuses_a_huge_product():
    # synthetic: six knobs of 50 values each is over MAX_PRODUCT points
    space = Space([Knob(f"k{i}", tuple(range(50))) for i in range(6)], [])
    assert 50**6 > MAX_PRODUCT
    with pytest.raises(ValueError, match="too large"):
        space.enumerate()


def test_empty_domain_is_rejected():
    with pytest.raises(ValueError):
        Knob("k", ())


# --- tile values and the CPU contraction space ---------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 7, 32, 48, 100, 300, 768, 1000, 3072])
@pytest.mark.parametrize("cap", [32, 64, 512, 1024])
def test_tile_values_are_powers_of_two_even_splits_and_exact_divisors(size, cap):
    first_covering = 1 << (size - 1).bit_length()
    powers = {1 << e for e in range(31) if (1 << e) <= min(cap, first_covering)}
    workgroup = workgroup_tile_values(size, cap)
    assert list(workgroup) == sorted(set(workgroup)) and all(1 <= v <= cap for v in workgroup)
    assert set(workgroup) == powers | {size // p for p in range(1, 65) if size % p == 0 and size // p <= cap}
    vector = vector_tile_values(size, cap)
    assert list(vector) == sorted(set(vector)) and all(1 <= v <= cap for v in vector)
    pow2_factor = size & -size  # a power of two up to this divides size exactly already
    assert set(vector) == powers | {d for d in range(pow2_factor + 1, min(size, cap) + 1) if size % d == 0}


def test_tile_values_examples():
    assert workgroup_tile_values(100, 512) == (1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100, 128)
    assert vector_tile_values(300, 64) == (1, 2, 4, 5, 6, 8, 10, 12, 15, 16, 20, 25, 30, 32, 50, 60, 64)


@pytest.mark.parametrize("name", ["matmul", "batch_matmul", "matmul_nt_f16"])
def test_cpu_contraction_space_agrees_with_z3(dumps, name):
    dumped = dumps[name]
    problem, cpu = dumped.problem, dumped.cpu
    space = cpu_contraction_space(problem, cpu)
    assert [k.name for k in space.knobs] == KNOB_NAMES
    rows = space.enumerate()
    assert len(rows) > 100
    wg_m, wg_n, vec_m, vec_n, vec_k = rows.T
    limit = cpu.native_vector_bytes * VECTOR_BYTES_LIMIT_FACTOR
    if (
        cpu.native_vector_bytes == 64
    ):  # AVX-512 hosts (this CI machine): the 32768-byte rule (`mltune/spaces/cpu_contraction.py`)
        assert limit == 32768
    # the vector rule (`mltune/spaces/cpu_contraction.py`) on every row
    assert np.all(vec_m * vec_n * vec_k * ELEMENT_BYTES[problem.out_type] < limit)
    assert np.all(vec_m <= wg_m) and np.all(vec_n <= wg_n)
    (m,), (_n,), (k,) = problem.sizes(problem.m), problem.sizes(problem.n), problem.sizes(problem.k)
    assert set(wg_m) <= set(workgroup_tile_values(m, MAX_WORKGROUP_TILE["m"]))
    assert set(vec_k) <= set(vector_tile_values(k, MAX_VECTOR_TILE["k"]))
    # Z3 accepts a sample of the enumerated points ...
    rng = np.random.default_rng(0)
    for row in rows[rng.choice(len(rows), size=25, replace=False)]:
        assert space.contains(dict(zip(KNOB_NAMES, map(int, row))))
    # ... and rejects a sample of the domain's points that enumerate() left out
    enumerated = {tuple(r) for r in rows.tolist()}
    rejected = 0
    domains = [k.domain for k in space.knobs]
    while rejected < 25:
        point = tuple(int(rng.choice(d)) for d in domains)
        if point not in enumerated:
            assert not space.contains(dict(zip(KNOB_NAMES, point))), point
            rejected += 1


def test_small_cpu_space_equals_z3_enumeration():
    # synthetic: a small 6x8x6 f32 problem on a CPU with 4-byte vectors, so the byte limit (4 * 512) bites
    problem = Problem("contraction", "linalg.matmul", (6, 8, 6), (), (0,), (1,), (2,), "f32", "f32", "f32", (), "nn")
    space = cpu_contraction_space(problem, CpuInfo("synthetic", 4, 2))
    rows = space.enumerate()
    assert {tuple(r) for r in rows.tolist()} == z3_solutions(space)
    assert np.all(rows[:, 2] * rows[:, 3] * rows[:, 4] * 4 < 2048)
    grid = np.array(list(itertools.product(*[k.domain for k in space.knobs])))
    fits = (grid[:, 2] <= grid[:, 0]) & (grid[:, 3] <= grid[:, 1])
    too_big = grid[:, 2] * grid[:, 3] * grid[:, 4] * 4 >= 2048
    assert np.any(fits & too_big), "some points are excluded by the byte limit alone"
    assert len(rows) == int(np.sum(fits & ~too_big))


@pytest.mark.parametrize(
    "name",
    [
        "matmul",
        "batch_matmul",
        "matmul_nt_f16",
    ],
)
def test_iree_default_config_is_in_the_space(dumps, name):
    dumped = dumps[name]
    knobs = knobs_from_levels(dumped.problem, dumped.default_levels)
    space = cpu_contraction_space(dumped.problem, dumped.cpu)
    assert space.contains(knobs), f"IREE's default {dumped.default_levels} -> {knobs} is not in the space"
    candidates = CpuContraction(dumped.problem, dumped.cpu, None).candidates()
    assert candidates.index_of(knobs) is not None


def test_iree_default_for_the_projection_matmul(dumps):
    """Document the default this host's compiler picks: a vector tile that does not divide the workgroup tile."""
    levels = dumps["matmul"].default_levels
    knobs = knobs_from_levels(dumps["matmul"].problem, levels)
    # some hosts (znver3) add a cache_parallel level; the three levels mltune sets are always there
    assert {"distribution", "vector_common_parallel", "vector_reduction"} <= set(levels)
    assert levels["vector_reduction"][:2] == [0, 0] and levels["distribution"][2] == 0
    # each knob value is in its own domain
    space = cpu_contraction_space(dumps["matmul"].problem, dumps["matmul"].cpu)
    for knob in space.knobs:
        assert knobs[knob.name] in knob.domain, (knob.name, knobs[knob.name])


def test_highly_composite_sizes_enumerate():
    # synthetic problem; the size has many divisors, so every knob's domain is large
    problem = Problem(
        "contraction", "linalg.matmul", (1680, 1680, 1680), (), (0,), (1,), (2,), "f32", "f32", "f32", (), "nn"
    )
    candidates = CpuContraction(problem, CpuInfo("synthetic", 64, 2), None).candidates()
    assert len(candidates) > 0
