"""Features of llvm-cpu convolution candidates (`ConvTileAndDecomposeExpert`), from the problem and the knobs.

After decomposition a vector tile is a 1-D convolution: for every filter tap it multiplies a
`vec_oh x vec_ow x vec_ic` input patch by a `vec_ic x vec_oc` filter slice into `vec_oh x vec_ow x vec_oc`
accumulators (a depthwise conv: a `vec_oh x vec_ow x vec_oc` patch by `vec_oc` weights, no IC). So the
contraction's effects carry over with M = output pixels, N = output channels, K = input channels x filter taps:
register pressure, SIMD lane fill, FMAs per load, idle cores in the last wave, padding. The SIMD lanes run along
the output's innermost loop: the channels when channel-last, the output width when channel-first (NCHW). The
problem-level columns are those of the implicit GEMM, so that conv and matmul models could share them, plus the
window's stride and the layout.
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
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.frontend.conv_loops import conv_loops
from mltune.spaces.cpu_convolution import PARALLEL
from mltune.targets.cpu import CpuInfo

LANE_LOOP = {"nhwc_hwcf": "oc", "nhwc_hwc": "oc", "nchw_fchw": "ow"}  # the output's innermost loop, by layout


def cpu_convolution_features(problem: Problem, cpu: CpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    size = {name: problem.bounds[loop] for name, loop in conv_loops(problem).items()}
    col = candidates.column
    ones = np.ones(len(candidates), dtype=np.int64)
    depthwise = "ic" not in size
    wg = {d: col(f"wg_{d}") for d in PARALLEL}
    vec = {d: col(f"vec_{d}") for d in PARALLEL}
    red_taps, red_ic = col("red_kh") * col("red_kw"), ones if depthwise else col("red_ic")
    lane_loop = LANE_LOOP[problem.layout]
    lanes = max(1, cpu.native_vector_bytes // element_bytes(problem.out_type))
    vectors_per_row = ceil_div(vec[lane_loop], lanes)
    outputs = vec["oh"] * vec["ow"] * vec["oc"]
    accumulators = outputs // vec[lane_loop] * vectors_per_row
    pixels = vec["oh"] * vec["ow"]
    workgroups = (
        size["n"] * ceil_div(size["oh"], wg["oh"]) * ceil_div(size["ow"], wg["ow"]) * ceil_div(size["oc"], wg["oc"])
    )
    reduction = red_taps * red_ic
    input_loads = pixels * reduction * (vec["oc"] if depthwise else 1)  # a depthwise conv reads one input per FMA
    columns = {
        "vector_lane_fill": vec[lane_loop] / (vectors_per_row * lanes),
        "accumulator_registers": accumulators,
        "register_overflow": register_overflow(accumulators, vectors_per_row, cpu),
        "fma_per_load": outputs * reduction / (input_loads + reduction * vec["oc"]),
        "vector_volume": outputs * reduction,
        "padding_waste_pixels": padding_waste(size["oh"], wg["oh"]) + padding_waste(size["ow"], wg["ow"]),
        "padding_waste_oc": padding_waste(size["oc"], wg["oc"]),
        "vector_remainder": sum(padding_waste(wg[d], vec[d]) for d in PARALLEL),
        "padding_waste_ic": 0.0 * ones if depthwise else padding_waste(size["ic"], red_ic),
        "workgroups": workgroups,
        "log2_workgroups": np.log2(workgroups),
        "workgroups_per_core": workgroups / cpu.cores,
        "wave_inefficiency": wave_inefficiency(workgroups, cpu.cores),
        "decompose_width": vec["ow"] == 1,  # the W loops are removed (else H): the 1-D conv runs along H
        "log2_wg_pixels": np.log2(wg["oh"] * wg["ow"]),
        "log2_wg_oc": np.log2(wg["oc"]),
        "log2_vec_ow": np.log2(vec["ow"]),
        "log2_vec_oc": np.log2(vec["oc"]),
        "log2_red_ic": np.log2(red_ic),
        # the window's step spreads an output row's inputs apart; channel-first moves the lanes to the width
        "log2_stride": np.full(len(candidates), np.log2(max(problem.strides or (1,)))),
        "channel_first": np.full(len(candidates), lane_loop == "ow"),
    }
    gemm = (size["n"], size["oh"] * size["ow"], size["oc"], size["kh"] * size["kw"] * size.get("ic", 1))
    columns.update(
        target_relative_features(cpu, accumulators, vectors_per_row, 2.0 * float(np.prod(gemm)), len(candidates))
    )
    columns.update(problem_features(problem, gemm, len(candidates)))
    return FeatureMatrix.from_columns(columns)
