"""The learning features of CPU contraction candidates, checked against values computed by hand."""

from __future__ import annotations

import numpy as np
import pytest
from learn_helpers import matmul_problem

from mltune.errors import UserError
from mltune.features import EXTRACTORS, extractor_for, gpu_any_contraction_features
from mltune.features.cpu import cpu_contraction_features
from mltune.features.cpu_attention import cpu_attention_features
from mltune.features.cpu_convolution import cpu_convolution_features
from mltune.features.gpu_attention import gpu_attention_features
from mltune.features.gpu_matvec import gpu_matvec_features
from mltune.frontend.problem import Problem
from mltune.spaces.candidate import CandidateSet
from mltune.targets.cpu import CpuInfo

KNOBS = ("wg_m", "wg_n", "vec_m", "vec_n", "vec_k")


def test_cache_padding_and_area_features_by_hand():
    # synthetic: two candidates of a 100x1000x300 f32 matmul on a CPU with 64-byte vectors and 3 cores
    rows = np.array([[50, 64, 5, 16, 15], [64, 1000, 8, 20, 64]])
    f = cpu_contraction_features(matmul_problem(100, 1000, 300), CpuInfo("synthetic", 64, 3), CandidateSet(KNOBS, rows))
    # (m*k + k*n + m*n) / (m*n*k) of the vector tile
    np.testing.assert_allclose(f["vector_area_per_volume"], [(75 + 240 + 80) / 1200, (512 + 1280 + 160) / 10240])
    # padded output: 2*50 x 16*64 = 100 x 1024 and 2*64 x 1*1000 = 128 x 1000
    np.testing.assert_allclose(f["padding_waste_total"], [1 - 100_000 / (100 * 1024), 1 - 100_000 / (128 * 1000)])
    np.testing.assert_allclose(f["workgroups_per_core"], [32 / 3, 2 / 3])
    np.testing.assert_allclose(f["wave_inefficiency"], [1 / 33, 1 / 3])
    # (vec_m + vec_n) rows/columns over K = 300, 4 bytes each
    panels = np.array([(5 + 16) * 300 * 4, (8 + 20) * 300 * 4])
    # a 64-byte CPU the table lacks is taken as a typical AVX-512 server core: 48 KiB L1D, 1.25 MiB L2
    np.testing.assert_array_equal(f["vector_panel_fits_l1"], panels <= 48 * 1024)
    np.testing.assert_allclose(f["vector_panel_per_l1"], panels / (48 * 1024))
    footprints = np.array([(50 * 300 + 300 * 64) * 4 + 50 * 64 * 4, (64 * 300 + 300 * 1000) * 4 + 64 * 1000 * 4])
    np.testing.assert_array_equal(f["workgroup_fits_l2"], footprints <= 1280 * 1024)
    assert f["workgroup_fits_l2"].tolist() == [1.0, 0.0]


def test_target_relative_features_read_the_cpu_table():
    """The same candidates on an AVX-512 core (emeraldrapids) and an AVX2 one (znver3): registers, lanes, caches and
    FMA units come from the table, so the relative columns differ where the cores do."""
    rows = np.array([[16, 64, 8, 32, 4]])  # 8 x 32 accumulators of f32
    problem = matmul_problem(128, 256, 512)
    er = cpu_contraction_features(problem, CpuInfo("emeraldrapids", 64, 2), CandidateSet(KNOBS, rows))
    zen = cpu_contraction_features(problem, CpuInfo("znver3", 32, 2), CandidateSet(KNOBS, rows))
    # 16 lanes: 2 vectors per row, 16 accumulators; 8 lanes: 4 per row, 32 accumulators
    assert er["register_fill"][0] == pytest.approx((16 + 2 + 1) / 32) and er["register_overflow"][0] == 0
    assert zen["register_fill"][0] == pytest.approx((32 + 4 + 1) / 16) and zen["register_overflow"][0] == 21
    assert er["vector_n_per_lanes"][0] == 2 and zen["vector_n_per_lanes"][0] == 4
    assert er["fma_latency_cover"][0] == pytest.approx(16 / 8) and zen["fma_latency_cover"][0] == pytest.approx(4.0)
    panel = (8 + 32) * 512 * 4
    assert er["vector_panel_per_l1"][0] == pytest.approx(panel / (48 * 1024))
    assert zen["vector_panel_per_l1"][0] == pytest.approx(panel / (32 * 1024))
    flops = 2 * 128 * 256 * 512
    assert er["log2_peak_cycles"][0] == pytest.approx(np.log2(flops / (2 * 64)))
    assert zen["log2_peak_cycles"][0] == pytest.approx(np.log2(flops / (2 * 32)))


