"""Batch-1 1x1 convolutions read as multi-loop contractions on GPU targets, compile only (no GPU here).

IREE folds the unit batch of a PyTorch ResNet's 1x1 convolution away; where the image loops stay apart (here a
stride-2 1x1, whose strided read IREE leaves to the producer dispatch) the root op is a 4-loop generic
out[oc, oh, ow] = sum_ic W[oc, ic] * in[ic, oh, ow], which IREE configures with MMA TileAndFuse over [oc, oh, ow, ic].
"""

from __future__ import annotations

import re

import pytest
from gpu_conv_helpers import (
    assert_sampled_candidates_compile,
    iree_default_knobs,
    lowering_lists,
    nchw_conv_source,
)
from gpu_dump_helpers import applied_configurations, dump_gpu_model, simt_config
from iree_helpers import checked_heuristic_order

from mltune.features import extractor_for
from mltune.frontend.one_op_model import one_by_one_convolution_model
from mltune.input.tuning_input import prepare_input
from mltune.spaces.configure import make_configurator
from mltune.spaces.gpu_multi_loop import GpuMultiLoopContraction
from mltune.spaces.gpu_simt_convolution import GpuSimtPointwise


@pytest.fixture(scope="module")
def dump(tmp_path_factory, context):
    directory = tmp_path_factory.mktemp("1x1s2")
    # 9x9 outputs: IREE's default pads the image tile (16 of 9), so its `padding` list is exercised too
    target, prepared, bench, stripped, problem, gpu = dump_gpu_model(
        nchw_conv_source(64, 18, 128, 1, 2, "f32"), "gfx942", directory, context
    )
    configurator = make_configurator(problem, gpu, context, stripped, directory / "space")
    return {
        "target": target,
        "source": prepared,
        "bench": bench,
        "stripped": stripped,
        "problem": problem,
        "configurator": configurator,
    }


def test_iree_default_is_a_point_of_the_multi_loop_space(dump):
    """The op reads as a multi-loop contraction (two M loops), gets the GPU space, and IREE's MMA TileAndFuse default
    (not an implicit GEMM) is a point whose lists are IREE's."""
    problem, configurator = dump["problem"], dump["configurator"]
    assert (problem.op_kind, problem.m, problem.n, problem.k, problem.strides) == (
        "multi_loop_contraction",
        (1, 2),
        (0,),
        (3,),
        (),
    )
    assert isinstance(configurator, GpuMultiLoopContraction), configurator
    text = dump["bench"].read_text()
    assert "use_igemm_convolution = false" in text and "pipeline<TileAndFuse>" in text
    default = iree_default_knobs(configurator, text)
    assert configurator.space.contains(default), default
    lists = lowering_lists(text)
    assert configurator.tile_lists(default) == {name: lists[name] for name in ("workgroup", "subgroup", "reduction")}
    padding = re.search(r"padding = \[([\d, ]*)\]", text).group(1)
    assert configurator.padding(default) == [int(v) for v in padding.split(",")]
    assert "use_igemm_convolution = false" in configurator.compilation_info(default)


@pytest.mark.e2e
def test_sampled_multi_loop_candidates_compile_with_their_config(dump, context, tmp_path):
    assert_sampled_candidates_compile(dump, context, tmp_path)


def test_multi_loop_candidates_have_features_and_a_heuristic_order(dump):
    """The convolution's extractor and heuristic rank the candidates (as an implicit GEMM: M = oh x ow)."""
    problem, configurator = dump["problem"], dump["configurator"]
    extractor = extractor_for(problem, configurator.gpu, ["TileAndFuse"])
    checked_heuristic_order(extractor, problem, configurator.gpu, configurator.candidates())


@pytest.mark.e2e
@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_a_strided_one_gets_the_scalar_thread_space_in_the_model_and_in_its_dump(arch, context, tmp_path):
    """A stride-2 1x1 convolution (ResNet-50's projections) IREE configures without MMA on gfx942 and sm_90 too (as a
    reduction at ResNet-50's sizes, with scalar threads at this one's): it gets the scalar-thread space, and a
    candidate (a spec on ROCm, the op annotated on CUDA) configures the model's dispatch as written, and its dump's as
    mltune builds a dump (from the phase it was dumped at; compiled from the start, the dump read its input through a
    slice no such spec matched), so the screen times it on its dump."""
    target, source, bench, stripped, problem, gpu = dump_gpu_model(
        one_by_one_convolution_model(64, 14, 32, 2), arch, tmp_path, context
    )
    assert problem.strides and "mma_kind" not in bench.read_text()
    configurator = make_configurator(problem, gpu, context, stripped, tmp_path / "space")
    assert isinstance(configurator, GpuSimtPointwise), configurator
    knobs = configurator.candidates().knobs(7)
    dump = prepare_input(bench, target, tmp_path, context)
    for name, built, flags in (("model", source, None), ("dump", dump.source, dump.compile_flags)):
        configs = applied_configurations(target, built, problem, configurator, knobs, tmp_path / name, context, flags)
        (configured,) = [text for text in configs if "reduction = [" in text]  # not the ReLU's before it
        lists, threads = simt_config(configured)
        assert lists["workgroup"] == configurator.levels(knobs)["workgroup"], name
        assert threads == configurator.workgroup_size(knobs), name
