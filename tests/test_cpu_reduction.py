"""llvm-cpu reductions and normalisations (`DoubleTilingExpert` on a reducing generic): read from a committed export
and from one-op models, IREE's default inside the space, the structural spec applied by the real compiler (the
configuration dumped is the spec's, the binary changes, the result does not), features and the heuristic."""

from __future__ import annotations

import filecmp
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from iree.compiler.dialects import iree_codegen
from iree.compiler.ir import FunctionType, RankedTensorType
from iree_helpers import (
    checked_heuristic_order,
    trial_record_files,
    compile_with_dumps,
    outputs_on_random_inputs,
    configured_from_stripped_dump,
    dump_command,
    dump_one_op,
    mltune,
    parse_levels,
    run,
)

from mltune.emit.spec import build_spec
from mltune.features import extractor_for
from mltune.frontend.mlir import parse_module_file
from mltune.frontend.one_op_reduction import ReductionShape, reduction_model
from mltune.frontend.problem import NORMALISED, Problem
from mltune.frontend.root_ops import read_root_ops
from mltune.spaces.configure import make_configurator
from mltune.spaces.cpu_contraction import VECTOR_BYTES_LIMIT_FACTOR
from mltune.spaces.cpu_reduction import PIPELINE, CpuReduction, knobs_of_levels, tile_lists, whole_rows
from mltune.targets import facts_from_executable_target

EXPORTS = Path(__file__).resolve().parent.parent / "examples" / "models" / "exported"
SHAPES = {  # small on purpose; one dispatch each (a layer norm makes two: the export below has them)
    "rmsnorm": ReductionShape("rmsnorm", (24, 96)),
    "softmax": ReductionShape("softmax", (2, 16, 40)),
    "meanpool": ReductionShape("meanpool", (1, 64, 7, 7)),
}


@pytest.fixture(scope="module")
def reductions(tmp_path_factory, context):
    root = tmp_path_factory.mktemp("reductions")
    found = {}
    for name, shape in SHAPES.items():
        (root / name).mkdir()
        found[name] = dump_one_op(reduction_model(shape), name, root / name, context)
    return found


def test_the_layer_norms_of_a_committed_export_read_as_reductions(context, tmp_path):
    """BERT as exported by iree-turbine: its layer norms are reduction dispatches with a space holding IREE's default."""
    result = run(dump_command(EXPORTS / "bert.mlir", tmp_path / "bench", tmp_path / "bert.vmfb"))
    assert result.returncode == 0, result.stderr[-2000:]
    reductions = []
    for bench in sorted((tmp_path / "bench").glob("*_benchmark.mlir")):
        module = parse_module_file(bench, context)
        with context:
            problems = [p for p in read_root_ops(module) if isinstance(p, Problem) and p.op_kind == "reduction"]
            if problems:
                facts = facts_from_executable_target(
                    iree_codegen.get_executable_variant_ops(module)[0].attributes["target"]
                )
                (root,) = iree_codegen.get_tuner_root_ops(module)
                levels = parse_levels(str(root.attributes["lowering_config"]))
                reductions.append((bench, problems[0], facts, levels))
    assert len(reductions) >= 4, "two layer norms per layer, each a mean and a variance dispatch"
    for bench, problem, facts, levels in reductions:
        assert problem.layout == "pr_in1_norm" and problem.sizes(problem.k) == (64,)
        configurator = make_configurator(problem, facts, context, bench, tmp_path / "unused")
        assert isinstance(configurator, CpuReduction)
        default = knobs_of_levels(problem, levels)
        assert configurator.candidates().index_of(default) is not None, f"IREE's default {levels} is in the space"
        assert tile_lists(problem, default) == levels


def test_problems_name_their_parallel_and_reduction_loops(reductions):
    softmax = reductions["softmax"]["problem"]
    assert softmax.key == "reduction_2x16x40_f32f32f32_ppr_in2_norm", "the sum of exponentials, not the max before it"
    assert (softmax.m, softmax.k) == ((0, 1), (2,))
    pool = reductions["meanpool"]["problem"]
    assert pool.sizes(pool.k) == (49,), "IREE collapses the pooled window into one loop"
    assert not pool.layout.endswith(NORMALISED), "the division after it runs over the channels only"
    assert reductions["rmsnorm"]["problem"].layout == "pr_in1_norm"


@pytest.mark.parametrize("name", list(SHAPES))
def test_every_candidate_keeps_the_rules_and_the_default_is_inside(reductions, context, name):
    dumped = reductions[name]
    problem, cpu = dumped["problem"], dumped["cpu"]
    configurator = CpuReduction(problem, cpu, context)
    candidates = configurator.candidates()
    assert len(candidates) > 50
    limit = cpu.native_vector_bytes * VECTOR_BYTES_LIMIT_FACTOR
    rows = np.prod([candidates.column(f"vec_p{i}") for i in range(len(problem.m))], axis=0)
    reds = np.prod([candidates.column(f"red_r{j}") for j in range(len(problem.k))], axis=0)
    assert (rows * reds * 4 < limit).all()
    if whole_rows(problem):
        assert (rows * np.prod(problem.sizes(problem.k)) * 4 < limit).all(), "an unconfigured fused op's whole rows"
    for i in range(len(problem.m)):
        assert (candidates.column(f"vec_p{i}") <= candidates.column(f"wg_p{i}")).all()
    default = knobs_of_levels(problem, dumped["levels"])
    assert configurator.space.contains(default), f"IREE's default {dumped['levels']} -> {default}"
    assert tile_lists(problem, default) == dumped["levels"], "the knobs describe IREE's config exactly"


