"""Starter-spec precedence, checked with the real `iree-opt` linker and a real compile of the model."""

from __future__ import annotations

import pytest
from iree_helpers import CPU_FLAGS, TWO_OP_SOURCE, compile_with_configs_dump
from test_spec import spec_for

from mltune.errors import UserError
from mltune.whole_model.merge import DEFAULT_ENTRYPOINT, merge, read_starter_spec
from mltune.spaces.cpu_contraction import tile_lists

OURS = {"wg_m": 20, "wg_n": 64, "vec_m": 4, "vec_n": 32, "vec_k": 4}
THEIRS = {"wg_m": 50, "wg_n": 100, "vec_m": 5, "vec_n": 16, "vec_k": 2}
THEIRS_BMM = {"wg_m": 32, "wg_n": 32, "vec_m": 2, "vec_n": 16, "vec_k": 8}


def _starter(tmp_path, context, texts, default_entrypoint: bool):
    from mltune.emit.spec import link_specs

    text = link_specs(texts, context, tmp_path)
    if not default_entrypoint:  # a spec whose entrypoint is not the single-foreach_match default form
        text = text.replace(f", {DEFAULT_ENTRYPOINT}", "").replace(f"{DEFAULT_ENTRYPOINT}, ", "")
        assert DEFAULT_ENTRYPOINT not in text
    path = tmp_path / "starter.mlir"
    path.write_text(text)
    return read_starter_spec(path, context)


@pytest.mark.parametrize("default_entrypoint", [True, False], ids=["default-entrypoint", "include-form"])
def test_mltune_config_wins_over_the_starter_spec(dumps, context, tmp_path, default_entrypoint):
    matmul, bmm = dumps["matmul"], dumps["batch_matmul"]
    starter = _starter(
        tmp_path, context, [spec_for(matmul, THEIRS, context), spec_for(bmm, THEIRS_BMM, context)], default_entrypoint
    )
    assert starter.default_entrypoint == default_entrypoint
    merged = merge([spec_for(matmul, OURS, context)], starter, context, tmp_path)
    spec = tmp_path / "merged.mlir"
    spec.write_text(merged)
    source = tmp_path / "two_ops.mlir"
    source.write_text(TWO_OP_SOURCE)
    configs = compile_with_configs_dump(source, tmp_path / "out", spec, CPU_FLAGS)
    assert configs["linalg.matmul"] == [tile_lists(matmul.problem, OURS)], "mltune's config is on the matmul"
    assert configs["linalg.batch_matmul"] == [tile_lists(bmm.problem, THEIRS_BMM)], "the starter's other config stays"


def test_without_precedence_handling_the_starter_would_win(dumps, context, tmp_path):
    """The reason for the ordering: with default entrypoints the first matcher wins."""
    from mltune.emit.spec import link_specs

    matmul = dumps["matmul"]
    spec = tmp_path / "naive.mlir"
    spec.write_text(link_specs([spec_for(matmul, THEIRS, context), spec_for(matmul, OURS, context)], context, tmp_path))
    source = tmp_path / "mm.mlir"
    source.write_text(matmul.source.read_text())
    configs = compile_with_configs_dump(source, tmp_path / "out", spec, CPU_FLAGS)
    assert configs["linalg.matmul"] == [tile_lists(matmul.problem, THEIRS)]


def test_starter_alone_when_nothing_was_tuned(dumps, context, tmp_path):
    starter = _starter(tmp_path, context, [spec_for(dumps["matmul"], THEIRS, context)], True)
    assert merge([], starter, context, tmp_path) == starter.text
    assert merge([], None, context, tmp_path) is None


@pytest.mark.parametrize(
    "text,words",
    [
        (None, ["cannot read"]),
        ("module { this is not mlir", ["not valid MLIR"]),
        ("module {\n}\n", ["not a tuning spec"]),
    ],
)
def test_bad_starter_spec_is_a_user_error(context, tmp_path, text, words):
    path = tmp_path / "starter.mlir"
    if text is not None:
        path.write_text(text)
    with pytest.raises(UserError) as err:
        read_starter_spec(path, context)
    assert all(w in str(err.value) for w in words), str(err.value)
    assert "\n" not in str(err.value)


def test_configs_merge_through_the_targets_applier(dumps, context, tmp_path):
    """Without a starter spec the configs are the applier's own combination (a linked spec, or on CUDA the
    annotated source); with one, they are specs linked with it."""
    from mltune.emit.apply import AnnotationApplier, SpecApplier
    from mltune.whole_model.merge import merge_configs
    from mltune.whole_model.verify import Config
    from mltune.spaces.cpu_contraction import CpuContraction

    matmul = dumps["matmul"]
    config = Config(matmul.problem, CpuContraction(matmul.problem, matmul.cpu, context).compilation_info(OURS))
    spec_applier = SpecApplier(context)
    assert merge_configs([], None, spec_applier, context, tmp_path) is None
    linked = merge_configs([config], None, spec_applier, context, tmp_path)
    assert linked == spec_applier.combine([(config.problem, config.compilation_info)], tmp_path)
    annotated = merge_configs([config], None, AnnotationApplier(matmul.source, context), context, tmp_path)
    assert annotated.kind == "source" and "compilation_info" in annotated.text
    starter = _starter(tmp_path, context, [spec_for(dumps["batch_matmul"], THEIRS_BMM, context)], True)
    with_starter = merge_configs([config], starter, spec_applier, context, tmp_path)
    assert with_starter.kind == "spec" and with_starter.text == merge(
        [spec_for(matmul, OURS, context)], starter, context, tmp_path
    )
    with pytest.raises(UserError, match="tuning spec"):
        merge_configs([config], starter, AnnotationApplier(matmul.source, context), context, tmp_path)
