"""llvm-cpu attention (`LinalgExtTileAndVectorize`): the space, IREE's default inside it, the spec applied by the real
compiler (and changing the binary), features, the heuristic order, and a short real tuning run."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from iree_helpers import (
    CPU_FLAGS,
    attention_source,
    checked_heuristic_order,
    dump_one_op,
    masked_attention_source,
    mltune,
    parse_levels,
    trial_record_files,
)
from learn_helpers import SYNTHETIC_GPU

from mltune.emit.spec import build_spec
from mltune.features import extractor_for
from mltune.frontend.problem import Problem
from mltune.spaces.configure import make_configurator
from mltune.spaces.cpu_attention import COMPUTE_BYTES, PIPELINE, CpuAttention, knobs_of_levels, tile_lists
from mltune.spaces.cpu_contraction import VECTOR_BYTES_LIMIT_FACTOR
from mltune.spaces.cuda_attention import CudaAttention
from mltune.spaces.gpu_attention import GpuAttention
from mltune.system.tools import tool_path

SHAPES = {  # small on purpose: (batch, M, K1, K2, N, element type)
    "attention": (2, 64, 32, 64, 32, "f32"),
    "attention_odd": (2, 50, 32, 50, 32, "f16"),  # a sequence no power of two divides: partial M and K2 tiles
    "attention_masked": (2, 64, 32, 64, 32, "f32"),  # with a boolean mask, as PyTorch exports of BERT and GPT-2 hold
}


def _source(name: str) -> str:
    return (masked_attention_source if name.endswith("masked") else attention_source)(*SHAPES[name])


def _dump(name: str, directory: Path, context) -> dict:
    return dump_one_op(_source(name), name, directory, context)


@pytest.fixture(scope="module")
def attentions(tmp_path_factory, context):
    root = tmp_path_factory.mktemp("attentions")
    found = {}
    for name in SHAPES:
        (root / name).mkdir()
        found[name] = _dump(name, root / name, context)
    return found


@pytest.mark.parametrize("name", list(SHAPES))
def test_the_dump_is_an_attention_with_linalg_ext_tile_and_vectorize(attentions, context, tmp_path, name):
    dumped = attentions[name]
    assert f"#iree_cpu.pipeline<{PIPELINE}>" in dumped["bench"].read_text()
    assert dumped["problem"].op_kind == "attention"
    assert bool(dumped["problem"].mask_type) == name.endswith("masked")
    configurator = make_configurator(dumped["problem"], dumped["cpu"], context, dumped["bench"], tmp_path)
    assert isinstance(configurator, CpuAttention)


def test_masked_and_plain_attention_are_different_problems(attentions):
    plain, masked = attentions["attention"]["problem"], attentions["attention_masked"]["problem"]
    assert masked.key != plain.key and masked.key.startswith(plain.key)
    assert masked.bounds == plain.bounds and len(masked.indexing_maps) == len(plain.indexing_maps) + 1
    assert Problem.from_record(masked.to_record()) == masked, "a masked attention's record keeps its mask"
    assert "mask_type" not in plain.to_record(), "records of other problems stay as they were"


@pytest.mark.parametrize("name", list(SHAPES))
def test_every_candidate_keeps_the_rules_and_the_default_is_inside(attentions, context, name):
    dumped = attentions[name]
    problem, cpu = dumped["problem"], dumped["cpu"]
    configurator = CpuAttention(problem, cpu, context)
    candidates = configurator.candidates()
    assert len(candidates) > 100
    c = {knob: candidates.column(knob) for knob in candidates.names}
    assert (c["vec_m"] <= c["wg_m"]).all() and (c["vec_n"] <= c["wg_n"]).all()
    (k1,) = problem.sizes(problem.k)
    limit = cpu.native_vector_bytes * VECTOR_BYTES_LIMIT_FACTOR
    assert (c["vec_m"] * k1 * c["red_k2"] * COMPUTE_BYTES < limit).all(), "IREE's large-vector check on Q K^T"
    assert (c["vec_m"] * c["vec_n"] * c["red_k2"] * COMPUTE_BYTES < limit).all(), "and on P V"
    for row in np.random.default_rng(0).choice(len(candidates), 20, replace=False):  # Z3 agrees with numpy
        assert configurator.space.contains(candidates.knobs(int(row)))
    default = knobs_of_levels(problem, dumped["levels"])
    assert configurator.space.contains(default), f"IREE's default {dumped['levels']} -> {default}"
    assert candidates.index_of(default) is not None
    assert tile_lists(problem, default) == dumped["levels"], "the knobs describe IREE's config exactly"


def _attention_levels(config_dir: Path) -> list[dict[str, list[int]]]:
    pattern = re.compile(
        r"iree_linalg_ext\.online_attention[^\n]*?lowering_config = "
        r"#iree_cpu\.lowering_config<([^>]*)>"
    )
    return [
        parse_levels(body) for path in sorted(config_dir.glob("*.mlir")) for body in pattern.findall(path.read_text())
    ]


def _compile_with_spec(source: Path, spec_text: str, directory: Path) -> tuple[str, list[dict[str, list[int]]]]:
    """The vmfb's digest and the attention's dumped tiling levels of `source` built with the spec."""
    directory.mkdir()
    spec = directory / "spec.mlir"
    spec.write_text(spec_text)
    args = [
        tool_path("iree-compile"),
        str(source),
        *CPU_FLAGS,
        f"--iree-codegen-tuning-spec-path={spec}",
        f"--iree-hal-dump-executable-configurations-to={directory / 'configs'}",
        "-o",
        str(directory / "out.vmfb"),
    ]
    result = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return hashlib.sha256((directory / "out.vmfb").read_bytes()).hexdigest(), _attention_levels(directory / "configs")


@pytest.mark.parametrize("name", list(SHAPES))
def test_the_spec_reaches_the_attention_and_changes_the_binary(attentions, context, tmp_path, name):
    dumped = attentions[name]
    problem = dumped["problem"]
    configurator = CpuAttention(problem, dumped["cpu"], context)
    candidates = configurator.candidates()
    default = knobs_of_levels(problem, dumped["levels"])
    (n,) = problem.sizes(problem.n)
    # the whole value head in one vector tile, more query rows than IREE's default: tiles that differ everywhere
    chosen = next(
        candidates.knobs(i)
        for i in range(len(candidates))
        if candidates.knobs(i)["vec_n"] == n
        and candidates.knobs(i)["vec_m"] > default["vec_m"]
        and candidates.knobs(i)["red_k2"] != default["red_k2"]
    )
    built = {}
    for label, knobs in (("default", default), ("chosen", chosen)):
        spec = build_spec(problem, configurator.compilation_info(knobs), context)
        built[label] = _compile_with_spec(dumped["source"], spec, tmp_path / label)
        assert built[label][1] == [tile_lists(problem, knobs)], f"the {label} spec's tiles are the attention's"
    assert built["default"][0] != built["chosen"][0], "a different config must change the binary"


def test_features_are_finite_and_the_heuristic_keeps_the_value_head_whole(attentions, context):
    dumped = attentions["attention"]
    problem, cpu = dumped["problem"], dumped["cpu"]
    candidates = CpuAttention(problem, cpu, context).candidates()
    extractor = extractor_for(problem, cpu, [PIPELINE])
    features, order = checked_heuristic_order(extractor, problem, cpu, candidates)
    assert features["qk_recomputed"].min() == 1.0
    first = candidates.knobs(order[0])
    (n,) = problem.sizes(problem.n)
    assert first["vec_n"] == n, "the heuristic recomputes Q K^T once: the whole value head in one vector tile"


@pytest.mark.slow
def test_tune_a_small_attention_end_to_end(tmp_path):
    source = tmp_path / "attention.mlir"
    source.write_text(_source("attention"))
    result = mltune(["tune", str(source), "--ranker", "heuristic", "--budget", "3", "--jobs", "2"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "attention_2x64x32x32x64" in result.stdout and "benchmarked 3" in result.stdout
    (records_file,) = trial_record_files(Path(os.environ["MLTUNE_HOME"]) / "datasets")  # the data home's
    records = [json.loads(line) for line in records_file.read_text().splitlines()]
    measured = [r for r in records if r["status"] == "ok"]
    assert len(measured) == 3 and all(r["pipeline"] == PIPELINE and r["time_us"] and r["baseline_us"] for r in measured)
    assert all(r["problem"]["op_kind"] == "attention" for r in measured)
    assert {"wg_m", "vec_n", "red_k2"} <= set(measured[0]["knobs"])


def test_a_masked_spec_leaves_the_plain_attention_alone(attentions, context, tmp_path):
    masked, plain = attentions["attention_masked"], attentions["attention"]
    configurator = CpuAttention(masked["problem"], masked["cpu"], context)
    candidates = configurator.candidates()
    default = knobs_of_levels(masked["problem"], masked["levels"])
    chosen = next(candidates.knobs(i) for i in range(len(candidates)) if candidates.knobs(i) != default)
    spec = build_spec(masked["problem"], configurator.compilation_info(chosen), context)
    _, levels = _compile_with_spec(plain["source"], spec, tmp_path / "plain")
    assert levels == [plain["levels"]], "the masked matcher must not match an attention without mask"


def test_masked_attention_is_refused_on_rocm_only(attentions, context):
    """ROCm refuses a masked attention; CUDA takes it (this f32 one then has no NV_MMA_SYNC intrinsic: the
    refusal that remains is the element type's, not the mask's)."""
    masked = attentions["attention_masked"]["problem"]
    with pytest.raises(ValueError, match="ROCm: not yet"):
        GpuAttention(masked, SYNTHETIC_GPU, context, ())
    with pytest.raises(ValueError, match="no NV_MMA_SYNC intrinsic for f32 attention"):
        CudaAttention(masked, SYNTHETIC_GPU, context, ())


# A grouped-query attention as Llama's and SmolLM's reach IREE (written by hand, unmasked): 2 key-value heads, the
# query [batch, sequence, query head, head dim] with 3 query heads per key-value head (loop d1, in the query and the
# output only, which IREE cannot fold into the sequence here), 48 query rows (d2), head 32, 64 keys.
GROUPED = """func.func @main(%q: tensor<2x48x3x32xf32>, %k: tensor<2x64x32xf32>, %v: tensor<2x64x32xf32>) -> tensor<2x3x48x32xf32> {
  %scale = arith.constant 0.1767766952966369 : f32
  %empty = tensor.empty() : tensor<2x3x48x32xf32>
  %r = iree_linalg_ext.attention <{indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d1, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d5, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d5, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> ()>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>]}> ins(%q, %k, %v, %scale : tensor<2x48x3x32xf32>, tensor<2x64x32xf32>, tensor<2x64x32xf32>, f32) outs(%empty : tensor<2x3x48x32xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<2x3x48x32xf32>
  return %r : tensor<2x3x48x32xf32>
}
"""


def test_a_grouped_query_attention_is_tuned_with_its_query_heads_as_batch_loops(context, tmp_path):
    """The query heads that share a key-value head are a second M loop to IREE, which tiles it by 1: the problem
    makes it a batch loop and M the query rows; IREE's default is inside the space, and a spec (matched by operand
    types, since IREE's matcher groups the loops otherwise) reaches the op with the chosen tiles."""
    dumped = dump_one_op(GROUPED, "grouped", tmp_path, context)
    problem = dumped["problem"]
    assert problem.op_kind == "attention" and len(problem.batch) == 2 and problem.sizes(problem.m) == (48,)
    configurator = CpuAttention(problem, dumped["cpu"], context)
    candidates = configurator.candidates()
    default = knobs_of_levels(problem, dumped["levels"])
    assert any(candidates.knobs(i) == default for i in range(len(candidates))), default
    chosen = next(
        candidates.knobs(i)
        for i in range(len(candidates))
        if candidates.knobs(i)["vec_m"] != default["vec_m"] and candidates.knobs(i)["wg_m"] != default["wg_m"]
    )
    spec = build_spec(problem, configurator.compilation_info(chosen), context)
    assert "transform.iree.match.online_attention" not in spec
    _, levels = _compile_with_spec(dumped["source"], spec, tmp_path / "chosen")
    assert levels == [tile_lists(problem, chosen)]
