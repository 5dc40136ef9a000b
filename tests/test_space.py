"""`Space` (numpy evaluation of Z3 constraints) against Z3 itself, and the CPU contraction space."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
import z3

from iree_helpers import knobs_from_levels
from mltune.problem import Problem
from mltune.search.cpu_contraction import (ELEMENT_BYTES, MAX_VECTOR_TILE, MAX_WORKGROUP_TILE, VECTOR_BYTES_LIMIT_FACTOR,
                                           CpuContraction, cpu_contraction_space, tile_values)
from mltune.search.space import MAX_PRODUCT, Knob, Space, evaluate
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
    # synthetic: five knobs of 30 values each is over MAX_PRODUCT points
    space = Space([Knob(f"k{i}", tuple(range(30))) for i in range(5)], [])
    assert 30 ** 5 > MAX_PRODUCT
    with pytest.raises(ValueError, match="too large"):
        space.enumerate()


def test_empty_domain_is_rejected():
    with pytest.raises(ValueError):
        Knob("k", ())


# --- tile values and the CPU contraction space ---------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 7, 32, 48, 100, 300, 768, 1000, 3072])
@pytest.mark.parametrize("cap", [32, 64, 512, 1024])
def test_tile_values_are_powers_of_two_and_divisors(size, cap):
    values = tile_values(size, cap)
    assert list(values) == sorted(set(values))
    assert all(1 <= v <= cap for v in values)
    first_covering = 1 << (size - 1).bit_length()
    powers = {1 << e for e in range(31) if (1 << e) <= min(cap, first_covering)}
    divisors = {d for d in range(1, min(size, cap) + 1) if size % d == 0}
    assert set(values) == powers | divisors


def test_tile_values_examples():
    assert tile_values(100, 32) == (1, 2, 4, 5, 8, 10, 16, 20, 25, 32)
    assert tile_values(48, 1024) == (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)


def test_problem_fields(dumps):
    matmul, batch, nt = (dumps[n].problem for n in ("matmul", "batch_matmul", "matmul_nt_f16"))

    assert matmul.op_kind == "contraction" and matmul.op_name == "linalg.matmul"
    assert matmul.bounds == (100, 1000, 300)
    assert (matmul.batch, matmul.m, matmul.n, matmul.k) == ((), (0,), (1,), (2,))
    assert (matmul.lhs_type, matmul.rhs_type, matmul.out_type) == ("f32", "f32", "f32")
    assert matmul.layout == "nn"
    assert matmul.key == "contraction_100x1000x300_f32f32f32_nn"
    assert matmul.indexing_maps == ("affine_map<(d0, d1, d2) -> (d0, d2)>", "affine_map<(d0, d1, d2) -> (d2, d1)>",
                                    "affine_map<(d0, d1, d2) -> (d0, d1)>")

    assert batch.op_name == "linalg.batch_matmul"
    assert batch.bounds == (12, 128, 128, 64)
    assert (batch.batch, batch.m, batch.n, batch.k) == ((0,), (1,), (2,), (3,))
    assert batch.layout == "nn"
    assert batch.key == "contraction_12x128x128x64_f32f32f32_nn"

    assert nt.op_name == "linalg.matmul"
    assert nt.bounds == (128, 3072, 768)
    assert (nt.batch, nt.m, nt.n, nt.k) == ((), (0,), (1,), (2,))
    assert (nt.lhs_type, nt.rhs_type, nt.out_type) == ("f16", "f16", "f32")
    assert nt.layout == "nt"
    assert nt.indexing_maps[1] == "affine_map<(d0, d1, d2) -> (d1, d2)>"
    assert nt.key == "contraction_128x3072x768_f16f16f32_nt"

    tn = dumps["matmul_tn"].problem
    assert tn.bounds == (32, 48, 64)
    assert tn.indexing_maps[0] == "affine_map<(d0, d1, d2) -> (d2, d0)>"
    assert tn.layout == "tn"
    assert tn.key == "contraction_32x48x64_f32f32f32_tn"
    assert tn.key != dumps["tiny"].problem.key, "same sizes and types, different layout: a different key"


def test_problem_record_round_trip(dumps):
    for dumped in dumps.values():
        data = json.loads(json.dumps(dumped.problem.to_record()))
        assert Problem.from_record(data) == dumped.problem


def test_cpu_info_from_dump(dumps):
    cpu = dumps["matmul"].cpu
    assert cpu.arch and cpu.arch != "host", "the compiler resolves `host` to a CPU name"
    assert cpu.native_vector_bytes in (16, 32, 64)
    assert cpu.cores >= 1


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
    if cpu.native_vector_bytes == 64:  # AVX-512 hosts (this CI machine): the 32768-byte rule of DESIGN section 3
        assert limit == 32768
    # the vector rule (DESIGN section 3) on every row
    assert np.all(vec_m * vec_n * vec_k * ELEMENT_BYTES[problem.out_type] < limit)
    assert np.all(wg_m % vec_m == 0) and np.all(wg_n % vec_n == 0)
    (m,), (n,), (k,) = problem.sizes(problem.m), problem.sizes(problem.n), problem.sizes(problem.k)
    assert set(wg_m) <= set(tile_values(m, MAX_WORKGROUP_TILE["m"]))
    assert set(vec_k) <= set(tile_values(k, MAX_VECTOR_TILE["k"]))
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
    problem = Problem("contraction", "linalg.matmul", (6, 8, 6), (), (0,), (1,), (2,), "f32", "f32", "f32",
                      (), "nn")
    space = cpu_contraction_space(problem, CpuInfo("synthetic", 4, 2))
    rows = space.enumerate()
    assert {tuple(r) for r in rows.tolist()} == z3_solutions(space)
    assert np.all(rows[:, 2] * rows[:, 3] * rows[:, 4] * 4 < 2048)
    grid = np.array(list(itertools.product(*[k.domain for k in space.knobs])))
    divisible = (grid[:, 0] % grid[:, 2] == 0) & (grid[:, 1] % grid[:, 3] == 0)
    too_big = grid[:, 2] * grid[:, 3] * grid[:, 4] * 4 >= 2048
    assert np.any(divisible & too_big), "some points are excluded by the byte limit alone"
    assert len(rows) == int(np.sum(divisible & ~too_big))


@pytest.mark.parametrize("name", [
    pytest.param("matmul", marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
        "finding: IREE's default for f32 100x1000x300 (distribution [50, 50, 0], vector_common_parallel [5, 16, 0], "
        "vector_reduction [0, 0, 15]) has wg_n=50 not divisible by vec_n=16, which the space's `wg_n % vec_n == 0` "
        "rule (mltune/search/cpu_contraction.py) excludes"))),
    "batch_matmul",
    "matmul_nt_f16",
])
def test_iree_default_config_is_in_the_space(dumps, name):
    dumped = dumps[name]
    knobs = knobs_from_levels(dumped.problem, dumped.default_levels)
    space = cpu_contraction_space(dumped.problem, dumped.cpu)
    assert space.contains(knobs), f"IREE's default {dumped.default_levels} -> {knobs} is not in the space"
    candidates = CpuContraction(dumped.problem, dumped.cpu, None).candidates()
    assert candidates.index_of(knobs) is not None


def test_iree_default_for_the_projection_matmul(dumps):
    """Document the default this host's compiler picks (the xfail above depends on it)."""
    levels = dumps["matmul"].default_levels
    knobs = knobs_from_levels(dumps["matmul"].problem, levels)
    assert set(levels) == {"distribution", "vector_common_parallel", "vector_reduction"}
    assert levels["vector_reduction"][:2] == [0, 0] and levels["distribution"][2] == 0
    # each knob value is in its own domain: only the divisibility rule excludes the default
    space = cpu_contraction_space(dumps["matmul"].problem, dumps["matmul"].cpu)
    for knob in space.knobs:
        assert knobs[knob.name] in knob.domain, (knob.name, knobs[knob.name])


@pytest.mark.xfail(strict=True, raises=ValueError, reason=(
    "finding: a 1680x1680x1680 matmul has 24M points before constraints (> MAX_PRODUCT), so "
    "Space.enumerate raises ValueError; `mltune tune` on such a model ends in a traceback, not a one-line error"))
def test_highly_composite_sizes_enumerate():
    # synthetic problem; the size has many divisors, so every knob's domain is large
    problem = Problem("contraction", "linalg.matmul", (1680, 1680, 1680), (), (0,), (1,), (2,), "f32", "f32", "f32",
                      (), "nn")
    candidates = CpuContraction(problem, CpuInfo("synthetic", 64, 2), None).candidates()
    assert len(candidates) > 0
