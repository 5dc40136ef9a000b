"""llvm-cpu convolutions (`ConvTileAndDecomposeExpert`): the space, IREE's default inside it, the spec applied by
the real compiler, and a short real tuning run."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from iree.compiler.dialects import iree_codegen
from iree_helpers import CPU_FLAGS, conv2d_nhwc_source, dump_command, mltune, parse_levels, strip_config

from mltune.emit.spec import build_spec
from mltune.features import extractor_for
from mltune.mlir import parse_module_file
from mltune.problem import Problem, Untunable, read_root_ops
from mltune.rankers import make_ranker
from mltune.rankers.base import RankingInput
from mltune.spaces.configure import make_configurator
from mltune.spaces.cpu_contraction import VECTOR_BYTES_LIMIT_FACTOR
from mltune.spaces.cpu_convolution import PIPELINE, CpuConvolution, knobs_of_levels, tile_lists
from mltune.targets.cpu import CpuInfo
from mltune.tools import tool_path

SHAPES = {  # small on purpose: (N, H, W, C, F, kernel)
    "conv": (2, 10, 10, 8, 16, 3),
    "conv_odd": (4, 18, 18, 16, 24, 3),  # IREE's default has an OC tile of 12: not a whole AVX-512 vector
    "conv_batch1": (1, 10, 10, 8, 16, 3),
}


def _dump(name, directory: Path, context):
    n, h, w, c, f, kernel = SHAPES[name]
    source = directory / f"{name}.mlir"
    source.write_text(conv2d_nhwc_source(n, h, w, c, f, kernel, "f32", "f32"))
    result = subprocess.run(dump_command(source, directory / "bench", directory / "model.vmfb"), capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    (bench,) = sorted((directory / "bench").glob("*_benchmark.mlir"))
    module = parse_module_file(bench, context)
    with context:
        (problem,) = read_root_ops(module)
        cpu = CpuInfo.from_executable_target(str(iree_codegen.get_executable_variant_ops(module)[0].attributes["target"]))
        (root,) = iree_codegen.get_tuner_root_ops(module)
        levels = parse_levels(str(root.attributes["lowering_config"]))
    return {"source": source, "bench": bench, "problem": problem, "cpu": cpu, "levels": levels, "module": module}


@pytest.fixture(scope="module")
def convs(tmp_path_factory, context):
    root = tmp_path_factory.mktemp("convs")
    found = {}
    for name in SHAPES:
        (root / name).mkdir()
        found[name] = _dump(name, root / name, context)
    return found


def test_the_dump_is_conv_tile_and_decompose(convs):
    text = convs["conv"]["bench"].read_text()
    assert "#iree_cpu.pipeline<ConvTileAndDecomposeExpert>" in text
    assert convs["conv"]["problem"].op_kind == "convolution"


@pytest.mark.parametrize("name", ["conv", "conv_odd"])
def test_every_candidate_keeps_the_rules_and_the_default_is_inside(convs, context, name):
    dumped = convs[name]
    configurator = CpuConvolution(dumped["problem"], dumped["cpu"], context)
    candidates = configurator.candidates()
    assert len(candidates) > 100
    c = {knob: candidates.column(knob) for knob in candidates.names}
    for d in ("oh", "ow", "oc"):
        assert (c[f"vec_{d}"] <= c[f"wg_{d}"]).all()
    decomposable = ((c["vec_oh"] == 1) & (c["red_kh"] == 1)) | ((c["vec_ow"] == 1) & (c["red_kw"] == 1))
    assert decomposable.all(), "IREE's verifier needs OH and KH, or OW and KW, tiled to 1"
    volume = np.prod([c[k] for k in ("vec_oh", "vec_ow", "vec_oc", "red_kh", "red_kw", "red_ic")], axis=0)
    assert (volume * 4 < dumped["cpu"].native_vector_bytes * VECTOR_BYTES_LIMIT_FACTOR).all()
    for row in np.random.default_rng(0).choice(len(candidates), 20, replace=False):  # Z3 agrees with numpy
        assert configurator.space.contains(candidates.knobs(int(row)))
    default = knobs_of_levels(dumped["problem"], dumped["levels"])
    assert configurator.space.contains(default), f"IREE's default {dumped['levels']} -> {default}"
    assert candidates.index_of(default) is not None
    assert tile_lists(dumped["problem"], default) == dumped["levels"], "the knobs describe IREE's config exactly"


def _conv_configs(config_dir: Path) -> list[dict[str, list[int]]]:
    pattern = re.compile(r'iterator_types = \["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", '
                         r'"reduction"\][^\n]*?lowering_config = #iree_cpu\.lowering_config<([^>]*)>')
    return [parse_levels(body) for path in sorted(config_dir.glob("*.mlir")) for body in pattern.findall(path.read_text())]


def test_spec_sets_the_candidate_tiles(convs, context, tmp_path):
    dumped = convs["conv"]
    configurator = CpuConvolution(dumped["problem"], dumped["cpu"], context)
    candidates = configurator.candidates()
    default = knobs_of_levels(dumped["problem"], dumped["levels"])
    # decomposed along W rather than H, and different tiles everywhere else too
    chosen = next(candidates.knobs(i) for i in range(len(candidates))
                  if candidates.knobs(i)["vec_ow"] == 1 and candidates.knobs(i)["vec_oh"] == 2
                  and candidates.knobs(i)["red_kh"] == 3 and candidates.knobs(i) != default)
    spec = tmp_path / "spec.mlir"
    spec.write_text(build_spec(dumped["problem"], configurator.compilation_info(chosen), context))
    stripped = strip_config(dumped["bench"], tmp_path / "stripped.mlir")
    args = [tool_path("iree-compile"), str(stripped), *CPU_FLAGS, f"--iree-codegen-tuning-spec-path={spec}",
            f"--iree-hal-dump-executable-configurations-to={tmp_path / 'configs'}", "-o", str(tmp_path / "out.vmfb")]
    result = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert _conv_configs(tmp_path / "configs") == [tile_lists(dumped["problem"], chosen)]
    assert f"pipeline<{PIPELINE}>" in next((tmp_path / "configs").glob("*.mlir")).read_text()


def test_batch_one_is_reported_not_tuned(convs, context, tmp_path):
    dumped = convs["conv_batch1"]
    configurator = make_configurator(dumped["problem"], dumped["cpu"], context, dumped["bench"], tmp_path)
    assert isinstance(configurator, Untunable) and "batch-1" in configurator.reason


def test_features_and_heuristic_order_conv_candidates(convs, context):
    dumped = convs["conv"]
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
    assert first["vec_oc"] % lanes == 0, "the heuristic fills whole vectors along OC first"


@pytest.mark.slow
def test_tune_a_small_conv_end_to_end(tmp_path):
    n, h, w, c, f, kernel = SHAPES["conv"]
    source = tmp_path / "conv.mlir"
    source.write_text(conv2d_nhwc_source(n, h, w, c, f, kernel, "f32", "f32"))
    result = mltune(["tune", str(source), "--ranker", "heuristic", "--budget", "3", "--jobs", "2"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "convolution_2x8x8x16x3x3x8" in result.stdout and "benchmarked 3" in result.stdout
    (records_file,) = (Path(os.environ["MLTUNE_HOME"]) / "datasets").glob("*/*.jsonl")  # the data home's
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

    conv = Problem("convolution", "linalg.generic", (2, 8, 8, 16, 3, 3, 8), (0,), (1, 2), (3,), (4, 5, 6), "f32", "f32",
                   "f32", (), "nhwc_hwcf", filter_loops=(4, 5), strides=(1, 1), dilations=(1, 1))
    mm = matmul_problem(64, 96, 48)
    samples = []
    for problem, configurator, pipeline in ((mm, CpuContraction, "DoubleTilingExpert"), (conv, CpuConvolution, PIPELINE)):
        candidates = configurator(problem, SYNTHETIC_CPU, None).candidates()
        samples.append(ProblemSamples(problem.key, problem, SYNTHETIC_CPU, "stored", (pipeline,), candidates,
                                      np.ones(len(candidates))))
    assert feature_table(samples[1:]).values.shape[0] == len(samples[1].candidates)  # convolutions alone: fine
    with pytest.raises(UserError, match=r"mix problems whose features differ \(contraction on cpu, convolution on cpu\)"):
        feature_table(samples)
