"""llvm-cpu multi-loop contractions (1x1 convolutions as IREE dispatches them at batch 1: output channels x height x
width x input channels, strided or not): read from a model's strided 1x1 convolution and from a one-op model,
IREE's default inside the space, the structural spec applied by the real compiler (the configuration dumped is
the spec's, the binary changes, the result does not), features and the heuristic."""

from __future__ import annotations

import filecmp
from pathlib import Path

import numpy as np
import pytest
from iree.compiler.dialects import iree_codegen
from iree_helpers import (
    checked_heuristic_order,
    compile_with_dumps,
    outputs_on_random_inputs,
    configured_from_stripped_dump,
    dump_command,
    dump_one_op,
    parse_levels,
    run,
    TEST_CPU,
)

from mltune.emit.spec import build_spec
from mltune.features import extractor_for
from mltune.frontend.one_op_model import one_by_one_convolution_model
from mltune.frontend.mlir import parse_module_file
from mltune.frontend.problem import ELEMENTWISE, MULTI_LOOP_CONTRACTION, Problem
from mltune.frontend.root_ops import read_root_ops
from mltune.records.dataset import Record, RecordWriter, device_id, read_records
from mltune.search.screen_module import one_op_module
from mltune.spaces.configure import make_configurator
from mltune.spaces.cpu_reduction import LEVELS, PIPELINE, CpuMultiLoopContraction, knobs_of_levels, tile_lists
from mltune.targets.cpu import CpuInfo, CpuTarget


PROJECTION = one_by_one_convolution_model(32, 7, 16, 2)  # small on purpose
EXPORTS = Path(__file__).resolve().parent.parent / "examples" / "models" / "exported"


def _export_dispatches(directory: Path, context) -> list[dict]:
    """The committed ResNet-50's multi-loop contraction dispatches (its 1x1 convolutions, as iree-turbine exports
    them), each as `dump_one_op` describes one."""
    directory.mkdir()
    result = run(dump_command(EXPORTS / "resnet50.mlir", directory / "bench", directory / "model.vmfb"))
    assert result.returncode == 0, result.stderr[-2000:]
    found = []
    for bench in sorted((directory / "bench").glob("*_benchmark.mlir")):
        module = parse_module_file(bench, context)
        with context:
            problems = [
                p for p in read_root_ops(module) if isinstance(p, Problem) and p.op_kind == MULTI_LOOP_CONTRACTION
            ]
            if problems:
                cpu = CpuInfo.from_executable_target(
                    str(iree_codegen.get_executable_variant_ops(module)[0].attributes["target"])
                )
                (root,) = iree_codegen.get_tuner_root_ops(module)
                found.append(
                    {
                        "source": EXPORTS / "resnet50.mlir",
                        "bench": bench,
                        "problem": problems[0],
                        "cpu": cpu,
                        "levels": parse_levels(str(root.attributes["lowering_config"])),
                        "module": module,
                    }
                )
    return found


@pytest.fixture(scope="module")
def dumped(tmp_path_factory, context):
    root = tmp_path_factory.mktemp("multi_loop")
    exported = _export_dispatches(root / "export", context)
    return {
        "projection": dump_one_op(PROJECTION, "projection", root, context),
        "export": exported,
        "unstrided": next(d for d in exported if not d["problem"].strides),
    }


def test_a_strided_1x1_convolution_reads_as_a_multi_loop_contraction(dumped):
    problem = dumped["projection"]["problem"]
    assert problem.op_kind == MULTI_LOOP_CONTRACTION, "several M loops, a strided read: not a plain contraction"
    assert (
        problem.sizes(problem.n) == (32,) and problem.sizes(problem.m) == (7, 7) and problem.sizes(problem.k) == (16,)
    )
    assert problem.strides == (1, 2, 2, 1) and problem.key.endswith("_s1x2x2x1")
    assert problem.operand_shapes == ((16, 14, 14), (32, 16), (32, 7, 7)), (
        "a strided map does not give the image's shape"
    )
    assert Problem.from_record(problem.to_record()) == problem
    exported = [d["problem"] for d in dumped["export"]]
    assert any(p.strides for p in exported) and any(not p.strides for p in exported), (
        "the exported ResNet's 1x1 convolutions: a strided projection and unstrided ones with height and width apart"
    )
    unstrided = dumped["unstrided"]["problem"]
    assert len(unstrided.m) == 2 and "operand_shapes" not in unstrided.to_record(), "other records stay as they were"


def test_the_default_is_inside_and_every_candidate_keeps_the_rules(dumped, context, tmp_path):
    for dump in [dumped["projection"], *dumped["export"]]:
        problem, cpu = dump["problem"], dump["cpu"]
        configurator = make_configurator(problem, cpu, context, dump["bench"], tmp_path)
        assert isinstance(configurator, CpuMultiLoopContraction)
        candidates = configurator.candidates()
        for i in range(3):
            assert (candidates.column(f"vec_p{i}") < 2 * candidates.column(f"wg_p{i}")).all()
        default = knobs_of_levels(problem, dump["levels"])
        assert configurator.space.contains(default), f"IREE's default {dump['levels']} -> {default}"
        # some hosts (znver3) add a cache_parallel level, which mltune leaves to IREE; the three it sets are exact
        assert set(dump["levels"]) - set(LEVELS) <= {"cache_parallel"}, dump["levels"]
        assert tile_lists(problem, default) == {name: dump["levels"][name] for name in LEVELS}, (
            "the knobs describe IREE's config exactly"
        )


