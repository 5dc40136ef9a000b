"""Tuning specs: built by mltune, applied by the real compiler, merged with `link_specs`."""

from __future__ import annotations

import re

import pytest
from iree.compiler import ir
from iree_helpers import CPU_FLAGS, TWO_OP_SOURCE, compile_with_configs_dump, strip_config

from mltune.emit.spec import build_spec, link_specs
from mltune.frontend.mlir import new_context
from mltune.spaces.cpu_contraction import CpuContraction, tile_lists

# A configuration different from IREE's default for each problem (checked below), and inside the space.
CHOSEN = {
    "tiny": {"wg_m": 16, "wg_n": 16, "vec_m": 4, "vec_n": 16, "vec_k": 8},
    "matmul": {"wg_m": 20, "wg_n": 64, "vec_m": 4, "vec_n": 32, "vec_k": 4},
    "batch_matmul": {"wg_m": 32, "wg_n": 32, "vec_m": 2, "vec_n": 16, "vec_k": 8},
}


def spec_for(dumped, knobs, context) -> str:
    configurator = CpuContraction(dumped.problem, dumped.cpu, context)
    assert configurator.space.contains(knobs)
    assert tile_lists(dumped.problem, knobs) != dumped.default_levels, "pick a config that differs from IREE's"
    return build_spec(dumped.problem, configurator.compilation_info(knobs), context)


def test_compilation_info_is_the_compiler_attribute(tiny, context):
    info = CpuContraction(tiny.problem, tiny.cpu, context).compilation_info(CHOSEN["tiny"])
    assert info.startswith("#iree_codegen.compilation_info<")
    assert "distribution = [16, 16, 0]" in info
    assert "vector_common_parallel = [4, 16, 0]" in info
    assert "vector_reduction = [0, 0, 8]" in info
    assert "DoubleTilingExpert" in info


def test_batch_loops_keep_tile_one(dumps):
    levels = tile_lists(dumps["batch_matmul"].problem, CHOSEN["batch_matmul"])
    assert levels == {
        "distribution": [1, 32, 32, 0],
        "vector_common_parallel": [1, 2, 16, 0],
        "vector_reduction": [0, 0, 0, 8],
    }


@pytest.mark.parametrize("name", ["matmul", "batch_matmul"])
def test_spec_parses_and_names_the_sizes(dumps, context, name):
    dumped = dumps[name]
    text = spec_for(dumped, CHOSEN[name], context)
    with new_context():  # parses on its own, in a fresh context
        module = ir.Module.parse(text)
        assert "transform.with_named_sequence" in module.operation.attributes
    problem = dumped.problem
    assert f"@match_{problem.key}" in text
    assert "iree_codegen.tuning_spec_entrypoint" in text and "@__kernel_config" in text
    dims = dict(re.findall(r"dims_equal %(\w+), (\[[^\]]*\])", text))
    sizes = {role: str(list(problem.sizes(getattr(problem, role)))) for role in ("batch", "m", "n", "k")}
    assert dims == sizes
    if name == "batch_matmul":
        assert dims["batch"] == "[12]" and dims["k"] == "[64]"
    else:
        assert dims == {"batch": "[]", "m": "[100]", "n": "[1000]", "k": "[300]"}
    for amap in problem.indexing_maps:
        assert amap in text
    assert f"lhs_type = {problem.lhs_type}, rhs_type = {problem.rhs_type}, output_type = {problem.out_type}" in text


def test_build_spec_rejects_invalid_attribute(tiny, context):
    with pytest.raises(ir.MLIRError):
        build_spec(tiny.problem, "#iree_codegen.not_an_attribute<>", context)


def test_spec_is_applied_to_the_stripped_dispatch(tiny, context, tmp_path):
    spec = tmp_path / "spec.mlir"
    spec.write_text(spec_for(tiny, CHOSEN["tiny"], context))
    stripped = strip_config(tiny.bench, tmp_path / "stripped.mlir")

    default = compile_with_configs_dump(stripped, tmp_path / "default")
    assert default["linalg.matmul"] == [tiny.default_levels], "without a spec the compiler picks its default"

    tuned = compile_with_configs_dump(stripped, tmp_path / "tuned", spec)
    assert tuned["linalg.matmul"] == [tile_lists(tiny.problem, CHOSEN["tiny"])]


def test_spec_for_other_sizes_does_not_match(tiny, dumps, context, tmp_path):
    """The matcher checks the sizes: a spec for 100x1000x300 leaves the 32x48x64 matmul alone."""
    spec = tmp_path / "spec.mlir"
    spec.write_text(spec_for(dumps["matmul"], CHOSEN["matmul"], context))
    stripped = strip_config(tiny.bench, tmp_path / "stripped.mlir")
    configs = compile_with_configs_dump(stripped, tmp_path / "out", spec)
    assert configs["linalg.matmul"] == [tiny.default_levels]


def test_spec_is_applied_in_the_whole_model(tiny, context, tmp_path):
    spec = tmp_path / "spec.mlir"
    spec.write_text(spec_for(tiny, CHOSEN["tiny"], context))
    configs = compile_with_configs_dump(tiny.source, tmp_path / "out", spec, CPU_FLAGS)
    assert configs["linalg.matmul"] == [tile_lists(tiny.problem, CHOSEN["tiny"])]


def test_link_specs_merges_two_and_the_model_gets_both(dumps, context, tmp_path):
    matmul, batch = dumps["matmul"], dumps["batch_matmul"]
    linked = link_specs(
        [spec_for(matmul, CHOSEN["matmul"], context), spec_for(batch, CHOSEN["batch_matmul"], context)],
        context,
        tmp_path,
    )
    with new_context():
        ir.Module.parse(linked)
    entry_points = re.findall(r"transform\.named_sequence @(\w+)\([^\n]*iree_codegen\.tuning_spec_entrypoint", linked)
    assert len(entry_points) == 1, entry_points
    # the entry point's foreach_match lists both matchers
    entry = linked[linked.index(f"@{entry_points[0]}(") :]
    foreach = entry[entry.index("transform.foreach_match") : entry.index("transform.yield")]
    assert entry_points == ["__kernel_config"] and linked.count("named_sequence @__kernel_config(") == 1
    assert f"match_{matmul.problem.key}" in foreach and f"match_{batch.problem.key}" in foreach
    assert "iree_codegen.tuning_spec_with_default_entrypoint" in linked

    source = tmp_path / "two_ops.mlir"
    source.write_text(TWO_OP_SOURCE)
    spec = tmp_path / "linked.mlir"
    spec.write_text(linked)
    configs = compile_with_configs_dump(source, tmp_path / "out", spec, CPU_FLAGS)
    assert configs["linalg.matmul"] == [tile_lists(matmul.problem, CHOSEN["matmul"])]
    assert configs["linalg.batch_matmul"] == [tile_lists(batch.problem, CHOSEN["batch_matmul"])]


def test_link_of_one_spec_is_that_spec(tiny, context, tmp_path):
    text = spec_for(tiny, CHOSEN["tiny"], context)
    assert link_specs([text], context, tmp_path) == text
