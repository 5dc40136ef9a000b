"""llvm-cpu convolutions (`ConvTileAndDecomposeExpert`): the space, IREE's default inside it, the spec applied by
the real compiler (batch 1, channel-first, strided and depthwise convolutions included), and a short real tuning
run."""

from __future__ import annotations

import filecmp
import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from gpu_conv_helpers import nchw_depthwise_source
from iree_helpers import (
    CPU_FLAGS,
    conv2d_nhwc_source,
    dump_one_op,
    mltune,
    parse_levels,
    strip_config,
    trial_record_files,
)

from mltune.emit.spec import build_spec, link_specs
from mltune.features import extractor_for
from mltune.frontend.one_op_model import convolution_model
from mltune.frontend.problem import Problem, Untunable
from mltune.rankers import make_ranker
from mltune.rankers.base import RankingInput
from mltune.spaces.configure import make_configurator
from mltune.spaces.cpu_contraction import VECTOR_BYTES_LIMIT_FACTOR, CpuContraction
from mltune.spaces.cpu_convolution import PIPELINE, CpuConvolution, knobs_of_levels, tile_lists
from mltune.spaces.gpu_simt_convolution import GpuSimtConvolution
from mltune.system.tools import tool_path

SHAPES = {  # small on purpose: (N, H, W, C, F, kernel)
    "conv": (2, 10, 10, 8, 16, 3),
    "conv_odd": (4, 18, 18, 16, 24, 3),  # IREE's default has an OC tile of 12: not a whole AVX-512 vector
    "conv_batch1": (1, 10, 10, 8, 16, 3),
}
# (named op, input, filter, output, stride): the other kinds real models hold, at batch 1 as exported
OTHER_SOURCES = {
    "nchw_strided": ("linalg.conv_2d_nchw_fchw", (1, 4, 33, 33), (16, 4, 3, 3), (1, 16, 16, 16), 2),
    "depthwise": ("linalg.depthwise_conv_2d_nhwc_hwc", (1, 12, 12, 16), (3, 3, 16), (1, 10, 10, 16), 1),
    "pointwise_nchw": ("linalg.conv_2d_nchw_fchw", (1, 16, 8, 8), (32, 16, 1, 1), (1, 32, 8, 8), 1),
}
NEW_KINDS = ("conv_batch1", "nchw_strided", "depthwise")


def _source(name: str) -> str:
    if name in SHAPES:
        n, h, w, c, f, kernel = SHAPES[name]
        return conv2d_nhwc_source(n, h, w, c, f, kernel, "f32", "f32")
    return convolution_model(*OTHER_SOURCES[name])


def _dump(name, directory: Path, context):
    return dump_one_op(_source(name), name, directory, context)


@pytest.fixture(scope="module")
def convs(tmp_path_factory, context):
    root = tmp_path_factory.mktemp("convs")
    found = {}
    for name in [*SHAPES, *OTHER_SOURCES]:
        (root / name).mkdir()
        found[name] = _dump(name, root / name, context)
    return found


def test_the_dump_is_conv_tile_and_decompose(convs):
    text = convs["conv"]["bench"].read_text()
    assert "#iree_cpu.pipeline<ConvTileAndDecomposeExpert>" in text
    assert convs["conv"]["problem"].op_kind == "convolution"


def test_problems_record_kind_layout_and_window(convs):
    expected = {
        "conv": ("convolution", "nhwc_hwcf", (1, 1)),
        "conv_batch1": ("convolution", "nhwc_hwcf", (1, 1)),
        "nchw_strided": ("convolution", "nchw_fchw", (2, 2)),
        "depthwise": ("depthwise_convolution", "nhwc_hwc", (1, 1)),
    }
    for name, (kind, layout, strides) in expected.items():
        problem = convs[name]["problem"]
        assert (problem.op_kind, problem.layout, problem.strides, problem.dilations) == (kind, layout, strides, (1, 1))
        assert problem.sizes(problem.batch) == (SHAPES.get(name, (1,))[0],)
    assert convs["nchw_strided"]["problem"].key.endswith("_nchw_fchw_s2x2"), "a strided conv's key says so"
    assert convs["depthwise"]["problem"].sizes(convs["depthwise"]["problem"].k) == (3, 3), "no input channel loop"


