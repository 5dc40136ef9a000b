"""GPU attention (compile only): the online_attention problem, its VectorDistribute space against Z3, IREE's
emitted constraints and IREE's own default, the spec and annotation that carry it, and real compiles."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from iree.compiler import ir
from iree.compiler.dialects import iree_codegen
from gpu_dump_helpers import dump_gpu_model, read_gpu_dump
from iree_helpers import (
    applied_compile_args,
    attention_source,
    checked_heuristic_order,
    compile_only_vector_distribute,
    masked_attention_source,
    run,
)

from mltune.emit.apply import AnnotationApplier, SpecApplier, make_applier
from mltune.emit.op_config import op_attributes
from mltune.features.gpu_attention import gpu_attention_features
from mltune.frontend.problem import Problem
from mltune.spaces.configure import make_configurator
from mltune.spaces.cuda_attention import CudaAttention
from mltune.spaces.gpu_attention import GpuAttention
from mltune.system.tools import tool_path
from mltune.targets import GpuInfo, parse_target

SMALL = attention_source(4, 256, 64, 512, 64)  # batch 4, M 256, K1 64, K2 512, N 64
WIDE = attention_source(2, 512, 128, 256, 128)


@dataclass
class AttentionDump:
    bench: Path  # IREE's configured benchmark file
    stripped: Path
    problem: Problem
    gpu: GpuInfo
    root_attributes: dict[str, str]  # IREE's own lowering_config and decomposition_config on the root op
    translation_info: str
    module: ir.Module


def _dump(directory: Path, target_name: str, text: str, context) -> AttentionDump:
    directory.mkdir()
    source = directory / "model.mlir"
    source.write_text(text)
    target = parse_target(target_name, probe=False)
    result = run(
        [
            tool_path("iree-compile"),
            str(source),
            *target.compile_flags(),
            "--iree-codegen-add-tuner-attributes",
            f"--iree-hal-dump-executable-benchmarks-to={directory / 'bench'}",
            "-o",
            str(directory / "m.vmfb"),
        ]
    )
    assert result.returncode == 0, result.stderr[-2000:]
    bench, stripped, module, problem, gpu, root = read_gpu_dump(directory, context)
    with context:
        attributes = {name: str(root.attributes[name]) for name in ("lowering_config", "decomposition_config")}
    translation = re.search(r"translation_info = (#iree_codegen.translation_info<[^\n]*?>)\}", bench.read_text()).group(
        1
    )
    return AttentionDump(bench, stripped, problem, gpu, attributes, translation, module)


@pytest.fixture(scope="module")
def dumps(tmp_path_factory, context) -> dict[str, AttentionDump]:
    root = tmp_path_factory.mktemp("attention")
    return {
        name: _dump(root / name, target, text, context)
        for name, (target, text) in {
            "mi300x": ("mi300x", SMALL),
            "wide": ("gfx942", WIDE),
            "sm_80": ("sm_80", SMALL),
        }.items()
    }


@pytest.fixture(scope="module")
def configurators(dumps, context, tmp_path_factory) -> dict[str, GpuAttention]:
    work = tmp_path_factory.mktemp("spaces")
    found = {
        name: make_configurator(dumps[name].problem, dumps[name].gpu, context, dumps[name].bench, work / name)
        for name in ("mi300x", "wide", "sm_80")
    }
    assert all(isinstance(c, GpuAttention) for c in found.values()), found
    return found


def test_problem_reads_the_attention_roles(dumps):
    p = dumps["mi300x"].problem
    assert p.op_kind == "attention" and p.op_name == "iree_linalg_ext.online_attention"
    sizes = {role: p.sizes(getattr(p, role)) for role in ("batch", "m", "k", "k2", "n")}
    assert sizes == {"batch": (4,), "m": (256,), "k": (64,), "k2": (512,), "n": (64,)}
    assert p.operand_types == ("f16", "f16", "f16", "f16", "f32", "f32", "f32")
    assert p.key == "attention_4x256x64x64x512_f16f16f32_nnn"
    assert Problem.from_record(p.to_record()) == p


def test_every_candidate_satisfies_the_constraints_per_z3(configurators):
    for configurator in configurators.values():
        candidates = configurator.candidates()
        assert len(candidates) > 20
        for i in np.random.default_rng(0).choice(len(candidates), 25, replace=False):
            knobs = candidates.knobs(int(i))
            assert configurator.space.contains({k.name: knobs[k.name] for k in configurator.space.knobs}), knobs


def test_space_is_never_wider_than_irees_emitted_constraints(configurators):
    """The space is never wider than the compiler's own: no enumerated point violates an emitted assertion."""
    import z3

    configurator = configurators["mi300x"]
    space = configurator.space
    solver = space.solver()
    solver.add(z3.Not(z3.And(*space.constraints)))
    assert solver.check() == z3.unsat


