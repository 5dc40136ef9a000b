"""Features of llvm-cpu convolution candidates (`ConvTileAndDecomposeExpert`), from the problem and the knobs.

After decomposition a vector tile is a 1-D convolution: for every filter tap it multiplies a
`vec_oh x vec_ow x vec_ic` input patch by a `vec_ic x vec_oc` filter slice into `vec_oh x vec_ow x vec_oc`
accumulators. So the contraction's effects carry over with M = output pixels, N = output channels,
K = input channels x filter taps: register pressure, SIMD lane fill along OC, FMAs per load, idle cores
in the last wave, padding. The problem-level columns are those of the implicit GEMM, so that conv and
matmul models could share them.
"""

from __future__ import annotations

import numpy as np

from mltune.features.base import FeatureMatrix
from mltune.features.cpu import (
    ceil_div,
    padding_waste,
    problem_features,
    register_overflow,
    target_relative_features,
    wave_inefficiency,
)
from mltune.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.cpu_convolution import conv_loops
from mltune.targets.cpu import CpuInfo


def cpu_convolution_features(problem: Problem, cpu: CpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    size = {name: problem.bounds[loop] for name, loop in conv_loops(problem).items()}
    col = candidates.column
    wg_oh, wg_ow, wg_oc = col("wg_oh"), col("wg_ow"), col("wg_oc")
    vec_oh, vec_ow, vec_oc = col("vec_oh"), col("vec_ow"), col("vec_oc")
    red_taps, red_ic = col("red_kh") * col("red_kw"), col("red_ic")
    lanes = max(1, cpu.native_vector_bytes // element_bytes(problem.out_type))
    vectors_per_row = ceil_div(vec_oc, lanes)
    pixels = vec_oh * vec_ow
    accumulators = pixels * vectors_per_row
    workgroups = size["n"] * ceil_div(size["oh"], wg_oh) * ceil_div(size["ow"], wg_ow) * ceil_div(size["oc"], wg_oc)
    reduction = red_taps * red_ic
    columns = {
        "vector_lane_fill": vec_oc / (vectors_per_row * lanes),
        "accumulator_registers": accumulators,
        "register_overflow": register_overflow(accumulators, vectors_per_row, cpu),
        "fma_per_load": pixels * vec_oc * reduction / (pixels * reduction + reduction * vec_oc),
        "vector_volume": pixels * vec_oc * reduction,
        "padding_waste_pixels": padding_waste(size["oh"], wg_oh) + padding_waste(size["ow"], wg_ow),
        "padding_waste_oc": padding_waste(size["oc"], wg_oc),
        "vector_remainder": padding_waste(wg_oh, vec_oh) + padding_waste(wg_ow, vec_ow) + padding_waste(wg_oc, vec_oc),
        "padding_waste_ic": padding_waste(size["ic"], red_ic),
        "workgroups": workgroups,
        "log2_workgroups": np.log2(workgroups),
        "workgroups_per_core": workgroups / cpu.cores,
        "wave_inefficiency": wave_inefficiency(workgroups, cpu.cores),
        "decompose_width": vec_ow == 1,  # the W loops are removed (else H): the 1-D conv runs along H
        "log2_wg_pixels": np.log2(wg_oh * wg_ow),
        "log2_wg_oc": np.log2(wg_oc),
        "log2_vec_ow": np.log2(vec_ow),
        "log2_vec_oc": np.log2(vec_oc),
        "log2_red_ic": np.log2(red_ic),
    }
    gemm = (size["n"], size["oh"] * size["ow"], size["oc"], size["kh"] * size["kw"] * size["ic"])
    columns.update(target_relative_features(cpu, accumulators, vectors_per_row, 2.0 * float(np.prod(gemm)),
                                            len(candidates)))
    columns.update(problem_features(problem, gemm, len(candidates)))
    return FeatureMatrix.from_columns(columns)
