"""The GPU space for elementwise ops (`Problem.op_kind == "elementwise"`: activations, bias adds, transposes, a
gather reading a table, a mask built from indices) dispatched alone, on ROCm and CUDA: IREE's `TileAndFuse` with a
workgroup tile and a thread tile per loop.

IREE 3.13 configures such a dispatch with one short tile whatever its size: on gfx942 a 128 x 3072 f32 bias add gets
`workgroup = [1, 256]`, `thread = [1, 4]` (64 threads), a 12 x 128 x 64 transpose `workgroup = [1, 4, 64]`,
`thread = [1, 1, 4]`; on sm_90 the same ops get 32 threads (`[1, 128]`, `[1, 4, 32]`), one warp per workgroup. A
`compilation_info` with other tiles is honoured as written (the tests compile sampled points for both targets and
read the configuration back); IREE emits no constraints for this pipeline, so the rules are the distribution's:

Knobs (IREE's lists in brackets), for each loop `i`:
- `wg_i`: the workgroup's tile [`workgroup`]: the powers of two dividing the loop's size and the size itself, up
  to `MAX_FASTEST_TILE` along a contiguous loop (`contiguous_loops`) and `MAX_OTHER_TILE` along the others (no
  partial tiles);
- `th_i`: each thread's tile [`thread`], dividing the workgroup's: along a contiguous loop up to `MAX_VECTOR_BYTES`
  of the output's elements (IREE's default is a 128-bit access), along the others up to 4;
- `promote` (only where an input's contiguous loop is not the output's: a transpose): the output's tile staged in
  shared memory [`promote_operands`], so that its stores are contiguous (IREE's default for a 128 x 768 transpose
  on gfx942: `workgroup = [32, 32]`, `thread = [1, 4]`, `promote_operands = [2]`, the output being operand 2, with
  its threads as `workgroup_size = [8, 32, 1]`, which the space writes so too).
Derived: one thread per thread tile of the workgroup's tile, a multiple of the subgroup size within the target's
threads per workgroup; each thread holds at most `MAX_THREAD_ELEMENTS` outputs; a staged output tile fits the shared
memory a workgroup may use (`simt.shared_limit`: 48 KiB on CUDA).
"""

from __future__ import annotations

import math
from typing import Sequence

from iree.compiler import ir

from mltune.emit.operand_types import operand_loops
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.gpu_contraction import PIPELINE
from mltune.spaces.iree_constraints import EmittedConstraints
from mltune.spaces.simt import shared_limit, tile_and_fuse_info
from mltune.spaces.space import Knob, Space
from mltune.targets.gpu import GpuInfo

MAX_FASTEST_TILE = 4096
MAX_OTHER_TILE = 128
MAX_VECTOR_BYTES = 32
MAX_OTHER_THREAD_TILE = 4
MAX_THREAD_ELEMENTS = 32


def contiguous_loops(problem: Problem) -> tuple[int, ...]:
    """The loop the output's last dimension walks, then those of the inputs that walk their loops in another order
    than the output does (a transpose): along them accesses are contiguous. An input read in the output's order (a
    broadcast) adds none."""
    *inputs, output = operand_loops(problem)
    place = {loop: position for position, loop in enumerate(output)}
    transposed = [loops[-1] for loops in inputs if loops and list(loops) != sorted(loops, key=place.get)]
    return tuple(dict.fromkeys([output[-1], *transposed]))


def _tiles(size: int, cap: int) -> tuple[int, ...]:
    """The powers of two dividing `size` up to `cap`, and `size` itself when within it."""
    powers = {1 << i for i in range(cap.bit_length()) if 1 << i <= cap and size % (1 << i) == 0}
    return tuple(sorted(powers | ({size} if size <= cap else set())))


class GpuElementwise:
    """The `Configurator` of an elementwise op on a GPU: TileAndFuse workgroup and thread tiles over its loops."""

    def __init__(self, problem: Problem, gpu: GpuInfo, context: ir.Context, emitted: Sequence[EmittedConstraints] = ()):
        self.problem, self.gpu, self.context = problem, gpu, context
        self.sg_size = gpu.subgroup_sizes[0]
        self.loops = tuple(range(len(problem.bounds)))
        self.contiguous = contiguous_loops(problem)
        self.output = len(problem.operand_types) - 1
        self.space = self._space()

    def _space(self) -> Space:
        p = self.problem
        vector = max(1, MAX_VECTOR_BYTES // element_bytes(p.out_type))
        knobs = []
        for loop in self.loops:
            contiguous = loop in self.contiguous
            wg = _tiles(p.bounds[loop], MAX_FASTEST_TILE if contiguous else MAX_OTHER_TILE)
            th = _tiles(max(wg), vector if contiguous else MAX_OTHER_THREAD_TILE)
            knobs += [Knob(f"wg_{loop}", wg), Knob(f"th_{loop}", th)]
        knobs.append(Knob("promote", (0, 1) if len(self.contiguous) > 1 else (0,)))
        space = Space(knobs, [])
        v = space.var
        threads, elements, tile = 1, 1, 1
        for loop in self.loops:
            threads = threads * (v(f"wg_{loop}") / v(f"th_{loop}"))
            elements = elements * v(f"th_{loop}")
            tile = tile * v(f"wg_{loop}")
        space.constraints = (
            *(v(f"wg_{loop}") % v(f"th_{loop}") == 0 for loop in self.loops),
            elements <= MAX_THREAD_ELEMENTS,
            threads % self.sg_size == 0,
            threads <= self.gpu.max_threads,
            v("promote") * tile * element_bytes(p.out_type) <= shared_limit(self.gpu),
        )
        return space

    def candidates(self) -> CandidateSet:
        return CandidateSet(tuple(knob.name for knob in self.space.knobs), self.space.enumerate())

    def pipeline_of(self, knobs: dict[str, int]) -> str:
        return PIPELINE

    def workgroup_size(self, knobs: dict[str, int]) -> int:
        return math.prod(knobs[f"wg_{loop}"] // knobs[f"th_{loop}"] for loop in self.loops)

    def workgroup_shape(self, knobs: dict[str, int]) -> list[int]:
        """`[threads, 1, 1]`; with the output staged, as IREE writes it then: the threads along the last loop, along
        the one before, and along all others."""
        if not knobs["promote"]:
            return [self.workgroup_size(knobs), 1, 1]
        per_loop = [knobs[f"wg_{loop}"] // knobs[f"th_{loop}"] for loop in reversed(self.loops)] + [1, 1]
        return [per_loop[0], per_loop[1], math.prod(per_loop[2:])]

    def compilation_info(self, knobs: dict[str, int]) -> str:
        """The `#iree_codegen.compilation_info` of one point (IREE's pipeline options only with the output staged, as
        IREE's own configs have them)."""
        lists = {
            "workgroup": [knobs[f"wg_{loop}"] for loop in self.loops],
            "thread": [knobs[f"th_{loop}"] for loop in self.loops],
        }
        if knobs["promote"]:
            lists["promote_operands"] = [self.output]
        return tile_and_fuse_info(
            self.context, lists, self.workgroup_shape(knobs), self.sg_size, bool(knobs["promote"])
        )
