"""IREE's `VectorDistribute` reduction config (`ReductionConfigUtils.cpp`, `setReductionConfig`) as a space over one
reduction loop K and one tiled row loop R: the config IREE gives matvecs (`gpu_matvec`) and reductions and
normalisations (`gpu_reduction`) on ROCm and CUDA.

Each workgroup computes a few outputs (rows), its threads split the K loop in `partial_reduction` chunks, each
thread loads `thread` contiguous elements per step, and the partial sums are combined across lanes (shuffles) and
subgroups (shared memory). Its config is `workgroup`, `partial_reduction`, `thread`, `lane_basis` and
`subgroup_basis` (counts per loop, identity mapping) with `workgroup_size = [subgroups x subgroup size, 1, 1]`.

Knobs (IREE's lists in brackets):
- `rows`: outputs per workgroup along the row loop R [`workgroup`] (which loop: the subclass's `row_loop`); every
  other parallel loop is tiled 1;
- `k_tile`: the K chunk per step [`partial_reduction`], a divisor of K;
- `vector`: elements per thread per load along K [`thread`], up to a 128-bit load;
- `lanes_k`: lanes along K [`lane_basis`]; the other `sg_size / lanes_k` lanes go along R;
- `sg_k`, `sg_r`: subgroups along K and along R [`subgroup_basis`];
- `sg_size`: the subgroup size, among the target's (gfx11: 32 or 64; CDNA: 64; CUDA: 32).

IREE's reduction pipeline emits no constraints; these rules follow how it distributes the tile
(`LLVMGPUConfigureTensorLayouts.cpp`: the workgroup's tile is divided by the subgroup counts, then by the lane
counts, then by the thread tile, and what remains becomes each thread's batch, rounded up):
every division is exact here (no partial tiles), lanes fill the subgroup, the workgroup fits the target, and
each thread's tile of the input (rows x K elements per step) stays within `MAX_THREAD_TILE_BYTES`, so that
the unrolled loads neither spill nor take minutes to compile.
"""

from __future__ import annotations

from typing import Sequence

from iree.compiler import ir
from iree.compiler.dialects import iree_codegen, iree_gpu

from mltune.frontend.problem import Problem
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.gpu_compilation_info import i64_array
from mltune.spaces.iree_constraints import EmittedConstraints
from mltune.spaces.space import Knob, Space
from mltune.spaces.vector_distribute import LOAD_BITS, PIPELINE
from mltune.targets.gpu import GpuInfo

MAX_ROWS = 64
SUBGROUP_COUNTS_R = (1, 2, 4, 8)
SUBGROUP_COUNTS_K = (1, 2, 4, 8, 16)
MAX_K_TILE = 8192
MAX_THREAD_TILE_BYTES = 256  # the input elements one thread holds per step (IREE's own defaults hold 16 to 128)


def _powers_of_two(limit: int) -> tuple[int, ...]:
    return tuple(1 << i for i in range(limit.bit_length()) if 1 << i <= limit)