def _default_knobs(dump: AttentionDump, configurator: GpuAttention) -> dict[str, int]:
    p, lowering, decomposition = (
        dump.problem,
        dump.root_attributes["lowering_config"],
        dump.root_attributes["decomposition_config"],
    )
    lists = {
        name: [int(x) for x in re.search(rf"{name} = \[([\d, ]*)\]", lowering).group(1).split(", ")]
        for name in ("workgroup", "reduction")
    }
    counts = [int(x) for x in re.search(r"subgroup_basis = \[\[([\d, ]*)\]", decomposition).group(1).split(", ")]
    pv, qk = re.findall(r"mma_layout<(\w+)", decomposition)  # the dictionary prints pv_attrs first
    return {
        "qk_mma": [m.name for m in configurator.qk_mmas].index(qk),
        "pv_mma": [m.name for m in configurator.pv_mmas].index(pv),
        "m_tile": lists["workgroup"][p.m[0]],
        "n_tile": lists["workgroup"][p.n[0]],
        "red_k2": lists["reduction"][p.k2[0]],
        "sg_m": counts[p.m[0]],
        "sg_n": counts[p.n[0]],
        "sg_size": int(re.search(r"subgroup_size = (\d+)", dump.translation_info).group(1)),
        "waves_per_eu": 0,
    }


@pytest.mark.parametrize("name", ["mi300x", "wide", "sm_80"])
def test_iree_default_is_in_the_space_and_rebuilt_exactly(dumps, configurators, context, name):
    dump, configurator = dumps[name], configurators[name]
    knobs = _default_knobs(dump, configurator)
    assert configurator.space.contains(knobs), (knobs, dump.root_attributes)
    ours = op_attributes(configurator.compilation_info(knobs), context)
    assert ours["decomposition_config"] == dump.root_attributes["decomposition_config"]
    assert dump.root_attributes["lowering_config"] in ours["compilation_info"]


def test_spec_and_annotation_carry_both_attributes(dumps, configurators, context):
    dump, configurator = dumps["mi300x"], configurators["mi300x"]
    config = configurator.compilation_info(configurator.candidates().knobs(0))
    attributes = op_attributes(config, context)
    spec = SpecApplier(context).apply(dump.problem, config)
    assert "transform.iree.match.online_attention" in spec.text
    assert "query_type = f16, key_type = f16, value_type = f16, scale_type = f16, output_type = f32" in spec.text
    assert re.findall(r"dims_equal %(\w+), (\[\d*\])", spec.text) == [
        ("batch", "[4]"),
        ("m", "[256]"),
        ("n", "[64]"),
        ("k1", "[64]"),
        ("k2", "[512]"),
    ]
    assert all(text in spec.text for text in attributes.values())
    annotated = AnnotationApplier(dump.stripped, context).apply(dump.problem, config)
    with context:
        (root,) = iree_codegen.get_tuner_root_ops(ir.Module.parse(annotated.text))
        assert {name: str(root.attributes[name]) for name in attributes} == attributes


