"""The llvm-cpu `LinalgExtTileAndVectorize` space for attention (`iree_linalg_ext.online_attention`).

IREE 3.13 configures a CPU attention (loops batch, M, N, K1, K2: query rows, value columns, head dim,
key rows) with three tiling levels (`KernelDispatch.cpp`, `setRootConfig` for `AttentionOp`):
`distribution` tiles batch (always 1), M and N onto workgroups; `vector_common_parallel` tiles batch,
M and N again; `vector_reduction` tiles K2, the loop of the online softmax. K1 is never tiled (0 at every
level): the QK^T product needs whole rows of the head dimension. IREE's default for BERT-base
(12 x 128 x 64 x 64 x 128, f32, AVX-512) is `distribution = [1, 64, 64, 0, 0]`,
`vector_common_parallel = [1, 1, 16, 0, 0]`, `vector_reduction = [0, 0, 0, 0, 8]`: one query row per vector
tile, because IREE shrinks the tiles until Q, K and S of the QK matmul fit twice the register file.

Each N vector tile recomputes QK^T and the softmax for its columns, so the N tile decides how often that work
is done; the M tile decides how often every K and V element loaded is reused.

Rules, so that candidates compile (checked with iree-compile 3.13 on f32 and f16 attention):
- a vector tile is at most its workgroup tile; tiles need not divide (IREE masks the partial K2 tile: a 197-long
  sequence with K2 tiles of 16 gives the same result as IREE's default);
- IREE's large-vector check: each matmul's vector iteration space, in f32 whatever the input type, stays under
  `native_vector_size` x 512 bytes: `vec_m x K1 x red_k2` (QK^T) and `vec_m x vec_n x red_k2` (PV), both x 4 bytes
  ("One or more operations with large vector sizes (32768 bytes) were found" at exactly the limit on AVX-512).
"""

from __future__ import annotations

from iree.compiler import ir

from mltune.frontend.problem import Problem
from mltune.spaces.cpu_contraction import (
    VECTOR_BYTES_LIMIT_FACTOR,
    CpuContraction,
    vector_tile_values,
    workgroup_tile_values,
)
from mltune.spaces.space import Knob, Space
from mltune.targets.cpu import CpuInfo

PIPELINE = "LinalgExtTileAndVectorize"
COMPUTE_BYTES = 4  # both matmuls and the softmax run in f32 whatever the inputs' type
MAX_WORKGROUP_TILE = {"m": 512, "n": 512}
MAX_VECTOR_TILE = {"m": 32, "n": 128, "k2": 64}
LEVELS = ("distribution", "vector_common_parallel", "vector_reduction")


def attention_sizes(problem: Problem) -> dict[str, int]:
    """The sizes of the M, N, K1 and K2 loops (one each: `problem_from_root_op` checks)."""
    (m,), (n,), (k1,), (k2,) = (problem.sizes(loops) for loops in (problem.m, problem.n, problem.k, problem.k2))
    return {"m": m, "n": n, "k1": k1, "k2": k2}


def cpu_attention_space(problem: Problem, cpu: CpuInfo) -> Space:
    size = attention_sizes(problem)
    knobs = [
        Knob("wg_m", workgroup_tile_values(size["m"], MAX_WORKGROUP_TILE["m"])),
        Knob("wg_n", workgroup_tile_values(size["n"], MAX_WORKGROUP_TILE["n"])),
        Knob("vec_m", vector_tile_values(size["m"], MAX_VECTOR_TILE["m"])),
        Knob("vec_n", vector_tile_values(size["n"], MAX_VECTOR_TILE["n"])),
        Knob("red_k2", vector_tile_values(size["k2"], MAX_VECTOR_TILE["k2"])),
    ]
    space = Space(knobs, [])
    v = space.var
    limit = cpu.native_vector_bytes * VECTOR_BYTES_LIMIT_FACTOR
    space.constraints = (
        v("vec_m") <= v("wg_m"),
        v("vec_n") <= v("wg_n"),
        v("vec_m") * size["k1"] * v("red_k2") * COMPUTE_BYTES < limit,  # QK^T
        v("vec_m") * v("vec_n") * v("red_k2") * COMPUTE_BYTES < limit,  # PV
    )
    return space


def tile_lists(problem: Problem, knobs: dict[str, int]) -> dict[str, list[int]]:
    """The three tiling levels, one entry per loop of the op (batch loops 1 where IREE puts 1, K1 never tiled)."""
    levels = {name: [0] * len(problem.bounds) for name in LEVELS}
    for loop in problem.batch:
        levels["distribution"][loop] = levels["vector_common_parallel"][loop] = 1
    levels["distribution"][problem.m[0]], levels["distribution"][problem.n[0]] = knobs["wg_m"], knobs["wg_n"]
    levels["vector_common_parallel"][problem.m[0]] = knobs["vec_m"]
    levels["vector_common_parallel"][problem.n[0]] = knobs["vec_n"]
    levels["vector_reduction"][problem.k2[0]] = knobs["red_k2"]
    return levels


def knobs_of_levels(problem: Problem, levels: dict[str, list[int]]) -> dict[str, int]:
    """The knobs that describe a lowering config's tiling levels (the inverse of `tile_lists`)."""
    (m,), (n,), (k2,) = problem.m, problem.n, problem.k2
    return {
        "wg_m": levels["distribution"][m],
        "wg_n": levels["distribution"][n],
        "vec_m": levels["vector_common_parallel"][m],
        "vec_n": levels["vector_common_parallel"][n],
        "red_k2": levels["vector_reduction"][k2],
    }


class CpuAttention(CpuContraction):
    """The `Configurator` for an online attention on llvm-cpu with `LinalgExtTileAndVectorize` (no data tiling:
    IREE has no data-tiled attention)."""

    pipeline = PIPELINE

    build_space = staticmethod(cpu_attention_space)  # (problem, cpu) -> Space

    def __init__(self, problem: Problem, cpu: CpuInfo, context: ir.Context, data_tiling: bool = False):
        """As every llvm-cpu space is made (`mltune.spaces.configure`); the data-tiling wish is not one attention
        can honour."""
        super().__init__(problem, cpu, context, data_tiling=False)

    levels = staticmethod(tile_lists)  # (problem, knobs) -> tiling levels
