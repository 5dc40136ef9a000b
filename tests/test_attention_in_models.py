"""Attention inside models (compile only). On CUDA, a transformer's attention whose query, key and value are projected
and split into heads, as a diffusion UNet does it, reaches the dispatch with its value transposed (dispatch formation
folds the transposes around it into its maps), so the dispatch's problem and the model's op differ in layout; a
candidate written onto the model's op must still be the dispatch's configuration (mltune writes configs on the source
on CUDA: `mltune.emit.apply`), since a UNet spends most of its time in these attentions. A decode step's one-query
attention is listed as untunable with its reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from iree.compiler import ir
from iree.compiler.dialects import iree_codegen
from iree_helpers import attention_source, run

from mltune.emit.apply import AnnotationApplier, annotatable_keys, match_key
from mltune.frontend.mlir import find_ops, parse_module_file
from mltune.frontend.problem import ONE_QUERY, SOURCE_ATTENTION, Problem, Untunable
from mltune.frontend.root_ops import problem_from_root_op, read_root_ops
from mltune.spaces.configure import make_configurator
from mltune.spaces.cuda_attention import CudaAttention
from mltune.system.tools import tool_path
from mltune.targets import parse_target
from mltune.targets.base import facts_from_executable_target

BATCH, SEQ, HEADS, HEAD_DIM = 2, 64, 4, 16
_CONFIG_LISTS = r"workgroup = \[[\d, ]*\]|reduction = \[[\d, ]*\]|subgroup_basis = \[\[[\d, ]*\]|mma_layout<\w+"


def projected_attention_source() -> str:
    """Self-attention as `diffusers` exports it (synthetic weights as arguments): x @ W for each of query, key and
    value, truncated to f16, split into heads (expand, transpose, collapse), one `iree_linalg_ext.attention`."""
    channels = HEADS * HEAD_DIM
    full, full32 = f"tensor<{BATCH}x{SEQ}x{channels}xf16>", f"tensor<{BATCH}x{SEQ}x{channels}xf32>"
    split, heads = f"tensor<{BATCH}x{SEQ}x{HEADS}x{HEAD_DIM}xf16>", f"tensor<{BATCH}x{HEADS}x{SEQ}x{HEAD_DIM}xf16>"
    out = f"tensor<{BATCH * HEADS}x{SEQ}x{HEAD_DIM}xf16>"
    identity = "affine_map<(d0, d1, d2) -> (d0, d1, d2)>"
    lines = [
        f"func.func @main(%x: {full}, %wq: {full}, %wk: {full}, %wv: {full}) -> {out} {{",
        "  %zero = arith.constant 0.0 : f32",
        "  %scale = arith.constant 0.25 : f32",
        f"  %acc0 = tensor.empty() : {full32}",
        f"  %acc = linalg.fill ins(%zero : f32) outs(%acc0 : {full32}) -> {full32}",
        f"  %narrow = tensor.empty() : {full}",
        f"  %split = tensor.empty() : {heads}",
    ]
    for name in "qkv":
        lines += [
            f"  %{name}m = linalg.batch_matmul ins(%x, %w{name} : {full}, {full}) outs(%acc : {full32}) -> {full32}",
            f"  %{name}h = linalg.generic {{indexing_maps = [{identity}, {identity}], iterator_types = "
            f'["parallel", "parallel", "parallel"]}} ins(%{name}m : {full32}) outs(%narrow : {full}) {{',
            "  ^bb0(%in: f32, %o: f16):",
            "    %t = arith.truncf %in : f32 to f16",
            "    linalg.yield %t : f16",
            f"  }} -> {full}",
            f"  %{name}e = tensor.expand_shape %{name}h [[0], [1], [2, 3]] output_shape [{BATCH}, {SEQ}, {HEADS}, "
            f"{HEAD_DIM}] : {full} into {split}",
            f"  %{name}t = linalg.transpose ins(%{name}e : {split}) outs(%split : {heads}) permutation = [0, 2, 1, 3]",
            f"  %{name}c = tensor.collapse_shape %{name}t [[0, 1], [2], [3]] : {heads} into {out}",
        ]
    maps = ", ".join(
        f"affine_map<(d0, d1, d2, d3, d4) -> ({r})>"
        for r in ("d0, d1, d3", "d0, d4, d3", "d0, d4, d2", "", "d0, d1, d2")
    )
    lines += [
        f"  %init = tensor.empty() : {out}",
        f"  %a = iree_linalg_ext.attention <{{indexing_maps = [{maps}]}}> ins(%qc, %kc, %vc, %scale : {out}, {out}, "
        f"{out}, f32) outs(%init : {out}) {{",
        "  ^bb0(%score: f32):",
        "    iree_linalg_ext.yield %score : f32",
        f"  }} -> {out}",
        f"  return %a : {out}",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _compile(source: Path, *flags: str) -> None:
    result = run([tool_path("iree-compile"), str(source), *flags])
    assert result.returncode == 0, result.stderr[-2000:]


def _dumped(text: str, target_name: str, directory: Path, context) -> tuple[Path, list[Path]]:
    """`text` prepared for the target and its dispatches dumped as mltune dumps them: (prepared source, dumps)."""
    (directory / "model.mlir").write_text(text)
    target = parse_target(target_name, probe=False)
    source = target.prepare_source(directory / "model.mlir", directory, context)
    _compile(
        source,
        *target.compile_flags(),
        "--iree-codegen-add-tuner-attributes",
        f"--iree-hal-dump-executable-benchmarks-to={directory / 'bench'}",
        "-o",
        str(directory / "m.vmfb"),
    )
    return source, sorted((directory / "bench").glob("*_benchmark.mlir"))


@pytest.fixture(scope="module")
def model(tmp_path_factory, context):
    """The model prepared for sm_90 and dumped as mltune dumps it: (prepared source, attention dispatch file,
    its problem, target facts)."""
    directory = tmp_path_factory.mktemp("cuda_attention_model")
    source, dumps = _dumped(projected_attention_source(), "sm_90", directory, context)
    (bench,) = [path for path in dumps if "online_attention" in path.read_text()]
    module = parse_module_file(bench, context)
    with context:
        (problem,) = [root for root in read_root_ops(module) if isinstance(root, Problem)]
        facts = facts_from_executable_target(iree_codegen.get_executable_variant_ops(module)[0].attributes["target"])
    return source, bench, problem, facts


def test_the_dispatch_transposes_the_value_the_model_does_not(model, context):
    source, _, problem, _ = model
    with context:
        module = ir.Module.parse(source.read_text())
        (model_op,) = [problem_from_root_op(op) for op in find_ops(module, lambda op: op.name == SOURCE_ATTENTION)]
    assert problem.op_kind == model_op.op_kind == "attention"
    assert (problem.layout, model_op.layout) == ("nnt", "nnn")
    assert match_key(problem) == match_key(model_op)
    assert match_key(problem) in annotatable_keys(source, context)


def test_a_candidate_written_on_the_model_configures_the_dispatch(model, context, tmp_path):
    source, bench, problem, facts = model
    configurator = make_configurator(problem, facts, context, bench, tmp_path / "space")
    assert isinstance(configurator, CudaAttention), configurator
    candidates = configurator.candidates()
    default = sorted(re.findall(_CONFIG_LISTS, bench.read_text()))
    info = next(
        info
        for info in (configurator.compilation_info(candidates.knobs(i)) for i in range(len(candidates)))
        if sorted(re.findall(_CONFIG_LISTS, info)) != default
    )
    annotated = tmp_path / "annotated.mlir"
    annotated.write_text(AnnotationApplier(source, context).apply(problem, info).text)
    configs = tmp_path / "configs"
    _compile(
        annotated,
        f"--iree-hal-dump-executable-configurations-to={configs}",
        "--compile-to=executable-configurations",
        "-o",
        str(tmp_path / "out.mlir"),
    )
    (configured,) = [p.read_text() for p in configs.glob("*.mlir") if "online_attention" in p.read_text()]
    assert sorted(re.findall(_CONFIG_LISTS, configured)) == sorted(re.findall(_CONFIG_LISTS, info))


@pytest.mark.parametrize("target_name", ["sm_90", "znver3"])
def test_a_one_query_attention_is_refused_with_its_reason(target_name, tmp_path, context):
    """IREE folds a decode step's unit query loop away and configures the attention as a reduction over the cache;
    the attention spaces tile the query sequence, so the dispatch is listed as untunable, saying why (it was a crash
    in the spaces' unpacking of that loop)."""
    _, (bench,) = _dumped(attention_source(4, 1, 64, 128, 64), target_name, tmp_path, context)  # one query a head
    assert "online_attention" in bench.read_text()
    (root,) = read_root_ops(parse_module_file(bench, context))
    assert isinstance(root, Untunable) and root.reason == ONE_QUERY, root
