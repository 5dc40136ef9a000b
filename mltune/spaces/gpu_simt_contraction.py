"""The GPU space for contractions no MMA intrinsic of the target fits (f32 x f32 -> f32 on CUDA: no `mma.sync` takes
f32 operands), over IREE's `TileAndFuse` pipeline without `mma_kind`: each thread computes a small block of the
output with scalar FMAs.

This is how IREE 3.13 configures such a contraction itself (`LLVMGPUSelectLoweringStrategy`, e.g. on sm_90 a
128 x 3072 x 768 f32 matmul gets `workgroup = [32, 128, 1]`, `thread = [1, 16, 0]`, `reduction = [0, 0, 32]`,
workgroup size 32 x 8, its operands read from global memory by every thread). A `compilation_info` with these lists
is honoured as written (the tests compile sampled points and read the configuration back from the executable), and
so is `promote_operands = [0, 1]`, which stages each K tile of both operands in shared memory.

Knobs (IREE's lists in brackets):
- `wg_m`, `wg_n`: the workgroup's output tile [`workgroup`], powers of two up to `MAX_TILE` and the size's next
  power of two (a tile need not divide its dimension: TileAndFuse masks the partial tiles);
- `th_m`, `th_n`: each thread's output block [`thread`], up to `MAX_THREAD_ELEMENTS` accumulators;
- `red_k`: the K tile [`reduction`], a power of two dividing K (1 when K is odd);
- `promote`: operands staged in shared memory [`promote_operands`] (1) or read by every thread (0).
Derived: the workgroup size, one thread per thread block of the tile, `(wg_m / th_m) * (wg_n / th_n)`, a multiple
of the subgroup size within the target's threads per workgroup. Batch loops are tiled 1.

Limits the rules hold: the workgroup size (target), shared memory of the promoted tiles (the target's, and the 48 KiB
a CUDA kernel gets without opting in to more), and `MAX_UNROLLED` FMAs per thread and K tile, which IREE unrolls
(larger ones take minutes to compile).
"""

from __future__ import annotations

import numpy as np

from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.simt import MAX_UNROLLED, SimtConfigurator, SimtGemm, shared_limit
from mltune.spaces.space import Knob, Space

MAX_TILE = 256
THREAD_TILES = (1, 2, 4, 8, 16)
MAX_THREAD_ELEMENTS = 64  # accumulators per thread
K_TILES = (1, 2, 4, 8, 16, 32, 64)


def _tiles(size: int) -> tuple[int, ...]:
    """Powers of two up to MAX_TILE and up to the size's next power of two."""
    limit = min(MAX_TILE, 1 << max(size - 1, 0).bit_length())
    return tuple(1 << i for i in range(limit.bit_length()) if 1 << i <= limit)


class GpuSimtContraction(SimtConfigurator):
    """The `Configurator` of a contraction on a GPU without a fitting MMA intrinsic: TileAndFuse with thread tiles."""

    def _space(self) -> Space:
        p, gpu = self.problem, self.gpu
        (m,), (n,), (k,) = p.sizes(p.m), p.sizes(p.n), p.sizes(p.k)
        knobs = [
            Knob("wg_m", _tiles(m)),
            Knob("wg_n", _tiles(n)),
            Knob("th_m", THREAD_TILES),
            Knob("th_n", THREAD_TILES),
            Knob("red_k", tuple(t for t in K_TILES if k % t == 0)),
            Knob("promote", (0, 1)),
        ]
        space = Space(knobs, [])
        v = space.var
        threads = (v("wg_m") / v("th_m")) * (v("wg_n") / v("th_n"))
        shared = element_bytes(p.lhs_type) * (v("wg_m") + v("wg_n")) * v("red_k")
        space.constraints = (
            v("wg_m") % v("th_m") == 0,
            v("wg_n") % v("th_n") == 0,
            v("th_m") * v("th_n") <= MAX_THREAD_ELEMENTS,
            threads % self.sg_size == 0,
            threads <= gpu.max_threads,
            v("th_m") * v("th_n") * v("red_k") <= MAX_UNROLLED,
            v("promote") * shared <= shared_limit(gpu),
        )
        return space

    def levels(self, knobs: dict[str, int]) -> dict[str, list[int]]:
        """IREE's `workgroup`, `thread` and `reduction` lists: batch loops tiled 1 per workgroup and thread."""
        p = self.problem
        workgroup, thread, reduction = ([0] * len(p.bounds) for _ in range(3))
        for loop in p.batch:
            workgroup[loop] = thread[loop] = 1
        (mi,), (ni,), (ki,) = p.m, p.n, p.k
        workgroup[mi], workgroup[ni] = knobs["wg_m"], knobs["wg_n"]
        thread[mi], thread[ni] = knobs["th_m"], knobs["th_n"]
        reduction[ki] = knobs["red_k"]
        return {"workgroup": workgroup, "thread": thread, "reduction": reduction}

    def workgroup_size(self, knobs: dict[str, int]) -> int:
        return (knobs["wg_m"] // knobs["th_m"]) * (knobs["wg_n"] // knobs["th_n"])


def contraction_gemm(problem: Problem, candidates: CandidateSet) -> SimtGemm:
    """A SIMT contraction's candidates as they are: the knobs name the GEMM's tiles."""
    (m,), (n,), (k,) = problem.sizes(problem.m), problem.sizes(problem.n), problem.sizes(problem.k)
    batch = int(np.prod(problem.sizes(problem.batch), dtype=np.int64))
    wg_m, wg_n, th_m, th_n = (candidates.column(name) for name in ("wg_m", "wg_n", "th_m", "th_n"))
    return SimtGemm(
        batch,
        m,
        n,
        k,
        wg_m,
        wg_n,
        th_m,
        th_n,
        candidates.column("red_k"),
        candidates.column("promote"),
        workgroups=batch * -(-m // wg_m) * -(-n // wg_n),
        threads=(wg_m // th_m) * (wg_n // th_n),
        partial_m=m % wg_m > 0,
        partial_n=n % wg_n > 0,
        fastest=n,
        lanes_fastest=wg_n // th_n,
    )
