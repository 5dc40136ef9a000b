"""GPU reductions and normalisations (compile only, no GPU): an RMS norm (a layer norm's dispatches read as the same
problem) and a softmax at BERT / GPT-2 sizes get the GPU reduction space on gfx942 and sm_90, the space holds IREE's
own VectorDistribute reduction config, candidates applied the target's way (spec on ROCm, annotation of the dumped
dispatch on CUDA) compile with their config on the root and IREE's derived lists on the fused ops, and the features
and heuristic work on them."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from iree.compiler.dialects import iree_codegen
from gpu_dump_helpers import (
    GpuOpDump,
    assert_default_rebuilt,
    configured_candidate,
    dump_gpu_model,
    dump_gpu_ops,
    dumped_translation,
    reduction_config_knobs,
)
from iree_helpers import checked_heuristic_order, mltune, run

from mltune.features import extractor_for
from mltune.features.gpu_reduction import gpu_reduction_features
from mltune.frontend.mlir import parse_module_file
from mltune.frontend.one_op_reduction import ReductionShape, reduction_model
from mltune.frontend.problem import Problem, Untunable
from mltune.frontend.root_ops import read_root_ops
from mltune.spaces.configure import make_configurator
from mltune.spaces.gpu_reduction import GpuReduction
from mltune.system.tools import tool_path
from mltune.targets import facts_from_executable_target, parse_target
from mltune.tuning.prepare import NOT_IN_SOURCE

EXPORTS = Path(__file__).resolve().parent.parent / "examples" / "models" / "exported"
SHAPES = {"rmsnorm": ReductionShape("rmsnorm", (128, 768)), "softmax": ReductionShape("softmax", (12, 128, 128))}
TARGETS = ("gfx942", "sm_90")
FUSED_OPS = {"rmsnorm": 1, "softmax": 2}  # the normalising op after the root; softmax's max before it
CASES = [(target, shape) for target in TARGETS for shape in SHAPES]
_LOWERING = re.compile(r"lowering_config = (#iree_gpu.lowering_config<\{[^\n]*?\}>)")


@pytest.fixture(scope="module")
def dumps(tmp_path_factory, context) -> dict[tuple[str, str], GpuOpDump]:
    models = {shape: reduction_model(SHAPES[shape]) for shape in SHAPES}
    return dump_gpu_ops(tmp_path_factory.mktemp("gpu_reductions"), models, TARGETS, context)


def _knobs(dump: GpuOpDump, lowering: str, translation: str) -> dict[str, int]:
    return reduction_config_knobs(lowering, translation, dump.configurator.rows_loop, dump.problem.k[0])


@pytest.mark.parametrize("case", CASES)
def test_iree_default_is_in_the_gpu_reduction_space(dumps, case):
    """IREE's VectorDistribute reduction config of the dispatch is a point of the space, rebuilt exactly."""
    dump = dumps[case]
    assert dump.problem.op_kind == "reduction" and isinstance(dump.configurator, GpuReduction), dump.configurator
    assert_default_rebuilt(dump, _knobs(dump, dump.lowering, dump.translation), 500)


@pytest.mark.e2e
@pytest.mark.parametrize("case", CASES)
def test_candidates_compile_with_their_config(dumps, context, tmp_path, case):
    """Two random candidates compile, the root carries exactly their config, and every fused reduction and
    normalising op the lists IREE derives from it (no `workgroup`; `serial` for `partial_reduction` after the root).
    ROCm: a spec beside the model; CUDA: the dumped dispatch annotated (its source softmax is no generic)."""
    dump = dumps[case]
    candidates = dump.configurator.candidates()
    for i, index in enumerate(np.random.default_rng(1).choice(len(candidates), 2, replace=False)):
        knobs = candidates.knobs(int(index))
        configured = configured_candidate(dump, knobs, tmp_path / f"candidate_{i}", context)
        lowerings = _LOWERING.findall(configured)
        (root,) = [config for config in lowerings if "workgroup" in config]
        assert _knobs(dump, root, dumped_translation(configured)) == knobs
        fused = {config.replace("serial", "partial_reduction") for config in lowerings if config != root}
        assert len(lowerings) == FUSED_OPS[case[1]] + 1 and len(fused) == 1
        assert fused.pop() == re.sub(r", workgroup = \[[\d, ]*\]", "", root)


