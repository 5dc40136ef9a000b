"""Features of llvm-cpu attention candidates (`LinalgExtTileAndVectorize`), from the problem and the knobs.

A vector tile of an online attention computes, for `vec_m` query rows and `red_k2` keys at a time, the f32 score
tile S = Q K^T (vec_m x red_k2, over the whole head dim K1), its running max and sum, and the output accumulator
O += P V (vec_m x vec_n). So: each K and V element loaded serves `vec_m` rows, each Q element `red_k2` keys; S and O
live in vector registers; and every N tile repeats QK^T and the exponentials for its columns. Sizes that mean
different things on different cores appear in the target's units (vectors, registers, cache sizes, cores).
"""

from __future__ import annotations

import numpy as np

from mltune.features.base import FeatureMatrix
from mltune.features.cpu import ceil_div, padding_waste, wave_inefficiency
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.cpu_attention import COMPUTE_BYTES, attention_sizes
from mltune.targets.cpu import CpuInfo


def attention_registers(cpu: CpuInfo, candidates: CandidateSet) -> np.ndarray:
    """Vector registers a vector tile holds through its K2 loop, in whole vectors of the target's width: each row's
    f32 S slice and output accumulator, and the rows' running max and sum."""
    c = candidates.column
    lanes = max(1, cpu.native_vector_bytes // COMPUTE_BYTES)
    vec_m = c("vec_m")
    return vec_m * (ceil_div(c("vec_n"), lanes) + ceil_div(c("red_k2"), lanes)) + 2 * ceil_div(vec_m, lanes)


def cpu_attention_features(problem: Problem, cpu: CpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    size = attention_sizes(problem)
    c = candidates.column
    wg_m, wg_n, vec_m, vec_n, red_k2 = c("wg_m"), c("wg_n"), c("vec_m"), c("vec_n"), c("red_k2")
    batch = int(np.prod(problem.sizes(problem.batch), dtype=np.int64))
    in_bytes = element_bytes(problem.operand_types[0])
    lanes = max(1, cpu.native_vector_bytes // COMPUTE_BYTES)
    registers = attention_registers(cpu, candidates)
    workgroups = batch * ceil_div(size["m"], wg_m) * ceil_div(size["n"], wg_n)
    # one workgroup reads its Q rows, all of K and the V columns of its N tile, and writes its O tile
    footprint = (wg_m * size["k1"] + size["k2"] * (size["k1"] + wg_n)) * in_bytes + wg_m * wg_n * COMPUTE_BYTES
    # one K2 step of a vector tile: Q rows, the K and V slices, in the inputs' type
    step_bytes = (vec_m * size["k1"] + red_k2 * (size["k1"] + vec_n)) * in_bytes
    flops = 2.0 * batch * size["m"] * size["k2"] * (size["k1"] + size["n"])
    columns = {
        # QK^T and the softmax are computed once per N vector tile
        "qk_recomputed": ceil_div(size["n"], vec_n),
        "vector_lane_fill_n": vec_n / (ceil_div(vec_n, lanes) * lanes),
        "vector_lane_fill_k2": red_k2 / (ceil_div(red_k2, lanes) * lanes),
        "register_fill": registers / cpu.vector_registers,
        "register_overflow": np.maximum(0, registers + 1 - cpu.vector_registers),
        # multiply-adds per loaded element: K and V serve vec_m rows, Q serves red_k2 keys
        "qk_fma_per_load": vec_m * red_k2 / (vec_m + red_k2),
        "pv_fma_per_load": vec_m * vec_n * red_k2 / (vec_m * red_k2 + red_k2 * vec_n),
        "kv_reuse_rows": vec_m,
        "padding_waste_m": padding_waste(size["m"], wg_m),
        "padding_waste_n": padding_waste(size["n"], wg_n),
        # a partial K2 tile is masked: its lanes compute scores that are thrown away
        "padding_waste_k2": padding_waste(size["k2"], red_k2),
        "vector_remainder": padding_waste(wg_m, vec_m) + padding_waste(wg_n, vec_n),
        "workgroups_per_core": workgroups / cpu.cores,
        "wave_inefficiency": wave_inefficiency(workgroups, cpu.cores),
        "step_per_l1": step_bytes / cpu.l1d_bytes,
        "workgroup_footprint_per_l2": footprint / cpu.l2_bytes,
        "log2_wg_m": np.log2(wg_m),
        "log2_wg_n": np.log2(wg_n),
        "log2_vec_m": np.log2(vec_m),
        "log2_vec_n": np.log2(vec_n),
        "log2_red_k2": np.log2(red_k2),
    }
    problem_level = {
        "log2_batch": np.log2(batch),
        "log2_m": np.log2(size["m"]),
        "log2_n": np.log2(size["n"]),
        "log2_k1": np.log2(size["k1"]),
        "log2_k2": np.log2(size["k2"]),
        "input_bytes": in_bytes,
        "masked": bool(problem.mask_type),  # one more load and select per score
        # the problem's size in ideal cycles of the whole CPU at its f32 peak
        "log2_peak_cycles": np.log2(flops / (cpu.cores * cpu.peak_flops_per_cycle)),
    }
    columns.update({name: np.full(len(candidates), value, dtype=np.float64) for name, value in problem_level.items()})
    return FeatureMatrix.from_columns(columns)
