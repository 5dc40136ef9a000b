"""The data-tiled lowering of an llvm-cpu contraction, as candidates of the same problem.

With `--iree-opt-data-tiling` IREE packs both operands into tiles of M0 x K0 and N0 x K0 (one dispatch each),
multiplies the packed tiles with a `linalg.mmt4d` lowered by `Mmt4dTilingExpert` (or, with
`--iree-llvmcpu-enable-ukernels=mmt4d`, by IREE's mmt4d microkernel) and unpacks the result. A tuning spec cannot
configure that mmt4d in IREE 3.13: specs are applied (`MaterializeUserConfigs`) before the encodings are
materialised (`MaterializeDeviceEncoding`), when the op is still the encoded `linalg.matmul`, and the mmt4d that
replaces it is a new op without the attribute. Its distribution tiles come from IREE's own cost model, whose
inputs are two compile flags IREE offers for coarse tuning: `--iree-llvmcpu-matmul-tile-bytes` (the operand
bytes a tile may hold, 256 KiB by default) and `--iree-llvmcpu-number-of-threads` (the threads the model
expects, 8 by default, whatever the machine). So a data-tiled candidate is a set of compile flags, and its
knobs are `lowering` (1: data-tiled codegen, 2: data-tiled with the microkernel), `dt_tile_kib` and
`dt_threads`. Its `wg_*`/`vec_*` columns hold the tiles IREE's cost model picks from those flags (replicated by
`mmt4d_distribution`, checked against the compiler in the tests), in elements, so that features read both
lowerings alike. Flags apply to every matmul of a model, so this is offered only where the model has one
contraction problem (a whole model's lowering is a flag variant, compared after tuning: `mltune.whole_model.flags`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mltune.frontend.problem import Problem, element_bytes
from mltune.targets.cpu import CpuInfo

PIPELINE = "Mmt4dTilingExpert"
PLAIN, DATA_TILED, DATA_TILED_UKERNEL = 0, 1, 2
LOWERING_NAMES = {
    PLAIN: "DoubleTilingExpert",
    DATA_TILED: "data-tiled mmt4d",
    DATA_TILED_UKERNEL: "data-tiled mmt4d ukernel",
}
KNOBS = ("lowering", "dt_tile_kib", "dt_threads")  # a plain candidate has 0 for each
TILE_KIB = (32, 64, 128, 256, 512, 1024)  # IREE's default is 256
IREE_DEFAULT_TILE_KIB, IREE_DEFAULT_THREADS = 256, 8
UNDERCOUNT_WHOLE_MATRIX = 0.5  # `--iree-llvmcpu-matmul-tile-undercount-whole-matrix`, IREE's default
# bf16 is left out: without native bf16 dot products (AVX2) the data-tiled mmt4d converts every element in its
# inner loop, with or without the microkernel, and runs many times slower than IREE's default (docs/cpu-blas.md);
# f16 converts with F16C and gains.
FLOAT_INPUTS = ("f32", "f16")


@dataclass(frozen=True)
class InnerTiles:
    m0: int
    n0: int
    k0: int


def inner_tiles(problem: Problem, cpu: CpuInfo) -> InnerTiles | None:
    """The packed tile IREE's x86 encoding resolver picks for f32 or f16 inputs with an f32 accumulator (AVX2:
    8 x 8 x 1, AVX-512: 16 x 16 x 1; a small M takes the narrow power of two covering it); None where data
    tiling is not offered (other element types, other vector widths)."""
    if problem.lhs_type not in FLOAT_INPUTS or problem.rhs_type != problem.lhs_type or problem.out_type != "f32":
        return None
    if cpu.native_vector_bytes not in (32, 64):
        return None
    width = cpu.native_vector_bytes // 4  # f32 lanes
    (m,) = problem.sizes(problem.m)
    m0 = next(t for t in (1, 2, 4, 8, 16) if t >= min(m, width))
    return InnerTiles(m0, width, 1)


def _divisor_pairs(n: int) -> list[tuple[int, int]]:
    """(a, n / a) for every divisor a of n, by increasing a (IREE's tie-break order)."""
    return sorted((a, n // a) for a in range(1, n + 1) if n % a == 0)


def mmt4d_distribution(problem: Problem, tiles: InnerTiles, tile_bytes: int, threads: int) -> tuple[int, int]:
    """The M1 and N1 distribution tiles (in packed tiles) of IREE's `getMmt4dLoweringConfig` for these flags."""
    (m,), (n,), (k,) = problem.sizes(problem.m), problem.sizes(problem.n), problem.sizes(problem.k)
    m1, n1, k1 = -(-m // tiles.m0), -(-n // tiles.n0), -(-k // tiles.k0)
    lhs_bits, rhs_bits, acc_bits = (
        8 * element_bytes(t) for t in (problem.lhs_type, problem.rhs_type, problem.out_type)
    )
    full_m, full_n = tiles.m0 * m1, tiles.n0 * n1

    def cost(tiles_m: int, tiles_n: int) -> int:
        traversal = tiles_n * full_m * lhs_bits + tiles_m * full_n * rhs_bits
        return traversal * max(1, threads // (tiles_m * tiles_n))

    best, best_cost = (1, 1), cost(m1, n1)
    for tile_m, tiles_m in _divisor_pairs(m1):
        for tile_n, tiles_n in _divisor_pairs(n1):
            lhs = tile_m * tiles.m0 * k1 * tiles.k0 * lhs_bits // 8
            rhs = tile_n * tiles.n0 * k1 * tiles.k0 * rhs_bits // 8
            acc = tile_m * tiles.n0 * tile_n * tiles.m0 * acc_bits // 8
            if tiles_m == 1:
                lhs = int(lhs * UNDERCOUNT_WHOLE_MATRIX)
            if tiles_n == 1:
                rhs = int(rhs * UNDERCOUNT_WHOLE_MATRIX)
            if tiles_m == 1 and tiles_n == 1:
                acc = int(acc * UNDERCOUNT_WHOLE_MATRIX)
            if lhs + rhs + acc > tile_bytes:
                continue
            if cost(tiles_m, tiles_n) < best_cost:
                best, best_cost = (tile_m, tile_n), cost(tiles_m, tiles_n)
    return best


def data_tiled_rows(problem: Problem, cpu: CpuInfo) -> np.ndarray:
    """One row per distinct data-tiled build: (wg_m, wg_n, vec_m, vec_n, vec_k, lowering, dt_tile_kib, dt_threads).

    Flag settings that give the same distribution tiles compile to the same module: only the first of them
    is kept, IREE's own defaults first."""
    tiles = inner_tiles(problem, cpu)
    if tiles is None:
        return np.empty((0, 5 + len(KNOBS)), dtype=np.int64)
    threads = sorted({IREE_DEFAULT_THREADS, cpu.cores}, key=lambda t: t != IREE_DEFAULT_THREADS)
    sizes = sorted(TILE_KIB, key=lambda kib: kib != IREE_DEFAULT_TILE_KIB)
    rows, seen = [], set()
    for lowering in (DATA_TILED_UKERNEL, DATA_TILED):
        for thread_count in threads:
            for kib in sizes:
                tile_m, tile_n = mmt4d_distribution(problem, tiles, kib * 1024, thread_count)
                if (lowering, tile_m, tile_n) in seen:
                    continue
                seen.add((lowering, tile_m, tile_n))
                rows.append(
                    (tile_m * tiles.m0, tile_n * tiles.n0, tiles.m0, tiles.n0, tiles.k0, lowering, kib, thread_count)
                )
    return np.array(rows, dtype=np.int64)


def applicable_knobs(knobs: dict[str, int]) -> dict[str, int]:
    """The knobs that configure this candidate's lowering: a plain tiling's without the data-tiling knobs (all 0),
    a data-tiled candidate's flags only (its tile columns are what IREE's cost model picks from them)."""
    if knobs.get("lowering", PLAIN) == PLAIN:
        return {name: value for name, value in knobs.items() if name not in KNOBS}
    return {name: knobs[name] for name in KNOBS}


def compile_flags(knobs: dict[str, int]) -> tuple[str, ...]:
    """The `iree-compile` flags of a data-tiled candidate."""
    flags = [
        "--iree-opt-data-tiling",
        f"--iree-llvmcpu-matmul-tile-bytes={knobs['dt_tile_kib'] * 1024}",
        f"--iree-llvmcpu-number-of-threads={knobs['dt_threads']}",
    ]
    if knobs["lowering"] == DATA_TILED_UKERNEL:
        flags.append("--iree-llvmcpu-enable-ukernels=mmt4d")
    return tuple(flags)
