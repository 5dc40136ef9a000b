"""Batch-1 channel-first convolutions (a PyTorch ResNet's, as exported) on GPU targets, compile only (no GPU here).

IREE folds the unit batch away before it configures a GPU dispatch: the root op is a 6-loop NCHW x FCHW generic
without a batch loop, which IREE configures (and a written config reaches) as an IGEMM over [oc, oh, ow, K]. On gfx942
f32 has an MFMA intrinsic; on sm_90 it has none (IREE lowers it with scalar threads), so sm_90 is checked on f16.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from gpu_conv_helpers import (
    assert_sampled_candidates_compile,
    iree_default_knobs,
    lowering_lists,
    nchw_conv_source,
)
from gpu_dump_helpers import dump_gpu_model, model_configuration
from iree_helpers import mltune

from mltune.emit.apply import make_applier
from mltune.frontend.conv_loops import output_loops
from mltune.spaces.configure import make_configurator
from mltune.spaces.gpu_convolution import GpuConvolution

CASES = {  # ResNet-50-like layers, scaled down: a 3x3, and the strided 7x7 stem (3 input channels: padded K)
    "3x3_f32_gfx942": ("gfx942", nchw_conv_source(64, 18, 64, 3, 1, "f32")),
    "7x7s2_f32_gfx942": ("gfx942", nchw_conv_source(3, 38, 64, 7, 2, "f32")),
    "3x3_f16_sm_90": ("sm_90", nchw_conv_source(64, 18, 64, 3, 1, "f16")),
    "3x3_batch2_f32_gfx942": ("gfx942", nchw_conv_source(64, 18, 64, 3, 1, "f32", batch=2)),  # keeps its batch loop
}


@pytest.fixture(scope="module")
def dumps(tmp_path_factory, context):
    found = {}
    for name, (target_name, source) in CASES.items():
        directory = tmp_path_factory.mktemp(name)
        target, prepared, bench, stripped, problem, gpu = dump_gpu_model(source, target_name, directory, context)
        configurator = make_configurator(problem, gpu, context, stripped, directory / "space")
        found[name] = {
            "target": target,
            "source": prepared,
            "bench": bench,
            "stripped": stripped,
            "problem": problem,
            "configurator": configurator,
        }
    return found


@pytest.mark.parametrize("name", list(CASES))
def test_batchless_conv_is_a_gpu_convolution_with_iree_default_in_its_space(dumps, name):
    """A batch-1 op reads as a convolution with no batch loop; IREE's IGEMM default (lists over [oc, oh, ow, K], a
    batch-2 one's over [n, oc, oh, ow, K]) is a point."""
    dump = dumps[name]
    problem, configurator = dump["problem"], dump["configurator"]
    assert (problem.op_kind, problem.layout, len(problem.batch)) == ("convolution", "nchw_fchw", int("batch2" in name))
    assert isinstance(configurator, GpuConvolution), configurator
    text = dump["bench"].read_text()
    lists = lowering_lists(text)
    assert output_loops(problem) == ("n",) * len(problem.batch) + ("oc", "oh", "ow")
    default = iree_default_knobs(configurator, text)
    assert configurator.space.contains(default), default
    assert configurator.tile_lists(default) == {name: lists[name] for name in ("workgroup", "subgroup", "reduction")}


@pytest.mark.e2e
@pytest.mark.parametrize("name", list(CASES))
def test_sampled_candidates_compile_with_their_config(dumps, context, tmp_path, name):
    """Two sampled candidates, applied the target's way, compile with their configuration."""
    assert_sampled_candidates_compile(dumps[name], context, tmp_path)


def test_on_cuda_a_model_level_batch_1_conv_is_folded_and_carries_its_config(dumps, context, tmp_path):
    """IREE 3.13 ignores specs on CUDA and folds the batch-1 conv into a new op, dropping an annotation on the model's
    op: an annotated `linalg.conv_2d_nchw_fchw` compiles to IREE's default. Written as the folded op in the source
    (`mltune.emit.unit_batch`), the model-level candidate lands as written."""
    dump = dumps["3x3_f16_sm_90"]
    configurator = make_configurator(dump["problem"], dump["configurator"].gpu, context, dump["stripped"], tmp_path)
    assert isinstance(configurator, GpuConvolution), configurator
    knobs = configurator.candidates().knobs(0)
    info = configurator.compilation_info(knobs)
    source = dump["source"].read_text()
    on_the_op = tmp_path / "on_the_op.mlir"
    on_the_op.write_text(
        source.replace("linalg.conv_2d_nchw_fchw {", f"linalg.conv_2d_nchw_fchw {{compilation_info = {info}, ", 1)
    )
    folded = tmp_path / "folded.mlir"
    folded.write_text(make_applier("cuda", dump["source"], context).apply(dump["problem"], info).text)
    configured = {
        path.stem: lowering_lists(model_configuration(path, tmp_path / path.stem)) for path in (on_the_op, folded)
    }
    assert configured["on_the_op"]["workgroup"] == lowering_lists(dump["bench"].read_text())["workgroup"]
    wanted = configurator.tile_lists(knobs)["workgroup"]
    assert configured["folded"]["workgroup"] == wanted != configured["on_the_op"]["workgroup"]


@pytest.mark.slow
@pytest.mark.e2e
def test_cli_compile_only_small_resnet_convolutions_gfx942(tmp_path):
    """The small ResNet-50-style export's batchless convolutions (their batch norm fused: constants the dump names
    without holding, restored as zeros) compile for gfx942 from the command line, and so do the candidates of every
    other dispatch it tunes (its pooling, a reduction IREE gives TileAndFuse, is refused, not tried)."""
    exported = Path(__file__).resolve().parents[1] / "examples" / "models" / "exported"
    for path in exported.glob("resnet50.*"):
        shutil.copy(path, tmp_path)
    result = mltune(
        ["tune", "resnet50.mlir", "--target", "gfx942", "--compile-only", "--budget", "2", "--run-dir", "run"],
        cwd=tmp_path,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    checks = json.loads((tmp_path / "run" / "compile_only.json").read_text())
    assert all(c["compiled"] == c["tried"] > 0 for c in checks), checks
    assert sum(c["problem"].startswith("convolution_") for c in checks) >= 3, checks
    assert "IREE configures this GPU reduction with TileAndFuse" in result.stdout, result.stdout[-3000:]