def test_a_pointwise_conv_stays_a_contraction(convs, context):
    """A 1x1 convolution is a contraction to IREE and to mltune: it keeps the contraction space."""
    dumped = convs["pointwise_nchw"]
    assert dumped["problem"].op_kind == "contraction"
    configurator = make_configurator(dumped["problem"], dumped["cpu"], context, dumped["bench"], Path("unused"))
    assert isinstance(configurator, CpuContraction) and not isinstance(configurator, CpuConvolution)


@pytest.mark.parametrize("name", ["conv", "conv_odd", *NEW_KINDS])
def test_every_candidate_keeps_the_rules_and_the_default_is_inside(convs, context, name):
    dumped = convs[name]
    configurator = CpuConvolution(dumped["problem"], dumped["cpu"], context)
    candidates = configurator.candidates()
    assert len(candidates) > 100
    assert isinstance(
        make_configurator(dumped["problem"], dumped["cpu"], context, dumped["bench"], Path("unused")), CpuConvolution
    )
    c = {knob: candidates.column(knob) for knob in candidates.names}
    for d in ("oh", "ow", "oc"):
        assert (c[f"vec_{d}"] <= c[f"wg_{d}"]).all()
    decomposable = ((c["vec_oh"] == 1) & (c["red_kh"] == 1)) | ((c["vec_ow"] == 1) & (c["red_kw"] == 1))
    assert decomposable.all(), "IREE's verifier needs OH and KH, or OW and KW, tiled to 1"
    volume = np.prod([c[k] for k in ("vec_oh", "vec_ow", "vec_oc", "red_kh", "red_kw", "red_ic") if k in c], axis=0)
    assert (volume * 4 < dumped["cpu"].native_vector_bytes * VECTOR_BYTES_LIMIT_FACTOR).all()
    filter_slice = np.prod([c[k] for k in ("vec_oc", "red_kh", "red_kw", "red_ic") if k in c], axis=0)
    assert (filter_slice * 4 <= dumped["cpu"].native_vector_bytes * VECTOR_BYTES_LIMIT_FACTOR // 2).all()
    for row in np.random.default_rng(0).choice(len(candidates), 20, replace=False):  # Z3 agrees with numpy
        assert configurator.space.contains(candidates.knobs(int(row)))
    default = knobs_of_levels(dumped["problem"], dumped["levels"])
    assert configurator.space.contains(default), f"IREE's default {dumped['levels']} -> {default}"
    assert candidates.index_of(default) is not None
    assert tile_lists(dumped["problem"], default) == dumped["levels"], "the knobs describe IREE's config exactly"


def _conv_configs(config_dir: Path) -> list[dict[str, list[int]]]:
    pattern = re.compile(
        r'iterator_types = \["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", '
        r'"reduction"\][^\n]*?lowering_config = #iree_cpu\.lowering_config<([^>]*)>'
    )
    return [
        parse_levels(body) for path in sorted(config_dir.glob("*.mlir")) for body in pattern.findall(path.read_text())
    ]


def test_spec_sets_the_candidate_tiles(convs, context, tmp_path):
    dumped = convs["conv"]
    configurator = CpuConvolution(dumped["problem"], dumped["cpu"], context)
    candidates = configurator.candidates()
    default = knobs_of_levels(dumped["problem"], dumped["levels"])
    # decomposed along W rather than H, and different tiles everywhere else too
    chosen = next(
        candidates.knobs(i)
        for i in range(len(candidates))
        if candidates.knobs(i)["vec_ow"] == 1
        and candidates.knobs(i)["vec_oh"] == 2
        and candidates.knobs(i)["red_kh"] == 3
        and candidates.knobs(i) != default
    )
    spec = tmp_path / "spec.mlir"
    spec.write_text(build_spec(dumped["problem"], configurator.compilation_info(chosen), context))
    stripped = strip_config(dumped["bench"], tmp_path / "stripped.mlir")
    args = [
        tool_path("iree-compile"),
        str(stripped),
        *CPU_FLAGS,
        f"--iree-codegen-tuning-spec-path={spec}",
        f"--iree-hal-dump-executable-configurations-to={tmp_path / 'configs'}",
        "-o",
        str(tmp_path / "out.vmfb"),
    ]
    result = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert _conv_configs(tmp_path / "configs") == [tile_lists(dumped["problem"], chosen)]
    assert f"pipeline<{PIPELINE}>" in next((tmp_path / "configs").glob("*.mlir")).read_text()


def _compile(stripped: Path, out: Path, *flags: str) -> Path:
    """Compile a dispatch; the directory of its dumped configuration and its executable binary."""
    out.mkdir()
    args = [
        tool_path("iree-compile"),
        str(stripped),
        *CPU_FLAGS,
        *flags,
        f"--iree-hal-dump-executable-configurations-to={out}",
        f"--iree-hal-dump-executable-binaries-to={out}",
        "-o",
        str(out / "module.vmfb"),
    ]
    result = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "warning" not in result.stderr, result.stderr[-3000:]  # a spec applies quietly
    return out


@pytest.mark.parametrize("name", NEW_KINDS)
def test_a_batch_one_strided_or_depthwise_candidate_changes_the_binary(convs, context, tmp_path, name):
    """IREE folds the unit batch away before specs run and restores it after; the spec still configures the op."""
    dumped = convs[name]
    problem = dumped["problem"]
    configurator = CpuConvolution(problem, dumped["cpu"], context)
    candidates = configurator.candidates()
    ranker = make_ranker("heuristic", 0)
    ranker.start(RankingInput(problem, dumped["cpu"], candidates))
    default = knobs_of_levels(problem, dumped["levels"])
    chosen = next(candidates.knobs(int(i)) for i in ranker.ask(10) if candidates.knobs(int(i)) != default)
    spec = tmp_path / "spec.mlir"
    spec.write_text(build_spec(problem, configurator.compilation_info(chosen), context))
    stripped = strip_config(dumped["bench"], tmp_path / "stripped.mlir")
    plain = _compile(stripped, tmp_path / "plain")
    tuned = _compile(stripped, tmp_path / "tuned", f"--iree-codegen-tuning-spec-path={spec}")
    config = next(tuned.glob("configured_*.mlir")).read_text()
    expected = tile_lists(problem, chosen)
    assert all(f"{level} = {values}" in config for level, values in expected.items()), config[-2000:]
    (plain_binary,), (tuned_binary,) = plain.glob("*.so"), tuned.glob("*.so")
    assert not filecmp.cmp(plain_binary, tuned_binary, shallow=False), "the spec was ignored"


def test_a_rebatching_spec_links_with_a_plain_one(convs, context, tmp_path):
    """Specs of a batch-1 and a batch-2 conv linked into one (as a model's winners are) both apply."""
    specs, chosen = [], {}
    for name in ("conv_batch1", "conv"):
        dumped = convs[name]
        configurator = CpuConvolution(dumped["problem"], dumped["cpu"], context)
        candidates = configurator.candidates()
        default = knobs_of_levels(dumped["problem"], dumped["levels"])
        chosen[name] = next(candidates.knobs(i) for i in range(len(candidates)) if candidates.knobs(i) != default)
        specs.append(build_spec(dumped["problem"], configurator.compilation_info(chosen[name]), context))
    linked = tmp_path / "linked.mlir"
    linked.write_text(link_specs(specs, context, tmp_path))
    for name in ("conv_batch1", "conv"):
        stripped = strip_config(convs[name]["bench"], tmp_path / f"{name}.stripped.mlir")
        out = _compile(stripped, tmp_path / name, f"--iree-codegen-tuning-spec-path={linked}")
        config = next(out.glob("configured_*.mlir")).read_text()
        levels = tile_lists(convs[name]["problem"], chosen[name])
        assert f"vector_reduction = {levels['vector_reduction']}" in config


@pytest.mark.parametrize("name", ["conv", "nchw_strided", "depthwise"])
def test_features_and_heuristic_order_conv_candidates(convs, context, name):
    dumped = convs[name]
    problem, cpu = dumped["problem"], dumped["cpu"]
    candidates = CpuConvolution(problem, cpu, context).candidates()
    features = extractor_for(problem, cpu, [PIPELINE])(problem, cpu, candidates)
    assert np.isfinite(features.values).all() and features.values.shape[0] == len(candidates)
    ranker = make_ranker("heuristic", 0)
    ranker.start(RankingInput(problem, cpu, candidates))
    order = ranker.ask(len(candidates))
    assert sorted(order) == list(range(len(candidates)))
    first = candidates.knobs(order[0])
    lanes = cpu.native_vector_bytes // 4  # f32 lanes of this host's vectors: 16 with AVX-512, 8 with AVX2
    lane_loop = "vec_ow" if problem.layout == "nchw_fchw" else "vec_oc"  # the output's innermost loop
    assert first[lane_loop] % lanes == 0, "the heuristic fills whole vectors along the output's innermost loop first"


@pytest.mark.slow
def test_tune_a_small_conv_end_to_end(tmp_path):
    n, h, w, c, f, kernel = SHAPES["conv"]
    source = tmp_path / "conv.mlir"
    source.write_text(conv2d_nhwc_source(n, h, w, c, f, kernel, "f32", "f32"))
    result = mltune(["tune", str(source), "--ranker", "heuristic", "--budget", "3", "--jobs", "2"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "convolution_2x8x8x16x3x3x8" in result.stdout and "benchmarked 3" in result.stdout
    (records_file,) = trial_record_files(Path(os.environ["MLTUNE_HOME"]) / "datasets")  # the data home's
    assert {p.name for p in tmp_path.iterdir()} <= {"conv.mlir", "best_spec.mlir"}, "nothing else in the cwd"
    records = [json.loads(line) for line in records_file.read_text().splitlines()]
    assert len(records) >= 3 and all(r["pipeline"] == PIPELINE for r in records)
    measured = [r for r in records if r["status"] == "ok"]
    assert len(measured) == 3 and all(r["time_us"] and r["baseline_us"] for r in measured)
    assert {"wg_oh", "vec_ow", "red_ic"} <= set(measured[0]["knobs"])


def test_one_models_table_refuses_mixed_features():
    """`train` splits problems by op kind first; one model's table still refuses features that differ."""
    from learn_helpers import SYNTHETIC_CPU, matmul_problem

    from mltune.errors import UserError
    from mltune.learn.samples import ProblemSamples
    from mltune.learn.train import feature_table
    from mltune.spaces.cpu_contraction import CpuContraction

    conv = Problem(
        "convolution",
        "linalg.generic",
        (2, 8, 8, 16, 3, 3, 8),
        (0,),
        (1, 2),
        (3,),
        (4, 5, 6),
        "f32",
        "f32",
        "f32",
        (),
        "nhwc_hwcf",
        filter_loops=(4, 5),
        strides=(1, 1),
        dilations=(1, 1),
    )
    mm = matmul_problem(64, 96, 48)
    samples = []
    for problem, configurator, pipeline in (
        (mm, CpuContraction, "DoubleTilingExpert"),
        (conv, CpuConvolution, PIPELINE),
    ):
        candidates = configurator(problem, SYNTHETIC_CPU, None).candidates()
        samples.append(
            ProblemSamples(
                problem.key, problem, SYNTHETIC_CPU, "stored", (pipeline,), candidates, np.ones(len(candidates))
            )
        )
    assert feature_table(samples[1:]).values.shape[0] == len(samples[1].candidates)  # convolutions alone: fine
    with pytest.raises(
        UserError, match=r"mix problems whose features differ \(contraction on cpu, convolution on cpu\)"
    ):
        feature_table(samples)


def test_gpus_give_depthwise_convs_the_simt_space(convs, context, tmp_path):
    """No MMA intrinsic computes a depthwise convolution: on a GPU it gets the scalar-thread convolution space
    (`gpu_simt_convolution`), whatever intrinsics the target has."""
    from learn_helpers import SYNTHETIC_GPU

    problem = convs["depthwise"]["problem"]
    configurator = make_configurator(problem, SYNTHETIC_GPU, context, convs["depthwise"]["bench"], tmp_path)
    assert isinstance(configurator, GpuSimtConvolution) and configurator.depthwise, configurator


def test_a_channel_first_depthwise_conv_is_refused_on_llvm_cpu(context, tmp_path):
    """PyTorch's depthwise convolutions (MobileNet-V2's, NCHW x CHW) are listed as tuned on GPU targets only: the
    llvm-cpu convolution space decomposes channel-last ones."""
    text = nchw_depthwise_source(16, 12, 3, 2)
    dump = dump_one_op(text, "depthwise_nchw", tmp_path, context)
    problem = dump["problem"]
    assert (problem.op_kind, problem.layout) == ("depthwise_convolution", "nchw_chw")
    configurator = make_configurator(problem, dump["cpu"], context, dump["bench"], tmp_path / "space")
    assert isinstance(configurator, Untunable), configurator
    assert "channel-first depthwise convolution ops are tuned on GPU targets only" in configurator.reason