@pytest.mark.e2e
def test_a_non_default_candidate_compiles_with_its_config(dumps, configurators, context, tmp_path):
    dump, configurator = dumps["mi300x"], configurators["mi300x"]
    candidates = configurator.candidates()
    default = _default_knobs(dump, configurator)
    knobs = next(
        candidates.knobs(i)
        for i in range(len(candidates))
        if candidates.knobs(i)["m_tile"] != default["m_tile"] and candidates.knobs(i)["qk_mma"] != default["qk_mma"]
    )
    config = configurator.compilation_info(knobs)
    (tmp_path / "spec.mlir").write_text(SpecApplier(context).apply(dump.problem, config).text)
    result = run(
        [
            tool_path("iree-compile"),
            str(dump.stripped),
            f"--iree-codegen-tuning-spec-path={tmp_path / 'spec.mlir'}",
            f"--iree-hal-dump-executable-configurations-to={tmp_path / 'configs'}",
            "-o",
            str(tmp_path / "x.vmfb"),
        ]
    )
    assert result.returncode == 0, result.stderr[-2000:]
    configured = "".join(p.read_text() for p in (tmp_path / "configs").glob("*.mlir"))
    workgroup = re.search(r"workgroup = \[[\d, ]*\]", config).group(0)
    assert str(knobs["m_tile"]) in workgroup and workgroup in configured
    assert f"mma_layout<{configurator.qk_mmas[knobs['qk_mma']].name}" in configured


def test_cuda_attention_gets_mltunes_own_space(dumps, configurators):
    """IREE emits no attention constraints for 16x8 NVIDIA intrinsics: the space is mltune's rules alone."""
    configurator = configurators["sm_80"]
    assert isinstance(configurator, CudaAttention)
    assert [m.name for m in configurator.qk_mmas] == ["NV_MMA_SYNC_F32_16x8x16_F16"]
    assert set(configurator.candidates().column("sg_size")) == {32}


def _multi_head_source(batch: int, heads: int, m: int, k1: int, k2: int, n: int) -> str:
    """A 4-D attention (batch x heads x seq x head dim), whose two batch loops dispatch formation collapses into one."""
    q, k, v, o = (f"tensor<{batch}x{heads}x{a}x{b}xf16>" for a, b in ((m, k1), (k2, k1), (k2, n), (m, n)))
    loops = "(d0, d1, d2, d3, d4, d5)"  # batch, heads, M, N, K1, K2
    maps = ", ".join(
        f"affine_map<{loops} -> ({r})>"
        for r in ("d0, d1, d2, d4", "d0, d1, d5, d4", "d0, d1, d5, d3", "", "d0, d1, d2, d3")
    )
    return f"""func.func @main(%q: {q}, %k: {k}, %v: {v}) -> {o} {{
  %scale = arith.constant 0.125 : f16
  %empty = tensor.empty() : {o}
  %r = iree_linalg_ext.attention <{{indexing_maps = [{maps}]}}> ins(%q, %k, %v, %scale : {q}, {k}, {v}, f16) outs(%empty : {o}) {{
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  }} -> {o}
  return %r : {o}
}}
"""


_LISTS = r"workgroup = \[[\d, ]*\]|reduction = \[[\d, ]*\]|subgroup_basis = \[\[[\d, ]*\]|workgroup_size = \[[\d, ]*\]|mma_layout<\w+"


