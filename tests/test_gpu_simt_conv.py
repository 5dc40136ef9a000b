"""GPU convolutions no MMA intrinsic fits (f32 on sm_90; ResNet-50 and MobileNet-V2 as PyTorch exports them),
compile only: as a dispatch they get the SIMT convolution spaces over IREE's direct TileAndFuse lists (3x3 and 7x7
ones, depthwise ones, and 1x1 ones read as multi-loop contractions, strided or not), IREE's own default is one of
their points, sampled candidates compile for sm_90 (depthwise ones for gfx942 too) with exactly their config, and
the features and heuristic read them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from gpu_conv_helpers import nchw_conv_source, nchw_depthwise_source
from gpu_dump_helpers import applied_configurations, dump_gpu_model, model_configuration, simt_config
from iree_helpers import applied_compile_args, checked_heuristic_order, mltune, run

from mltune.emit.apply import make_applier
from mltune.features import extractor_for
from mltune.features.gpu_simt import gpu_simt_features, simt_gemm
from mltune.frontend.one_op_model import one_by_one_convolution_model
from mltune.spaces.configure import make_configurator
from mltune.spaces.gpu_simt_convolution import OUTPUT_LOOPS, GpuSimtConvolution, GpuSimtPointwise, window_loops

CASES = {  # ResNet-50's layers, scaled down: a 3x3, a strided 3x3, the 7x7 stem (3 input channels), 1x1 ones
    "3x3": nchw_conv_source(64, 30, 64, 3, 1, "f32"),
    "3x3s2": nchw_conv_source(32, 33, 64, 3, 2, "f32"),
    "7x7s2": nchw_conv_source(3, 37, 64, 7, 2, "f32"),
    "1x1": one_by_one_convolution_model(64, 14, 128, 1, pad_output=1),  # padded for a 3x3: height and width apart
    "1x1s2": one_by_one_convolution_model(128, 7, 64, 2),  # IREE gives it a reduction config
    "dw3x3": nchw_depthwise_source(48, 30, 3, 1),  # MobileNet-V2's depthwise layers, scaled down
    "dw3x3s2": nchw_depthwise_source(32, 33, 3, 2),
}
SPACES = {
    "3x3": GpuSimtConvolution,
    "3x3s2": GpuSimtConvolution,
    "7x7s2": GpuSimtConvolution,
    "1x1": GpuSimtPointwise,
    "1x1s2": GpuSimtPointwise,
    "dw3x3": GpuSimtConvolution,
    "dw3x3s2": GpuSimtConvolution,
}


@pytest.fixture(scope="module")
def dumps(tmp_path_factory, context):
    found = {}
    for name, source in CASES.items():
        directory = tmp_path_factory.mktemp(name)
        target, prepared, bench, stripped, problem, gpu = dump_gpu_model(source, "sm_90", directory, context)
        configurator = make_configurator(problem, gpu, context, stripped, directory / "space")
        found[name] = {
            "target": target,
            "source": prepared,
            "bench": bench,
            "stripped": stripped,
            "problem": problem,
            "gpu": gpu,
            "configurator": configurator,
        }
    return found


def _knobs(configurator: GpuSimtConvolution, lists: dict[str, list[int]]) -> dict[str, int]:
    """A configured dispatch's lists as the space's knobs."""
    loops = window_loops(configurator.problem)
    knobs = {
        f"{level}_{loop}": lists[name][loops[loop]]
        for loop in OUTPUT_LOOPS
        for level, name in (("wg", "workgroup"), ("th", "thread"))
    }
    return knobs | {
        "red_ic": lists["reduction"][loops["ic"]] if "ic" in loops else 1,
        "promote": int("promote_operands" in lists),
        "red_kh": lists["reduction"][loops["kh"]] if "kh" in loops else 1,
    }


@pytest.mark.parametrize("name", list(CASES))
def test_f32_dispatch_gets_the_simt_space_with_iree_default(dumps, name):
    """IREE's own scalar config of the folded convolution (6-loop lists, the whole filter window per step; for a 1x1
    one a 32 x 128 image tile) is a point; a strided 1x1 one IREE configures as a reduction."""
    dump = dumps[name]
    configurator = dump["configurator"]
    assert dump["problem"].batch == () and type(configurator) is SPACES[name], configurator
    text = dump["bench"].read_text()
    if name == "1x1s2":
        assert "partial_reduction" in text and dump["problem"].strides
        return
    lists, threads = simt_config(text)
    default = _knobs(configurator, lists)
    assert configurator.space.contains(default), default
    levels = configurator.levels(default)
    assert levels["thread"] == lists["thread"] and levels["reduction"] == lists["reduction"]
    assert [w for w, r in zip(lists["workgroup"], lists["reduction"]) if not r] == [
        w for w, r in zip(levels["workgroup"], lists["reduction"]) if not r
    ]  # IREE's 1 on a reduction loop
    assert configurator.workgroup_size(default) == threads


@pytest.mark.parametrize("name", ["3x3", "1x1", "dw3x3s2"])
def test_on_cuda_a_model_level_candidate_lands_on_the_folded_op(dumps, context, tmp_path, name):
    """The model's batch-1 convolution, written as the op IREE dispatches (`mltune.emit.unit_batch`), carries a
    model-level candidate: the model's dispatch is configured with exactly its lists."""
    dump = dumps[name]
    configurator = make_configurator(dump["problem"], dump["gpu"], context, dump["stripped"], tmp_path / "space")
    assert isinstance(configurator, SPACES[name]), configurator
    knobs = configurator.candidates().knobs(3)
    annotated = tmp_path / "annotated.mlir"
    annotated.write_text(
        make_applier("cuda", dump["source"], context).apply(dump["problem"], configurator.compilation_info(knobs)).text
    )
    lists, threads = simt_config(model_configuration(annotated, tmp_path / "configs"))
    assert _knobs(configurator, lists) == knobs and threads == configurator.workgroup_size(knobs)