@pytest.mark.parametrize("name", ["softmax", "rmsnorm"])
def test_a_candidate_spec_configures_the_root_and_its_normalisation_and_changes_the_binary_not_the_result(
    reductions, context, tmp_path, name
):
    dumped = reductions[name]
    problem = dumped["problem"]
    configurator = CpuReduction(problem, dumped["cpu"], context)
    candidates = configurator.candidates()
    default = knobs_of_levels(problem, dumped["levels"])
    _, order = checked_heuristic_order(
        extractor_for(problem, dumped["cpu"], [PIPELINE]), problem, dumped["cpu"], candidates
    )
    chosen = next(candidates.knobs(int(i)) for i in order if candidates.knobs(int(i)) != default)
    spec = tmp_path / "spec.mlir"
    spec.write_text(build_spec(problem, configurator.compilation_info(chosen), context))
    plain = compile_with_dumps(dumped["source"], tmp_path / "plain")
    tuned = compile_with_dumps(dumped["source"], tmp_path / "tuned", f"--iree-codegen-tuning-spec-path={spec}")
    config = next(tuned.glob("configured_*.mlir")).read_text()
    expected = ", ".join(f"{level} = {values}" for level, values in tile_lists(problem, chosen).items())
    levels = tile_lists(problem, chosen)
    consumer = [0 if loop in problem.k else tile for loop, tile in enumerate(levels["vector_common_parallel"])]
    configured = re.findall(r"lowering_config = #iree_cpu.lowering_config<([^>]*)>", config)
    assert configured == [
        expected,
        f"vector_common_parallel = {consumer}, vector_inner_parallel = {levels['vector_reduction']}",
    ], "the root, then the normalisation after it"
    (plain_binary,), (tuned_binary,) = plain.glob("*.so"), tuned.glob("*.so")
    assert not filecmp.cmp(plain_binary, tuned_binary, shallow=False), "the spec was ignored"
    shape = SHAPES[name]
    np.testing.assert_allclose(
        outputs_on_random_inputs(tuned / "module.vmfb", shape.inputs, tmp_path),
        outputs_on_random_inputs(plain / "module.vmfb", shape.inputs, tmp_path),
        rtol=1e-5,
        atol=1e-5,
    )


@pytest.mark.parametrize("name", list(SHAPES))
def test_the_heuristic_fills_whole_vectors_along_the_rows(reductions, context, name):
    dumped = reductions[name]
    problem, cpu = dumped["problem"], dumped["cpu"]
    candidates = CpuReduction(problem, cpu, context).candidates()
    _, order = checked_heuristic_order(extractor_for(problem, cpu, [PIPELINE]), problem, cpu, candidates)
    first = candidates.knobs(order[0])
    lanes = cpu.native_vector_bytes // 4  # f32 lanes of this host's vectors: 16 with AVX-512, 8 with AVX2
    assert first["red_r0"] % lanes == 0, "the reduced rows are contiguous: whole vectors along them"


def test_the_dispatch_stripped_of_its_config_takes_the_spec(reductions, context, tmp_path):
    """The dumped benchmark, as `mltune tune` compiles a candidate, is configured by the spec too."""
    dumped = reductions["meanpool"]
    chosen = dict(knobs_of_levels(dumped["problem"], dumped["levels"]), red_r0=7)
    configurator = CpuReduction(dumped["problem"], dumped["cpu"], context)
    assert "vector_reduction = [0, 7]" in configured_from_stripped_dump(
        configurator, chosen, dumped["bench"], tmp_path, context
    )


@pytest.mark.slow
def test_tune_a_small_softmax_end_to_end(tmp_path):
    source = tmp_path / "softmax.mlir"
    source.write_text(reduction_model(SHAPES["softmax"]))
    result = mltune(["tune", str(source), "--ranker", "heuristic", "--budget", "3", "--jobs", "2"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "reduction_2x16x40" in result.stdout and "benchmarked 3" in result.stdout
    (records_file,) = trial_record_files(Path(os.environ["MLTUNE_HOME"]) / "datasets")
    records = [json.loads(line) for line in records_file.read_text().splitlines()]
    measured = [r for r in records if r["status"] == "ok"]
    assert len(measured) == 3 and all(r["pipeline"] == PIPELINE and r["time_us"] for r in measured)
    assert {"wg_p0", "vec_p1", "red_r0"} <= set(measured[0]["knobs"])
    assert Problem.from_record(measured[0]["problem"]).op_kind == "reduction"


@pytest.mark.parametrize(
    "kind, dims", [("layernorm", (4, 8)), ("rmsnorm", (4, 8)), ("softmax", (2, 4, 8)), ("meanpool", (1, 8, 3, 3))]
)
def test_the_shapes_said_of_the_arguments_are_main_s_arguments(context, tmp_path, kind, dims):
    """What the study feeds `@main` (`ReductionShape.inputs`) is its argument list (a layer norm's bias was left
    out once, and the runtime refused the call)."""
    shape = ReductionShape(kind, dims)
    (tmp_path / "model.mlir").write_text(reduction_model(shape))
    (main,) = [
        op
        for op in parse_module_file(tmp_path / "model.mlir", context).body.operations
        if op.operation.name == "func.func"
    ]
    arguments = [tuple(RankedTensorType(t).shape) for t in FunctionType(main.attributes["function_type"].value).inputs]
    assert arguments == list(shape.inputs)