@pytest.mark.slow
@pytest.mark.e2e
def test_cuda_cli_compile_only_applies_the_candidates(tmp_path):
    """sm_90, a 4-D attention: every candidate compiles, and IREE's configuration is the candidate's, written on the
    model's attention in the dispatch's (collapsed) loop order."""
    candidates = compile_only_vector_distribute(
        tmp_path, "attention.mlir", _multi_head_source(2, 4, 128, 64, 256, 64), "sm_90", 4
    )
    annotated = sorted(candidates.glob("*/candidate_*/annotated.mlir"))
    assert len(annotated) == 4
    seen = set()
    for source in annotated[:2]:
        configs = tmp_path / source.parent.name
        configs.mkdir()
        compiled = run(
            [
                tool_path("iree-compile"),
                str(source),
                f"--iree-hal-dump-executable-configurations-to={configs}",
                "-o",
                str(configs / "x.vmfb"),
            ]
        )
        assert compiled.returncode == 0, compiled.stderr[-2000:]
        written = sorted(re.findall(_LISTS, source.read_text()))
        assert len(written) == 7 and re.search(r"workgroup = \[1, \d+, \d+, 0, 0\]", source.read_text())
        assert sorted(re.findall(_LISTS, "".join(p.read_text() for p in configs.glob("*.mlir")))) == written
        seen.add(tuple(written))
    assert len(seen) == 2


@pytest.mark.slow
@pytest.mark.e2e
def test_cuda_compile_only_configures_a_masked_attention(tmp_path):
    """sm_90, an f16 attention with a boolean mask (a causal decoder's, as `mltune export decoder` writes it): every
    candidate compiles, and IREE's configuration of the attention is the one written on it."""
    source = masked_attention_source(2, 128, 64, 128, 64, "f16")
    candidates = compile_only_vector_distribute(tmp_path, "masked.mlir", source, "sm_90", 3)
    annotated = sorted(candidates.glob("*/candidate_*/annotated.mlir"))
    assert len(annotated) == 3
    configs = tmp_path / "configs"
    compiled = run(
        [
            tool_path("iree-compile"),
            str(annotated[0]),
            f"--iree-hal-dump-executable-configurations-to={configs}",
            "-o",
            str(tmp_path / "x.vmfb"),
        ]
    )
    assert compiled.returncode == 0, compiled.stderr[-2000:]
    written = sorted(re.findall(_LISTS, annotated[0].read_text()))
    assert written and sorted(re.findall(_LISTS, "".join(p.read_text() for p in configs.glob("*.mlir")))) == written


def test_features_and_heuristic_order(dumps, configurators):
    dump, configurator = dumps["mi300x"], configurators["mi300x"]
    candidates = configurator.candidates()
    features, order = checked_heuristic_order(gpu_attention_features, dump.problem, dump.gpu, candidates)
    first = features.values[order[0]]
    names = features.names
    assert first[names.index("register_overflow")] == 0 and first[names.index("qk_recomputed")] == 1
    knobs = _default_knobs(dump, configurator)
    qk, pv = configurator.qk_mmas[knobs["qk_mma"]], configurator.pv_mmas[knobs["pv_mma"]]
    default = candidates.index_of({**knobs, "qk_mma_k": qk.k, "pv_mma_m": pv.m, "pv_mma_n": pv.n, "pv_mma_k": pv.k})
    assert default is not None and order.index(default) < len(candidates) // 2


@pytest.mark.slow
@pytest.mark.e2e
def test_cli_compile_only_end_to_end(tmp_path):
    candidates = compile_only_vector_distribute(tmp_path, "attention.mlir", SMALL, "gfx942", 4)
    assert len(list(candidates.glob("*/candidate_*/module.vmfb"))) == 4