def test_problem_level_features_are_constant_per_problem():
    # synthetic: a batch of 12 f16 x f16 -> f32 contractions with a transposed RHS (nt)
    p = Problem(
        "contraction",
        "linalg.batch_matmul",
        (12, 128, 3072, 768),
        (0,),
        (1,),
        (2,),
        (3,),
        "f16",
        "f16",
        "f32",
        (),
        "nt",
    )
    rows = np.array([[64, 64, 8, 32, 16], [32, 128, 4, 16, 8]])
    f = cpu_contraction_features(p, CpuInfo("synthetic", 64, 4), CandidateSet(KNOBS, rows))
    expect = {
        "log2_m": 7,
        "log2_n": np.log2(3072),
        "log2_k": np.log2(768),
        "log2_batch": np.log2(12),
        "log2_flops": np.log2(2 * 12 * 128 * 3072 * 768),
        "input_bytes": 2,
        "accumulator_bytes": 4,
        "lhs_transposed": 0,
        "rhs_transposed": 1,
    }
    for name, value in expect.items():
        np.testing.assert_allclose(f[name], [value, value], err_msg=name)
    assert f.values.shape == (2, len(f.names)) and len(set(f.names)) == len(f.names)


def test_extractors_are_chosen_by_target_family_and_op_kind():
    """Synthetic problems and targets: the extractor follows (CPU or GPU, op kind), never a candidate's pipeline."""
    from learn_helpers import SYNTHETIC_GPU

    mm = matmul_problem(64, 96, 48)
    cpu = CpuInfo("synthetic", 64, 4)
    assert extractor_for(mm, cpu, ["DoubleTilingExpert"]) is cpu_contraction_features
    with pytest.raises(UserError, match="no feature extractor for pipeline 'amdsharktuner/x'"):
        extractor_for(mm, cpu, ["amdsharktuner/x"])
    # GPU contractions and convolutions of both pipelines share the GPU extractor (through the one that also reads
    # SIMT candidates, for targets with no intrinsic for their types)
    assert extractor_for(mm, SYNTHETIC_GPU, ["TileAndFuse", "VectorDistribute"]) is gpu_any_contraction_features
    conv = Problem(**{**mm.to_record(), "op_kind": "convolution"})
    assert extractor_for(conv, SYNTHETIC_GPU, ["TileAndFuse", "TileAndFuseSIMT"]) is gpu_any_contraction_features
    with pytest.raises(UserError, match="no feature extractor for pipeline 'TileAndFuse' of contraction on cpu"):
        extractor_for(mm, cpu, ["TileAndFuse"])
    # llvm-cpu convolutions (ConvTileAndDecomposeExpert) have an extractor of their own; other pipelines are refused
    assert extractor_for(conv, cpu, ["ConvTileAndDecomposeExpert"]) is cpu_convolution_features
    with pytest.raises(UserError, match="no feature extractor for pipeline 'DoubleTilingExpert' of convolution on cpu"):
        extractor_for(conv, cpu, ["DoubleTilingExpert"])
    # attention candidates are VectorDistribute too, but have knobs of their own: the op kind decides
    attention = Problem(**{**mm.to_record(), "op_kind": "attention"})
    assert extractor_for(attention, SYNTHETIC_GPU, ["VectorDistribute"]) is gpu_attention_features
    # llvm-cpu attention (LinalgExtTileAndVectorize) has an extractor of its own
    assert extractor_for(attention, cpu, ["LinalgExtTileAndVectorize"]) is cpu_attention_features
    with pytest.raises(UserError, match="no feature extractor for pipeline 'VectorDistribute' of attention on cpu"):
        extractor_for(attention, cpu, ["VectorDistribute"])
    # so are matvecs (IREE's reduction config): the op kind, read from IREE's configuration, decides
    matvec = Problem(**{**mm.to_record(), "op_kind": "matvec"})
    assert extractor_for(matvec, SYNTHETIC_GPU, ["VectorDistribute"]) is gpu_matvec_features
    assert set(EXTRACTORS) == {
        ("cpu", "contraction"),
        ("cpu", "convolution"),
        ("cpu", "depthwise_convolution"),
        ("cpu", "attention"),
        ("cpu", "reduction"),
        ("cpu", "multi_loop_contraction"),
        ("gpu", "contraction"),
        ("gpu", "convolution"),
        ("gpu", "attention"),
        ("gpu", "matvec"),
        ("gpu", "reduction"),
        ("gpu", "multi_loop_contraction"),
        ("gpu", "elementwise"),
        ("gpu", "depthwise_convolution"),
    }
