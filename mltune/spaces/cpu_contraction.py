"""The llvm-cpu `DoubleTilingExpert` space for contractions.

Knobs: the workgroup (`distribution`) tile of M and N, the vector tile of M and N
(`vector_common_parallel`) and of K (`vector_reduction`). Batch loops keep tile 1, as IREE's
own default does. Validity rules (research notes, section 1.3):
- the product of all vector tile sizes times the accumulator's bytes must stay under
  32768 bytes (`native_vector_size` x 512), else the compiler rejects the large vectors;
- K may only be tiled at the reduction level (enforced by construction).
Vector tiles are at most their workgroup tile (larger ones are clamped or rejected); they
need not divide it (IREE's own defaults do not always: [50, 50] with vector [5, 16]).
"""

from __future__ import annotations

import numpy as np
from iree.compiler import ir
from iree.compiler.dialects import iree_codegen

from mltune.emit.op_config import flags_config
from mltune.frontend.problem import ELEMENT_BYTES, Problem
from mltune.spaces import cpu_data_tiling
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.space import Knob, Space
from mltune.targets.cpu import CpuInfo

PIPELINE = "DoubleTilingExpert"
VECTOR_BYTES_LIMIT_FACTOR = 512  # the compiler's limit is native_vector_size * 512 bytes
MAX_WORKGROUP_TILE = {"m": 512, "n": 1024}
MAX_VECTOR_TILE = {"m": 32, "n": 64, "k": 64}


MAX_EVEN_SPLIT = 64  # workgroup tiles: the dimension split evenly into at most this many parts


def _powers_of_two(size: int, cap: int) -> set[int]:
    """Powers of two up to the first one covering `size`, at most `cap`."""
    return {1 << e for e in range(31) if (1 << e) <= cap and (1 << e) < 2 * size}


def workgroup_tile_values(size: int, cap: int) -> tuple[int, ...]:
    """Powers of two, and the tiles that split `size` evenly into at most 64 parts (no padding)."""
    even = {size // parts for parts in range(1, MAX_EVEN_SPLIT + 1) if size % parts == 0 and size // parts <= cap}
    return tuple(sorted(_powers_of_two(size, cap) | even))


def vector_tile_values(size: int, cap: int) -> tuple[int, ...]:
    """Powers of two, and the exact divisors of `size` up to `cap` that are larger than its largest
    power-of-two factor (below it a power of two divides exactly already). IREE itself picks such
    tiles: 5 for 100, 15 for 300."""
    pow2_factor = size & -size
    divisors = {d for d in range(pow2_factor + 1, min(size, cap) + 1) if size % d == 0}
    return tuple(sorted(_powers_of_two(size, cap) | divisors))


def cpu_contraction_space(problem: Problem, cpu: CpuInfo) -> Space:
    (m,), (n,), (k,) = problem.sizes(problem.m), problem.sizes(problem.n), problem.sizes(problem.k)
    knobs = [
        Knob("wg_m", workgroup_tile_values(m, MAX_WORKGROUP_TILE["m"])),
        Knob("wg_n", workgroup_tile_values(n, MAX_WORKGROUP_TILE["n"])),
        Knob("vec_m", vector_tile_values(m, MAX_VECTOR_TILE["m"])),
        Knob("vec_n", vector_tile_values(n, MAX_VECTOR_TILE["n"])),
        Knob("vec_k", vector_tile_values(k, MAX_VECTOR_TILE["k"])),
    ]
    space = Space(knobs, [])
    wg_m, wg_n, vec_m, vec_n, vec_k = (space.var(knob.name) for knob in knobs)
    vector_limit = cpu.native_vector_bytes * VECTOR_BYTES_LIMIT_FACTOR
    space.constraints = (
        vec_m <= wg_m,
        vec_n <= wg_n,
        vec_m * vec_n * vec_k * ELEMENT_BYTES[problem.out_type] < vector_limit,
    )
    return space


def tile_lists(problem: Problem, knobs: dict[str, int]) -> dict[str, list[int]]:
    """The three tiling levels, one entry per loop of the op."""
    levels = {
        "distribution": [0] * len(problem.bounds),
        "vector_common_parallel": [0] * len(problem.bounds),
        "vector_reduction": [0] * len(problem.bounds),
    }
    for loop in problem.batch:
        levels["distribution"][loop] = 1
        levels["vector_common_parallel"][loop] = 1
    levels["distribution"][problem.m[0]] = knobs["wg_m"]
    levels["distribution"][problem.n[0]] = knobs["wg_n"]
    levels["vector_common_parallel"][problem.m[0]] = knobs["vec_m"]
    levels["vector_common_parallel"][problem.n[0]] = knobs["vec_n"]
    levels["vector_reduction"][problem.k[0]] = knobs["vec_k"]
    return levels


class CpuContraction:
    """The `Configurator` for a contraction on llvm-cpu with `DoubleTilingExpert`; other CPU pipelines whose
    config is one `#iree_cpu.lowering_config` of tiling levels subclass it with their own space and levels.

    With `data_tiling`, the problem's candidates also hold its data-tiled lowering (`cpu_data_tiling`): each
    row then names its `lowering`, and a data-tiled row's config is compile flags instead of a spec."""

    pipeline = PIPELINE
    has_data_tiled_lowering = True  # whether `data_tiling` adds rows (IREE data-tiles matmul-like ops only)

    def __init__(self, problem: Problem, cpu: CpuInfo, context: ir.Context, data_tiling: bool = False):
        self.problem = problem
        self.cpu = cpu
        self.space = self.build_space(problem, cpu)
        self.context = context
        self.data_tiling = data_tiling and self.has_data_tiled_lowering

    build_space = staticmethod(cpu_contraction_space)  # (problem, cpu) -> Space
    levels = staticmethod(tile_lists)  # (problem, knobs) -> tiling levels

    def pipeline_of(self, knobs: dict[str, int]) -> str:
        return cpu_data_tiling.PIPELINE if knobs.get("lowering", 0) else self.pipeline

    def tile_levels(self, knobs: dict[str, int]) -> dict[str, list[int]]:
        """One point's tiling levels, where it lies among tilings (`mltune.spaces.tile_coordinates`)."""
        return self.levels(self.problem, knobs)

    def candidates(self) -> CandidateSet:
        names = tuple(knob.name for knob in self.space.knobs)
        plain = self.space.enumerate()
        if not self.data_tiling:
            return CandidateSet(names, plain)
        tiled = cpu_data_tiling.data_tiled_rows(self.problem, self.cpu)
        plain = np.concatenate([plain, np.zeros((len(plain), len(cpu_data_tiling.KNOBS)), dtype=plain.dtype)], axis=1)
        return CandidateSet(names + cpu_data_tiling.KNOBS, np.concatenate([plain, tiled.astype(plain.dtype)]))

    def compilation_info(self, knobs: dict[str, int]) -> str:
        """The `#iree_codegen.compilation_info` for one point, built and checked by the compiler's parser; for a
        data-tiled point, its compile flags."""
        if knobs.get("lowering", 0):
            return flags_config(cpu_data_tiling.compile_flags(knobs), self.context)
        levels = ", ".join(f"{name} = {values}" for name, values in self.levels(self.problem, knobs).items())
        with self.context:
            lowering = ir.Attribute.parse(f"#iree_cpu.lowering_config<{levels}>")
            pipeline = ir.Attribute.parse(f"#iree_cpu.pipeline<{self.pipeline}>")
            translation = iree_codegen.TranslationInfoAttr.get(pipeline)
            return str(iree_codegen.CompilationInfoAttr.get(lowering, translation))