@pytest.mark.e2e
@pytest.mark.parametrize("target_name", ["sm_90", "gfx942"])
def test_key_length_no_tile_divides_gets_masked_k2_tiles(context, tmp_path, target_name):
    """77 key tokens (SDXL's text cross-attention), which no multiple of an intrinsic's K divides: the space offers
    K2 tiles up to 80 (77 rounded up), every one satisfies the space's Z3 constraints, and a candidate compiles with its K2 tile,
    the partial last tile masked (scores set to -inf before the softmax)."""
    _, _, bench, stripped, problem, gpu = dump_gpu_model(
        attention_source(2, 128, 64, 77, 64), target_name, tmp_path, context
    )
    configurator = make_configurator(problem, gpu, context, bench, tmp_path / "space")
    assert isinstance(configurator, GpuAttention), configurator
    candidates = configurator.candidates()
    k2_tiles = set(candidates.column("red_k2").tolist())
    assert {32, 64} <= k2_tiles and max(k2_tiles) <= 80 and all(77 % tile for tile in k2_tiles), k2_tiles
    for i in np.random.default_rng(0).choice(len(candidates), 10, replace=False):
        knobs = candidates.knobs(int(i))
        assert configurator.space.contains({k.name: knobs[k.name] for k in configurator.space.knobs}), knobs
    knobs = next(candidates.knobs(i) for i in range(len(candidates)) if candidates.knobs(i)["red_k2"] == 32)
    applied = make_applier(gpu.api, stripped, context).apply(problem, configurator.compilation_info(knobs))
    compiled = run(
        applied_compile_args(
            applied, stripped, tmp_path, [f"--iree-hal-dump-executable-intermediates-to={tmp_path / 'llvm'}"]
        )
    )
    assert compiled.returncode == 0, compiled.stderr[-2000:]
    assert "reduction = [0, 0, 0, 0, 32]" in "".join(p.read_text() for p in (tmp_path / "configs").glob("*.mlir"))
    (llvm,) = (tmp_path / "llvm").glob("*.optimized.ll")
    assert re.search(
        r"select <\d+ x i1> %\w+, <\d+ x float> %\w+, <\d+ x float> splat \(float -inf\)", llvm.read_text()
    )


def _allocated_bytes(lowered: str) -> int:
    """Workgroup memory of a module lowered to executable targets: the export's `workgroup_local_memory` (CUDA) or
    the sum of its shared-memory globals (ROCm)."""
    found = re.search(r"workgroup_local_memory = (\d+)", lowered)
    if found:
        return int(found.group(1))
    arrays = re.findall(r"@__shared_memory_\w*\(\) \{addr_space = 3[^}]*\} : !llvm\.array<(.*)", lowered)
    return sum(int(np.prod([int(x) for x in re.findall(r"(\d+) x", a)])) * 2 for a in arrays)  # f16 tiles


@pytest.mark.e2e
@pytest.mark.parametrize(
    "name", [pytest.param("sm_80", marks=pytest.mark.slow), "mi300x"]
)  # sm_80: 11 s, with the slow tests
def test_shared_memory_rule_is_what_iree_allocates(dumps, configurators, context, tmp_path, name):
    """Every candidate fits the target's shared memory as IREE lays the Q, K and V tiles out (rows padded on CUDA),
    and the space's largest candidate, lowered by iree-compile, allocates exactly the estimate."""
    dump, configurator = dumps[name], configurators[name]
    candidates = configurator.candidates()
    estimate = configurator.shared_memory_bytes(candidates)
    assert (estimate <= dump.gpu.shared_memory_bytes).all()
    largest = int(np.argmax(estimate))
    config = configurator.compilation_info(candidates.knobs(largest))
    flags = ["--compile-to=executable-targets", "-o", str(tmp_path / "lowered.mlir")]
    if dump.gpu.api == "cuda":
        source = tmp_path / "annotated.mlir"
        source.write_text(
            AnnotationApplier(dump.bench.parent.parent / "model.mlir", context).apply(dump.problem, config).text
        )
        command = [tool_path("iree-compile"), str(source), *parse_target(name, probe=False).compile_flags(), *flags]
    else:
        (tmp_path / "spec.mlir").write_text(SpecApplier(context).apply(dump.problem, config).text)
        command = [
            tool_path("iree-compile"),
            str(dump.stripped),
            f"--iree-codegen-tuning-spec-path={tmp_path / 'spec.mlir'}",
            *flags,
        ]
    result = run(command)
    assert result.returncode == 0, result.stderr[-2000:]
    assert _allocated_bytes((tmp_path / "lowered.mlir").read_text()) == estimate[largest]