def test_the_heuristics_first_candidate_configures_the_projection_and_changes_the_binary_not_the_result(
    dumped, context, tmp_path
):
    dump = dumped["projection"]
    problem, cpu = dump["problem"], dump["cpu"]
    configurator = CpuMultiLoopContraction(problem, cpu, context)
    candidates = configurator.candidates()
    features, order = checked_heuristic_order(extractor_for(problem, cpu, [PIPELINE]), problem, cpu, candidates)
    first = int(order[0])
    assert features["register_overflow"][first] == 0 and not features["scattered_output"][first], (
        "accumulators in registers, lanes along the output's width"
    )
    chosen = candidates.knobs(first)
    spec = tmp_path / "spec.mlir"
    spec.write_text(build_spec(problem, configurator.compilation_info(chosen), context))
    plain = compile_with_dumps(dump["source"], tmp_path / "plain")
    tuned = compile_with_dumps(dump["source"], tmp_path / "tuned", f"--iree-codegen-tuning-spec-path={spec}")
    expected = ", ".join(f"{level} = {values}" for level, values in tile_lists(problem, chosen).items())
    assert expected in "".join(path.read_text() for path in tuned.glob("configured_*.mlir"))
    binaries = [
        (a, b)
        for a, b in zip(sorted(plain.glob("*.so")), sorted(tuned.glob("*.so")), strict=True)
        if not filecmp.cmp(a, b, shallow=False)
    ]
    assert len(binaries) == 1, "the spec changed the projection's binary only (not the ReLU's before it)"
    shapes = [(16, 14, 14), (32, 16)]
    np.testing.assert_allclose(
        outputs_on_random_inputs(tuned / "module.vmfb", shapes, tmp_path),
        outputs_on_random_inputs(plain / "module.vmfb", shapes, tmp_path),
        rtol=1e-4,
        atol=1e-4,
    )


def test_the_dispatch_stripped_of_its_config_takes_the_spec(dumped, context, tmp_path):
    """The dumped benchmark, as `mltune tune` and the screen compile a candidate, is configured by the spec too."""
    dump = dumped["unstrided"]
    chosen = dict(knobs_of_levels(dump["problem"], dump["levels"]), red_r0=5)
    configurator = CpuMultiLoopContraction(dump["problem"], dump["cpu"], context)
    assert "vector_reduction = [0, 0, 0, 5]" in configured_from_stripped_dump(
        configurator, chosen, dump["bench"], tmp_path, context
    )


def test_each_exported_1x1_convolution_is_screened_on_a_one_op_model_iree_configures_alike(dumped, context, tmp_path):
    """The one-op screen of a multi-loop contraction (a ReLU before it, a padded result after an unstrided one) is
    dispatched by IREE as the model's dispatch: the same problem, and IREE's default tiles the same."""
    for position, exported in enumerate(dumped["export"]):
        module = one_op_module(exported["problem"], CpuTarget(TEST_CPU), context, tmp_path / str(position), (), 0)
        assert module is not None, exported["problem"].key
        screened = []
        for bench in module.tuning_input.dispatch_files:
            with context:
                parsed = parse_module_file(bench, context)
                if any(isinstance(p, Problem) and p.op_kind != ELEMENTWISE for p in read_root_ops(parsed)):
                    (root,) = iree_codegen.get_tuner_root_ops(parsed)
                    screened.append(parse_levels(str(root.attributes["lowering_config"])))
        assert screened == [exported["levels"]], exported["problem"].key


def test_a_strided_problems_record_is_read_back_whole(tmp_path, capsys):
    """Its operand shapes (lists of lists) pass the record check: a run resumed, a dataset trained, see them."""
    # synthetic record (no measurement), of the problem a ResNet-50 projection reads as
    problem = Problem(
        op_kind=MULTI_LOOP_CONTRACTION,
        op_name="linalg.generic",
        bounds=(512, 28, 28, 256),
        batch=(),
        m=(1, 2),
        n=(0,),
        k=(3,),
        lhs_type="f32",
        rhs_type="f32",
        out_type="f32",
        indexing_maps=(
            "affine_map<(d0, d1, d2, d3) -> (d3, d1 * 2, d2 * 2)>",
            "affine_map<(d0, d1, d2, d3) -> (d0, d3)>",
            "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>",
        ),
        layout="pppr_in2",
        strides=(1, 2, 2, 1),
        operand_types=("f32", "f32", "f32"),
        operand_shapes=((256, 56, 56), (512, 256), (512, 28, 28)),
    )
    path = tmp_path / "run.jsonl"
    writer = RecordWriter(path)
    writer.append(
        Record(
            arch="x",
            device=device_id("local-task", 2),
            problem=problem.to_record(),
            pipeline=PIPELINE,
            knobs={"wg_p0": 64, "vec_p0": 16, "wg_p1": 1, "vec_p1": 1, "wg_p2": 28, "vec_p2": 16, "red_r0": 16},
            status="ok",
            time_us=[1.0],
            baseline_us=[1.1],
            ranker="heuristic",
            position=0,
            run_id="run",
            level="model",
        )
    )
    writer.close()
    (record,) = read_records(path)
    assert Problem.from_record(record["problem"]) == problem and "warning" not in capsys.readouterr().err