@pytest.mark.e2e
def test_a_depthwise_convolution_gets_the_simt_space_on_gfx942_too(context, tmp_path):
    """No MMA intrinsic computes a depthwise convolution on any target: on gfx942 IREE gives it scalar TileAndFuse
    threads too, its default is a point, and a candidate's spec configures the model's dispatch as written."""
    target, source, bench, stripped, problem, gpu = dump_gpu_model(CASES["dw3x3s2"], "gfx942", tmp_path, context)
    configurator = make_configurator(problem, gpu, context, stripped, tmp_path / "space")
    assert problem.op_kind == "depthwise_convolution" and isinstance(configurator, GpuSimtConvolution), configurator
    lists, threads = simt_config(bench.read_text())
    assert configurator.space.contains(_knobs(configurator, lists)) and threads == 64
    knobs = configurator.candidates().knobs(5)
    (configured,) = applied_configurations(target, source, problem, configurator, knobs, tmp_path / "out", context)
    lists, threads = simt_config(configured)
    assert _knobs(configurator, lists) == knobs and threads == configurator.workgroup_size(knobs)


def test_space_holds_its_limits(dumps):
    """Thread counts are warps within the target's limit; promoted tiles (with the window's halo) fit 48 KiB."""
    configurator = dumps["7x7s2"]["configurator"]
    candidates = configurator.candidates()
    gemm = simt_gemm(configurator.problem, candidates)
    assert len(candidates) > 1000 and gemm.threads.max() <= 1024 and (gemm.threads % 32 == 0).all()
    assert set(candidates.column("red_ic")) == {1, 3} and set(candidates.column("red_kh")) == {1, 7}
    assert (gemm.red_k % 7 == 0).all() and gemm.k == 7 * 7 * 3
    for i in np.random.default_rng(0).choice(len(candidates), 5, replace=False):
        assert configurator.space.contains(candidates.knobs(int(i)))


@pytest.mark.e2e
@pytest.mark.parametrize(
    "name", [n if n in ("3x3", "1x1s2", "dw3x3") else pytest.param(n, marks=pytest.mark.slow) for n in CASES]
)  # one of each space by default, the others with the slow tests
def test_candidates_compile_with_their_config(dumps, context, tmp_path, name):
    """Two sampled candidates (one promoted), applied to the dispatch as mltune applies them on CUDA, compile for
    sm_90, and the compiler configured the dispatch with exactly their lists and workgroup size."""
    dump = dumps[name]
    configurator = dump["configurator"]
    candidates = configurator.candidates()
    rng = np.random.default_rng(4)
    picks = [int(rng.choice(np.flatnonzero(candidates.column("promote")))), int(rng.integers(len(candidates)))]
    applier = make_applier(dump["target"].kind, dump["stripped"], context)
    for i, index in enumerate(picks):
        knobs = candidates.knobs(index)
        out = tmp_path / f"candidate_{i}"
        out.mkdir()
        result = run(
            applied_compile_args(
                applier.apply(dump["problem"], configurator.compilation_info(knobs)), dump["stripped"], out
            )
        )
        assert result.returncode == 0, result.stderr[-2000:]
        lists, threads = simt_config("".join(p.read_text() for p in (out / "configs").glob("*.mlir")))
        assert _knobs(configurator, lists) == knobs and threads == configurator.workgroup_size(knobs)


def test_features_and_heuristic_order(dumps):
    """The SIMT features read a convolution as its GEMM; the heuristic's first candidate fills most SMs."""
    dump = dumps["3x3"]
    problem, gpu, candidates = dump["problem"], dump["gpu"], dump["configurator"].candidates()
    features, order = checked_heuristic_order(extractor_for(problem, gpu), problem, gpu, candidates)
    assert features.names == gpu_simt_features(problem, gpu, candidates).names
    assert features.values[order[0], features.names.index("busy_sms")] >= 0.5


@pytest.mark.e2e
def test_a_dumped_resnet_stem_compiles_from_the_command_line(tmp_path):
    """ResNet-50's 7x7 stem as dumped for sm_90 names its fused batch norm's constants without holding them: given as
    the input, they are restored as zeros and every candidate tried compiles (without them none does)."""
    dump = Path(__file__).resolve().parents[1] / "benchmarks/results/sm_90/gpu_kinds/dispatches/resnet50_conv_d1.mlir"
    assert "dense_resource<" in dump.read_text()
    result = mltune(
        ["tune", str(dump), "--target", "sm_90", "--compile-only", "--budget", "3", "--run-dir", "run"], cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (check,) = json.loads((tmp_path / "run" / "compile_only.json").read_text())
    assert check["pipeline"] == "TileAndFuseSIMT" and check["compiled"] == check["tried"] == 3, check