def test_features_and_heuristic_order(dumps):
    for case, dump in dumps.items():
        candidates = dump.configurator.candidates()
        assert extractor_for(dump.problem, dump.gpu, ["VectorDistribute"]) is gpu_reduction_features
        _, order = checked_heuristic_order(gpu_reduction_features, dump.problem, dump.gpu, candidates)
        first = candidates.knobs(order[0])
        assert first["vector"] * 4 == 16 and first["lanes_k"] * first["vector"] * 4 >= 128, (case, first)
        default = candidates.index_of(_knobs(dump, dump.lowering, dump.translation))
        assert order.index(default) < len(candidates) // 2, case


def test_rows_iree_configures_with_tile_and_fuse_are_refused(context, tmp_path):
    """A softmax over rows of 197 (ViT's tokens) is not a multiple of the subgroup size: IREE gives it TileAndFuse,
    and the reduction read from the dispatch IREE configured says so (as for any reduction IREE does not give its
    VectorDistribute reduction config: a pooling that gathers its input, say)."""
    _, _, bench, _, problem, _ = dump_gpu_model(
        reduction_model(ReductionShape("softmax", (12, 197, 197))), "gfx942", tmp_path, context
    )
    assert "pipeline<TileAndFuse>" in bench.read_text()
    assert isinstance(problem, Untunable) and "TileAndFuse" in problem.reason, problem


@pytest.mark.slow
@pytest.mark.e2e
def test_cli_compile_only_on_sm_90(tmp_path):
    """CUDA writes a candidate onto the source's op: a layer norm's generics take it (every candidate compiles), a
    `linalg.softmax` has no generic to carry it, and its dispatch is listed as not tuned rather than failing the run."""
    for name in ("layernorm", "softmax"):
        shape = ReductionShape(name, (128, 768) if name == "layernorm" else (12, 128, 128))
        (tmp_path / f"{name}.mlir").write_text(reduction_model(shape))
        result = mltune(
            [
                "tune",
                f"{name}.mlir",
                "--target",
                "sm_90",
                "--compile-only",
                "--budget",
                "3",
                "--run-dir",
                f"run_{name}",
            ],
            cwd=tmp_path,
        )
        assert result.returncode == 0, result.stderr[-2000:]
        if name == "layernorm":
            assert re.search(r"VectorDistribute\s+\d+\s+[\d.]+\s+3/3\s+100.0 %", result.stdout), result.stdout
        else:
            assert NOT_IN_SOURCE in result.stdout + result.stderr


@pytest.mark.e2e
@pytest.mark.parametrize("model", [pytest.param(m, marks=pytest.mark.slow) for m in ("gpt2", "bert", "vit")])
def test_the_layer_norms_of_committed_exports_hold_iree_default(model, context, tmp_path):
    """Every reduction dispatch of a committed (small) export on gfx942 gets the space, holding IREE's own config."""
    target = parse_target("gfx942", probe=False)
    result = run(
        [
            tool_path("iree-compile"),
            str(EXPORTS / f"{model}.mlir"),
            *target.compile_flags(),
            "--iree-codegen-add-tuner-attributes",
            f"--iree-hal-dump-executable-benchmarks-to={tmp_path / 'bench'}",
            "-o",
            str(tmp_path / "m.vmfb"),
        ]
    )
    assert result.returncode == 0, result.stderr[-2000:]
    found = 0
    for bench in sorted((tmp_path / "bench").glob("*_benchmark.mlir")):
        with context:
            module = parse_module_file(bench, context)
            problems = [p for p in read_root_ops(module) if isinstance(p, Problem) and p.op_kind == "reduction"]
            if not problems:
                continue
            gpu = facts_from_executable_target(iree_codegen.get_executable_variant_ops(module)[0].attributes["target"])
            (root,) = iree_codegen.get_tuner_root_ops(module)
            lowering = str(root.attributes["lowering_config"])
        configurator = make_configurator(problems[0], gpu, context, bench, tmp_path / "work")
        assert isinstance(configurator, GpuReduction), configurator
        knobs = reduction_config_knobs(
            lowering, dumped_translation(bench.read_text()), configurator.rows_loop, problems[0].k[0]
        )
        assert configurator.candidates().index_of(knobs) is not None, (bench.name, lowering)
        found += 1
    assert found >= 2, "a layer norm makes two reduction dispatches"
