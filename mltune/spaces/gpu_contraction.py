"""The GPU space for contractions (matmul, batch matmul, transposed operands) on ROCm and CUDA, over
IREE's two MMA pipelines: `TileAndFuse` (IREE's default) and `VectorDistribute`.

The pipeline is a knob (`vector_distribute`), not a second space: both pipelines tile the same loops
with the same intrinsics, so one set of knobs describes both, the loop and the rankers see one
candidate matrix per problem (the budget, the ranking and the winner compare both pipelines with no
change), and a record names its candidate's pipeline in `pipeline` (records from before this knob
existed read as TileAndFuse). The pipeline-specific rules hold under an implication
(`vector_distribute.py` has VectorDistribute's).

Knobs (IREE's own names in brackets):
- `mma`: which MMA intrinsic [`mma_idx`], among those of the target whose operand types fit, then the
  virtual ones IREE compiles (`virtual_mma.py`);
- `wg_m`, `wg_n`: workgroup tile in elements [`workgroup`];
- `sg_m`, `sg_n`: MMA tiles per subgroup along M and N [`subgroup`], up to 32 (as the SHARK tuner's), their
  accumulators within the register file where the target says how large it is;
- `red_k`: K tile in MMA-K units [`reduction`]: every tile of up to 512 elements dividing the aligned K;
- `sg_size`: subgroup size; `prefetch`: `prefetch_num_stages`; `no_bank_fix`:
  `no_reduce_shared_memory_bank_conflicts`; `waves_per_eu`: the `amdgpu-waves-per-eu` LLVM
  attribute (ROCm only; 0 leaves it unset; offered where the tiling can reach it, `occupancy.py`);
- `vector_distribute`: 0 for `TileAndFuse`, 1 for `VectorDistribute`.
Derived, not knobs: the subgroup counts along M and N (`wg_m = sg_m * count_m * mma_m`) and the
workgroup size (subgroups x subgroup size).

The model mirrors the rules of IREE's emitted constraints of both pipelines (so it also covers ops
for which the compiler emits none, such as batch matmul), and the emitted constraints are
conjoined where the compiler provides them. A candidate whose tiles do not divide the problem
carries IREE's `padding` list, as IREE's own configuration does (without it such candidates fail
to compile although the emitted constraints accept them).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Callable, Sequence

import numpy as np
import z3
from iree.compiler import ir

from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.gpu_compilation_info import PIPELINE, build_compilation_info
from mltune.spaces.iree_constraints import EmittedConstraints
from mltune.spaces.occupancy import waves_per_eu_rules
from mltune.spaces.space import Knob, Space, evaluate
from mltune.spaces.subgroup_tiling import Derived
from mltune.spaces.vector_distribute import (
    MAX_SUBGROUP_K,
    breaks_iree_default,
    emitted_names,
    vector_distribute_levels,
    vector_distribute_rules,
)
from mltune.spaces.vector_distribute import PIPELINE as VECTOR_DISTRIBUTE
from mltune.spaces.vector_distribute import PREFETCH_STAGES as VD_PREFETCH_STAGES
from mltune.spaces.virtual_mma import as_hardware, k_per_proxy_k, pipeline_rules, with_virtual
from mltune.targets.gpu import GpuInfo, MmaShape

MAX_TILE = 512  # IREE: "prod(wg_m) <= 512 (max_vgprs)", also for red_k * mma_k
MAX_SUBGROUPS = 10  # IREE: "sg_num <= 10"
MAX_SUBGROUP_COUNT = 32
SUBGROUP_TILES = (1, 2, 3, 4, 5, 6, 8)  # convolutions'
REDUCTION_TILES = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32)  # convolutions'
CONTRACTION_SUBGROUP_TILES = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32)
ACCUMULATOR_BITS = 32  # f32 and i32 accumulators
TILE_AND_FUSE_PREFETCH = 2  # IREE: "prefetch_num_stages == 2" for non-IGEMM TileAndFuse
WAVES_PER_EU = (0, 2, 4)


class NoMmaIntrinsic(ValueError):
    """The target has no MMA intrinsic for the operand types (`configure` then offers the SIMT space)."""


def usable_mmas(problem: Problem, gpu: GpuInfo, emitted: EmittedConstraints | None = None) -> tuple[MmaShape, ...]:
    """The intrinsics the compiler would consider: its own list when it emitted one, else the
    target's intrinsics whose A/B types are the operand types and whose C type is the result's
    (or f32 for a 16-bit result, accumulated in f32 and truncated)."""
    if emitted is not None and emitted.mma_choices:
        by_name = {m.name: m for m in gpu.mma}
        return tuple(by_name[name] for name in emitted.mma_choices if name in by_name)
    wide = {problem.out_type} | ({"f32"} if problem.out_type in ("f16", "bf16") else set())
    return tuple(
        m for m in gpu.mma if (m.a_type, m.b_type) == (problem.lhs_type, problem.rhs_type) and m.c_type in wide
    )


def _aligned(size: int, unit: int) -> int:
    return -(-size // unit) * unit


def tile_values(size: int, units: set[int]) -> tuple[int, ...]:
    """Multiples of an MMA size that divide the MMA-aligned dimension, up to MAX_TILE."""
    values = set()
    for unit in units:
        aligned = _aligned(size, unit)
        values |= {t for t in range(unit, min(aligned, MAX_TILE) + 1, unit) if aligned % t == 0}
    return tuple(sorted(values))


def reduction_values(size: int, units: set[int]) -> tuple[int, ...]:
    """K tiles in units of an MMA's K: every tile of at most MAX_TILE elements that divides the MMA-aligned K."""
    return tuple(
        sorted({t for unit in units for t in range(1, MAX_TILE // unit + 1) if _aligned(size, unit) % (t * unit) == 0})
    )


def lookup(index: z3.ArithRef, values: list[int]) -> z3.ArithRef:
    expr: z3.ArithRef = z3.IntVal(values[-1])
    for i in range(len(values) - 2, -1, -1):
        expr = z3.If(index == i, values[i], expr)
    return expr


def gpu_contraction_space(
    problem: Problem, gpu: GpuInfo, mmas: tuple[MmaShape, ...], emitted: Sequence[EmittedConstraints] = ()
) -> tuple[Space, Derived]:
    """Both pipelines' points: the rules they share, then each pipeline's own under an implication."""
    (m,), (n,), (k,) = problem.sizes(problem.m), problem.sizes(problem.n), problem.sizes(problem.k)
    knobs = [
        Knob("mma", tuple(range(len(mmas)))),
        Knob("wg_m", tile_values(m, {x.m for x in mmas})),
        Knob("wg_n", tile_values(n, {x.n for x in mmas})),
        Knob("sg_m", CONTRACTION_SUBGROUP_TILES),
        Knob("sg_n", CONTRACTION_SUBGROUP_TILES),
        Knob("red_k", reduction_values(k, {x.k for x in mmas})),
        Knob("sg_size", gpu.subgroup_sizes),
        Knob("prefetch", tuple(sorted({TILE_AND_FUSE_PREFETCH, *VD_PREFETCH_STAGES[gpu.api]}))),
        Knob("no_bank_fix", (0, 1)),
        Knob("waves_per_eu", WAVES_PER_EU if gpu.api == "rocm" else (0,)),
        Knob("vector_distribute", (0, 1)),
    ]
    space = Space(knobs, [])
    v = space.var
    mma_m, mma_n, mma_k = (lookup(v("mma"), [getattr(x, axis) for x in mmas]) for axis in "mnk")
    count_m, count_n = v("wg_m") / (v("sg_m") * mma_m), v("wg_n") / (v("sg_n") * mma_n)
    derived = Derived(mma_m, mma_n, mma_k, count_m, count_n, count_m * count_n * v("sg_size"))
    k_tile = v("red_k") * mma_k
    in_bytes = element_bytes(problem.lhs_type)
    shared = [
        aligned_divides(m, mma_m, v("wg_m")),
        aligned_divides(n, mma_n, v("wg_n")),
        v("wg_m") % (v("sg_m") * mma_m) == 0,
        v("wg_n") % (v("sg_n") * mma_n) == 0,
        count_m <= MAX_SUBGROUP_COUNT,
        count_n <= MAX_SUBGROUP_COUNT,
        count_m * count_n <= MAX_SUBGROUPS,
        aligned_divides(k, mma_k, k_tile),
        k_tile <= MAX_TILE,
        derived.workgroup_size <= gpu.max_threads,
        v("sg_size") == gpu.subgroup_sizes[0],  # IREE: "sg_size == preferred_subgroup_size"
        # operands promoted to shared memory: one K tile of LHS and RHS
        in_bytes * (v("wg_m") + v("wg_n")) * k_tile <= gpu.shared_memory_bytes,
        *accumulators_fit(gpu, v, derived),
        *(waves_per_eu_rules(gpu, v, derived, in_bytes, k_tile) if gpu.api == "rocm" else []),
        *pipeline_rules(v("mma"), v("vector_distribute"), mmas),
    ]
    by_pipeline = {
        pipeline: next((c for c in emitted if c.pipeline == pipeline), None)
        for pipeline in (PIPELINE, VECTOR_DISTRIBUTE)
    }
    tile_and_fuse = [v("prefetch") == TILE_AND_FUSE_PREFETCH]
    if by_pipeline[PIPELINE]:
        tile_and_fuse += rename_emitted(by_pipeline[PIPELINE], problem, space, derived, mmas)
    vector_distribute = vector_distribute_constraints(
        problem, gpu, space, derived, v, mmas, by_pipeline[VECTOR_DISTRIBUTE]
    )
    space.constraints = (*shared, *by_pipeline_knob(space, tile_and_fuse, vector_distribute))
    return space, derived


def accumulators_fit(gpu: GpuInfo, var: Callable[[str], z3.ArithRef], derived: Derived) -> list[z3.BoolRef]:
    """A subgroup's accumulators fit one lane's registers (`vgpr_space_bits`; CUDA targets do not say)."""
    if not gpu.vgpr_space_bits:
        return []
    per_lane = var("sg_m") * derived.mma_m * var("sg_n") * derived.mma_n * ACCUMULATOR_BITS
    return [per_lane <= gpu.vgpr_space_bits * var("sg_size")]


def by_pipeline_knob(
    space: Space, tile_and_fuse: Sequence[z3.BoolRef], vector_distribute: Sequence[z3.BoolRef]
) -> list[z3.BoolRef]:
    """Each pipeline's rules, holding only where the `vector_distribute` knob picks that pipeline."""
    is_vd = space.var("vector_distribute") == 1
    return [
        *[z3.Implies(z3.Not(is_vd), rule) for rule in tile_and_fuse],
        *[z3.Implies(is_vd, rule) for rule in vector_distribute],
    ]


def vector_distribute_constraints(
    problem: Problem,
    gpu: GpuInfo,
    space: Space,
    derived: Derived,
    var: Callable[[str], z3.ArithRef],
    mmas: tuple[MmaShape, ...],
    emitted: EmittedConstraints | None,
) -> list[z3.BoolRef]:
    """VectorDistribute's rules (`vector_distribute.py`) and, where the compiler emits them, its constraints less those
    IREE's own defaults break; `var` gives the knobs by the contraction space's names."""
    # IREE's "sg_k <= 32" counts a virtual intrinsic's K tile in its hardware proxy's K steps
    rules = [
        *vector_distribute_rules(problem, gpu, var, derived),
        var("red_k") * lookup(var("mma"), k_per_proxy_k(mmas)) <= MAX_SUBGROUP_K,
    ]
    if emitted is None:
        return rules
    return rules + substitute_emitted(
        emitted.without(breaks_iree_default),
        problem,
        space,
        derived,
        {**emitted_names(problem, var, derived), "mma_idx": mma_index(var("mma"), mmas, emitted)},
    )


def mma_index(mma: z3.ArithRef, mmas: tuple[MmaShape, ...], emitted: EmittedConstraints) -> z3.ArithRef:
    """Our intrinsic index as the position in the emitted op's own `mma_idx` list (-1, rejected, if absent); a
    virtual intrinsic as its hardware proxy's."""
    return lookup(
        mma, [emitted.mma_choices.index(x.name) if x.name in emitted.mma_choices else -1 for x in as_hardware(mmas)]
    )


def aligned_divides(size: int, unit: z3.ArithRef, tile: z3.ArithRef) -> z3.BoolRef:
    """The MMA-aligned size (IREE pads to the intrinsic) is a multiple of `tile`."""
    return ((size + unit - 1) / unit * unit) % tile == 0


def substitute_emitted(
    emitted: EmittedConstraints, problem: Problem, space: Space, derived: Derived, names: dict[str, z3.ArithRef]
) -> list[z3.BoolRef]:
    """IREE's assertions rewritten over mltune's knobs: `names` maps IREE's loop-position knobs
    (wg_0, red_2 ...) to expressions over ours; the common ones (MMA, subgroup counts, workgroup size) are added
    here unless `names` maps them, the problem sizes by `EmittedConstraints.over`."""
    v = space.var
    names = {
        "mma_idx": v("mma"),
        "sg_size": v("sg_size"),
        "prefetch_num_stages": v("prefetch"),
        "sg_m_cnt": derived.count_m,
        "sg_n_cnt": derived.count_n,
        "wg_size_x": derived.workgroup_size,
        "wg_size_y": z3.IntVal(1),
        "wg_size_z": z3.IntVal(1),
        **names,
    }
    return emitted.over(names, problem.bounds)


def rename_emitted(
    emitted: EmittedConstraints, problem: Problem, space: Space, derived: Derived, mmas: tuple[MmaShape, ...]
) -> list[z3.BoolRef]:
    """IREE's TileAndFuse assertions over mltune's knobs; a virtual intrinsic's point as its proxy's, with the same
    K tile in elements (its `reduction` counted in the proxy's K steps)."""
    v = space.var
    (mi,), (ni,), (ki,) = problem.m, problem.n, problem.k
    return substitute_emitted(
        emitted,
        problem,
        space,
        derived,
        {
            f"wg_{mi}": v("wg_m"),
            f"wg_{ni}": v("wg_n"),
            f"sg_{mi}": v("sg_m"),
            f"sg_{ni}": v("sg_n"),
            f"red_{ki}": v("red_k") * lookup(v("mma"), k_per_proxy_k(mmas)),
            "mma_idx": mma_index(v("mma"), mmas, emitted),
        },
    )


class MmaConfigurator(ABC):
    """What GPU MMA configurators share: a space whose first knob is `mma`, derived sizes, and the pipeline of a
    point (`vector_distribute` where the space has that knob, else TileAndFuse)."""

    space: Space
    derived: Derived
    mmas: tuple[MmaShape, ...]
    problem: Problem
    context: ir.Context
    # What differs between the spaces' configs: the knobs VectorDistribute tiles as the GEMM's M and N, whether
    # TileAndFuse runs as an implicit GEMM, and whether VectorDistribute promotes with `derived_thread_config`.
    vd_tile_knobs: tuple[str, str] = ("wg_m", "wg_n")
    igemm: bool = False
    vd_thread_promotion: bool = True

    def candidates(self) -> CandidateSet:
        """The space's points, plus the chosen intrinsic's shape (`mma_m/n/k`): a record's knobs then say
        which MMA it used without the target's intrinsic list, and features need no lookup."""
        values = self.space.enumerate()
        shapes = np.array([[x.m, x.n, x.k] for x in self.mmas], dtype=np.int64)[values[:, 0]]
        names = tuple(knob.name for knob in self.space.knobs) + ("mma_m", "mma_n", "mma_k")
        return CandidateSet(names, np.concatenate([values, shapes], axis=1))

    def derived_values(self, knobs: dict[str, int]) -> dict[str, int]:
        columns = {knob.name: np.int64(knobs[knob.name]) for knob in self.space.knobs}
        return {
            name: int(evaluate(getattr(self.derived, name), columns))
            for name in ("mma_m", "mma_n", "mma_k", "count_m", "count_n", "workgroup_size")
        }

    def pipeline_of(self, knobs: dict[str, int]) -> str:
        return VECTOR_DISTRIBUTE if knobs.get("vector_distribute") else PIPELINE

    @abstractmethod
    def tile_lists(self, knobs: dict[str, int]) -> dict[str, list[int]]: ...

    @abstractmethod
    def padding(self, knobs: dict[str, int]) -> list[int] | None: ...

    def compilation_info(self, knobs: dict[str, int]) -> str:
        """The `#iree_codegen.compilation_info` of one point, built with IREE's attribute bindings."""
        mma, derived = self.mmas[knobs["mma"]], self.derived_values(knobs)
        if knobs["vector_distribute"]:
            wg_m, wg_n = (knobs[name] for name in self.vd_tile_knobs)
            levels = vector_distribute_levels(
                self.problem, wg_m, wg_n, knobs["red_k"] * mma.k, derived["count_m"], derived["count_n"]
            )
            return build_compilation_info(
                self.context,
                mma.name,
                levels,
                None,
                knobs,
                derived["workgroup_size"],
                pipeline=VECTOR_DISTRIBUTE,
                thread_promotion=self.vd_thread_promotion,
            )
        return build_compilation_info(
            self.context,
            mma.name,
            self.tile_lists(knobs),
            self.padding(knobs),
            knobs,
            derived["workgroup_size"],
            igemm=self.igemm,
        )


class GpuContraction(MmaConfigurator):
    """The `Configurator` for a contraction on a GPU, with `TileAndFuse` or `VectorDistribute`; `emitted` holds
    the compiler's constraints for the dispatch, each pipeline's conjoined with that pipeline's points."""

    def __init__(self, problem: Problem, gpu: GpuInfo, context: ir.Context, emitted: Sequence[EmittedConstraints] = ()):
        self.problem = problem
        self.gpu = gpu
        self.context = context
        self.mmas = with_virtual(
            usable_mmas(problem, gpu, next((c for c in emitted if c.pipeline == PIPELINE), None)), gpu
        )
        if not self.mmas:
            raise NoMmaIntrinsic(
                f"{gpu.arch} has no MMA intrinsic for {problem.lhs_type} x {problem.rhs_type} -> {problem.out_type}"
            )
        self.space, self.derived = gpu_contraction_space(problem, gpu, self.mmas, emitted)

    def tile_lists(self, knobs: dict[str, int]) -> dict[str, list[int]]:
        """IREE's `workgroup`, `subgroup` and `reduction` lists: batch loops tile 1 (workgroup) and 0 (subgroup)."""
        p = self.problem
        levels = {"workgroup": [0] * len(p.bounds), "subgroup": [0] * len(p.bounds), "reduction": [0] * len(p.bounds)}
        for loop in p.batch:
            levels["workgroup"][loop] = 1
        levels["workgroup"][p.m[0]], levels["workgroup"][p.n[0]] = knobs["wg_m"], knobs["wg_n"]
        levels["subgroup"][p.m[0]], levels["subgroup"][p.n[0]] = knobs["sg_m"], knobs["sg_n"]
        levels["reduction"][p.k[0]] = knobs["red_k"]
        return levels

    def padding(self, knobs: dict[str, int]) -> list[int] | None:
        """IREE's `padding` list when a tile does not divide its dimension: the workgroup tiles, with K's
        tile in elements (as IREE's own configuration does for unaligned matmuls), else None."""
        p = self.problem
        k_tile = knobs["red_k"] * self.mmas[knobs["mma"]].k
        (m,), (n,), (k,) = p.sizes(p.m), p.sizes(p.n), p.sizes(p.k)
        if m % knobs["wg_m"] == 0 and n % knobs["wg_n"] == 0 and k % k_tile == 0:
            return None
        padding = self.tile_lists(knobs)["workgroup"]
        padding[p.k[0]] = k_tile
        return padding