class ReductionConfig:
    """A `Configurator` with IREE's `VectorDistribute` reduction config; a subclass names the row loop R and the
    bytes of the elements read along K, and may widen the subgroup counts along K."""

    subgroup_counts_k: tuple[int, ...] = SUBGROUP_COUNTS_K

    def __init__(self, problem: Problem, gpu: GpuInfo, context: ir.Context, emitted: Sequence[EmittedConstraints] = ()):
        self.problem, self.gpu, self.context = problem, gpu, context
        self.rows_loop = self.row_loop(problem)
        self.space = self._space()

    @staticmethod
    def row_loop(problem: Problem) -> int:
        raise NotImplementedError

    @staticmethod
    def input_bytes(problem: Problem) -> int:
        raise NotImplementedError

    def _space(self) -> Space:
        p, gpu = self.problem, self.gpu
        (k_loop,) = p.k
        rows_size, k = p.bounds[self.rows_loop], p.bounds[k_loop]
        in_bytes = self.input_bytes(p)
        knobs = [
            Knob("rows", tuple(r for r in _powers_of_two(MAX_ROWS) if rows_size % r == 0)),
            Knob("k_tile", tuple(t for t in range(1, min(k, MAX_K_TILE) + 1) if k % t == 0)),
            Knob("vector", _powers_of_two(LOAD_BITS // (8 * in_bytes))),
            Knob("lanes_k", _powers_of_two(max(gpu.subgroup_sizes))),
            Knob("sg_k", self.subgroup_counts_k),
            Knob("sg_r", SUBGROUP_COUNTS_R),
            Knob("sg_size", gpu.subgroup_sizes),
        ]
        space = Space(knobs, [])
        v = space.var
        lanes_r = v("sg_size") / v("lanes_k")
        rows_per_thread = v("rows") / (lanes_r * v("sg_r"))
        k_per_thread = v("k_tile") / (v("lanes_k") * v("sg_k"))
        space.constraints = (
            v("sg_size") % v("lanes_k") == 0,
            v("sg_k") * v("sg_r") * v("sg_size") <= gpu.max_threads,
            v("k_tile") % (v("lanes_k") * v("sg_k") * v("vector")) == 0,
            v("rows") % (lanes_r * v("sg_r")) == 0,
            rows_per_thread * k_per_thread * in_bytes <= MAX_THREAD_TILE_BYTES,
        )
        return space

    def candidates(self) -> CandidateSet:
        return CandidateSet(tuple(knob.name for knob in self.space.knobs), self.space.enumerate())

    def pipeline_of(self, knobs: dict[str, int]) -> str:
        return PIPELINE

    def levels(self, knobs: dict[str, int]) -> dict[str, list]:
        """IREE's tile lists and bases over the op's loops: every parallel loop but R tiled 1, K tiled in chunks."""
        p = self.problem
        loops = len(p.bounds)
        (k_loop,) = p.k
        workgroup, partial, thread = [0] * loops, [0] * loops, [0] * loops
        lanes, subgroups = [1] * loops, [1] * loops
        for loop in p.batch + p.m + p.n:
            workgroup[loop] = 1
        workgroup[self.rows_loop], partial[k_loop], thread[k_loop] = knobs["rows"], knobs["k_tile"], knobs["vector"]
        lanes[self.rows_loop], lanes[k_loop] = knobs["sg_size"] // knobs["lanes_k"], knobs["lanes_k"]
        subgroups[self.rows_loop], subgroups[k_loop] = knobs["sg_r"], knobs["sg_k"]
        mapping = list(range(loops))
        return {
            "workgroup": workgroup,
            "partial_reduction": partial,
            "thread": thread,
            "lane_basis": [lanes, mapping],
            "subgroup_basis": [subgroups, mapping],
        }

    def compilation_info(self, knobs: dict[str, int]) -> str:
        """The `#iree_codegen.compilation_info` of one point, as IREE's own reduction config writes it."""
        threads = knobs["sg_k"] * knobs["sg_r"] * knobs["sg_size"]
        with self.context:
            lowering = iree_gpu.LoweringConfigAttr.get(
                ir.DictAttr.get({name: i64_array(values) for name, values in self.levels(knobs).items()})
            )
            options = iree_gpu.PipelineOptionsAttr.get(
                no_reduce_shared_memory_bank_conflicts=False, use_igemm_convolution=False
            )
            config = ir.DictAttr.get({"gpu_pipeline_options": options})
            translation = iree_codegen.TranslationInfoAttr.get(
                iree_gpu.PipelineAttr.get(iree_gpu.LoweringPipeline.VectorDistribute),
                None,
                [threads, 1, 1],
                knobs["sg_size"],
                config,
            )
            return str(iree_codegen.CompilationInfoAttr.get(lowering, translation))
