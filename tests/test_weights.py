"""Weights out of every build: a model with inlined constants split once into a module and an `.irpa` archive
(real iree-compile, IREE's own export pass), built and run with the archive everywhere mltune runs a model."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from iree.compiler import ir
from iree.compiler.dialects import iree_codegen
from iree_helpers import CPU_FLAGS, WEIGHT_LIMIT, mlp_source, split_mlp

from mltune.emit.apply import make_applier
from mltune.execution.build import Builder
from mltune.execution.measurement import TimingPlan
from mltune.execution.runner import Runner
from mltune.frontend.mlir import parse_module_file
from mltune.frontend.root_ops import problem_from_root_op
from mltune.input.dispatches import read_dispatches
from mltune.input.files import ParameterArchive
from mltune.input.tuning_input import Invocation, TuningInput, write_random_inputs
from mltune.spaces.configure import make_configurator
from mltune.system.tools import run_tool, tool_path
from mltune.whole_model import weights
from mltune.whole_model.numerics import compare, run_outputs


@pytest.fixture(scope="module")
def mlp(tmp_path_factory, context):
    """The model as the user gave it (inlined) and split, with seeded inputs."""
    return split_mlp(tmp_path_factory.mktemp("mlp"), context)


def test_only_large_constants_that_hold_data_are_outlined(context):
    """Both weights become immutable globals; the bias (below the limit) and the splat (IREE keeps it fused)
    stay where they are, in the function."""
    module = ir.Module.parse(mlp_source(), context)
    weights.outline_large_constants(module, WEIGHT_LIMIT)
    text = str(module)
    assert text.count("util.global private @__mltune_weight_") == 2
    assert text.count("util.global.load immutable @__mltune_weight_") == 2
    assert "arith.constant dense<5.000000e-01> : tensor<128x64xf32>" in text and ": tensor<128xf32>" in text
    assert weights.exported_bytes(module, WEIGHT_LIMIT) == 2 * 32 * 1024


def test_the_split_moves_the_large_constants_into_an_archive(mlp):
    inlined, split, made = mlp
    text = made.module.read_text()
    # w1 (32 KiB) and w2 + 0.5 (folded by const-eval before the split: 32 KiB) left; the bias and the splat stayed
    assert made.weight_bytes == 2 * 32 * 1024 and made.archive.path.stat().st_size >= made.weight_bytes
    assert text.count('#flow.parameter.named<"mltune_weights"::') == 2
    assert "tensor<128xf32>" in text and made.module.stat().st_size < inlined.source.stat().st_size / 4
    assert split.compile_flags[-1] == "--compile-from=global-optimization"
    assert split.invocation.parameters == (made.archive,) and split.invocation.inputs == inlined.invocation.inputs


@pytest.mark.parametrize(
    "flags",
    [
        (),
        pytest.param(("--iree-opt-data-tiling", "--iree-llvmcpu-enable-ukernels=mmt4d"), marks=pytest.mark.slow),
    ],  # 4 s: a second pair of builds
    ids=["default", "data-tiled"],
)
def test_split_builds_compute_what_the_inlined_model_computes(mlp, tmp_path, flags):
    """Bit for bit, on the same inputs, with IREE's defaults and with the data-tiling flags candidates carry."""
    inlined, split, _ = mlp
    outputs = []
    for name, tuning_input in (("inlined", inlined), ("split", split)):
        tuning_input = TuningInput(
            tuning_input.source, tuning_input.invocation, (), (*tuning_input.compile_flags, *flags)
        )
        build = Builder(tuning_input, tmp_path, 1).compile(0, None, name)
        assert build.status == "ok", build.detail
        outputs.append(run_outputs(build.vmfb, tuning_input.invocation, "local-task", tmp_path / name))
    assert compare(*outputs).ok and all(np.array_equal(a, b) for a, b in zip(*outputs))


def _dump(source: Path, flags, out: Path, context) -> dict[str, list[tuple[str, str, str, str]]]:
    """Each dumped dispatch's root ops: the problem, IREE's own configuration of it, and its operand types."""
    out.mkdir(parents=True)
    result = run_tool(
        [
            tool_path("iree-compile"),
            str(source),
            *flags,
            "--iree-codegen-add-tuner-attributes",
            f"--iree-hal-dump-executable-benchmarks-to={out}",
            "-o",
            str(out / "model.vmfb"),
        ],
        300,
    )
    assert result.ok, result.describe_failure()
    roots = {}
    for bench in sorted(out.glob("*_benchmark.mlir")):
        module = parse_module_file(bench, context)  # alive while its ops are read
        with context:
            ops = iree_codegen.get_tuner_root_ops(module)
            roots[bench.name] = [
                (
                    problem_from_root_op(op).key,
                    str(op.attributes["lowering_config"]),
                    str(op.parent.attributes["translation_info"]) if "translation_info" in op.parent.attributes else "",
                    " ".join(str(v.type) for v in op.operands),
                )
                for op in ops
            ]
    return roots


def _first_candidate(mlp, dumped: Path, context):
    """The first candidate of the model's first tunable dispatch (dumped from the inlined model into `dumped`),
    applied as the split model's spec."""
    inlined, split, _ = mlp
    dumps = tuple(sorted(dumped.glob("*_benchmark.mlir")))
    prepared = TuningInput(inlined.source, inlined.invocation, dumps, inlined.compile_flags)
    dispatch = next(d for d in read_dispatches(prepared, context) if d.problem.__class__.__name__ == "Problem")
    configurator = make_configurator(dispatch.problem, dispatch.facts, context, dispatch.bench, dumped / "space")
    return make_applier("cpu", split.source, context).apply(
        dispatch.problem, configurator.compilation_info(configurator.candidates().knobs(0))
    )


@pytest.mark.slow  # 6 s: two dumps and two builds of the model
def test_the_split_dumps_the_same_dispatches_and_takes_a_tuning_spec(mlp, context, tmp_path):
    """The same dispatches, root ops and IREE configurations (what a spec matches and what a candidate replaces);
    only the bindings differ: an inlined model's constants share one pooled buffer, each parameter is its own."""
    inlined, split, _ = mlp
    dumped = _dump(inlined.source, inlined.compile_flags, tmp_path / "inlined", context)
    assert len(dumped) == 2 and all(dumped.values())
    assert dumped == _dump(split.source, split.compile_flags, tmp_path / "split", context)
    applied = _first_candidate(mlp, tmp_path / "inlined", context)
    assert applied.text, "a spec candidate"
    builds = [
        Builder(t, tmp_path / name, 1).compile(0, applied, "candidate")
        for name, t in (("inlined", inlined), ("split", split))
    ]
    assert [b.status for b in builds] == ["ok", "ok"], [b.detail for b in builds]
    outputs = [
        run_outputs(b.vmfb, t.invocation, "local-task", tmp_path / f"out{i}")
        for i, (b, t) in enumerate(zip(builds, (inlined, split)))
    ]
    assert compare(*outputs).ok


@pytest.mark.slow  # 7 s: builds of the model with and without its weights, timed against each other
def test_a_result_is_timed_as_the_user_builds_it_and_judged_there(mlp, context, tmp_path):
    """`AsBuilt` builds a spec into the user's own model (weights inlined) beside IREE's default build of it, or
    against the default build given (the dump's), and times the two with the user's invocation; the verdict keeps a
    result surely faster so and withdraws or refuses one that is not (the measurements given to the verdict here are
    synthetic rounds)."""
    from mltune.execution.measurement import Measurement
    from mltune.whole_model.as_built import AsBuilt
    from mltune.whole_model.finish import ModelOutcome, as_built_verdict
    from mltune.whole_model.verify import ConfigCheck

    inlined = mlp[0]
    _dump(inlined.source, inlined.compile_flags, tmp_path / "dumps", context)
    result = _first_candidate(mlp, tmp_path / "dumps", context)
    as_built = AsBuilt(Builder(inlined, tmp_path / "unused", 1), Runner(inlined.invocation, "local-task", tmp_path))
    measured = as_built.in_folder(tmp_path / "as_built").measure(result, TimingPlan(rounds=2, round_seconds=0.02))
    assert isinstance(measured, Measurement) and measured.status == "ok" and measured.time_us, measured  # a far
    # slower first round ends the measurement there (`TimingPlan.slow_factor`)
    assert all((tmp_path / "as_built" / name / "module.vmfb").is_file() for name in ("default", "recommended"))
    assert not inlined.invocation.parameters, "the user's model carries its weights: it ran without an archive"
    given = replace(as_built, default_vmfb=tmp_path / "as_built" / "default" / "module.vmfb")  # as the dump wrote it
    again = given.in_folder(tmp_path / "given").measure(result, TimingPlan(rounds=2, round_seconds=0.02))
    assert isinstance(again, Measurement) and again.status == "ok" and again.baseline_us, again
    assert [path.name for path in (tmp_path / "given").iterdir()] == ["recommended"], "no second default compile"

    outcome = ModelOutcome(result, ConfigCheck([]), None, None)
    faster = Measurement(0, "ok", (80.0, 81.0, 79.0, 80.0, 82.0), (100.0,) * 5)
    kept = as_built_verdict(outcome, faster)
    assert kept.result is result and kept.as_built is faster and kept.recommends
    tied = as_built_verdict(outcome, Measurement(0, "ok", (99.0, 101.0, 100.0, 102.0, 98.0), (100.0,) * 5))
    assert tied.result is None and "with the model's weights" in tied.withdrawn and not tied.recommends
    refused = as_built_verdict(outcome, "the result: error: no such op")
    assert refused.result is None and "does not build into the model with its weights" in refused.refused


@pytest.mark.parametrize("target_name", ["host", "sm_90"])
def test_the_dumps_compile_writes_iree_default_build_byte_for_byte(target_name, context, tmp_path):
    """The dump's flags write files beside the module and change nothing in it, so the run's default build as the
    user builds it is the one the dump already wrote (sm_90: compiled only)."""
    import hashlib

    from mltune.input.tuning_input import dumped_build, prepare_input
    from mltune.targets import parse_target

    source = tmp_path / "mlp.mlir"
    source.write_text(mlp_source())
    prepared = prepare_input(source, parse_target(target_name), tmp_path / "run", context)
    default = Builder(prepared, tmp_path / "builds", 1).compile(-1, None, "default")
    assert default.status == "ok", default.detail
    digest = [hashlib.sha256(path.read_bytes()).hexdigest() for path in (default.vmfb, dumped_build(tmp_path / "run"))]
    assert digest[0] == digest[1]


@pytest.mark.slow  # 4 s: a timing worker's run of the split model
def test_the_timing_worker_runs_a_split_build_with_its_archive(mlp, tmp_path):
    inlined, split, made = mlp
    baseline = Builder(inlined, tmp_path, 1).compile(-1, None, "baseline")
    candidate = Builder(split, tmp_path, 1).compile(0, None, "split")
    plan = TimingPlan(rounds=1, round_seconds=0.02)
    (measured,) = Runner(split.invocation, "local-task", tmp_path).measure(baseline.vmfb, [(0, candidate.vmfb)], plan)
    assert measured.status == "ok" and len(measured.time_us) == 1 and measured.time_us[0] > 0
    (refused,) = Runner(inlined.invocation, "local-task", tmp_path).measure(baseline.vmfb, [(0, candidate.vmfb)], plan)
    assert refused.status == "run_error" and "io_parameters" in refused.detail


def test_a_model_below_the_threshold_is_left_as_it_is(mlp, tmp_path, monkeypatch):
    inlined, _, _ = mlp
    assert weights.without_weights(inlined, "cpu", tmp_path / "a") is inlined  # a small file: no compile at all
    monkeypatch.setattr(weights, "MIN_WEIGHT_BYTES", 0)
    assert weights.without_weights(inlined, "cuda", tmp_path / "b") is inlined  # candidates annotate the source
    monkeypatch.setattr(weights, "MIN_CONSTANT_BYTES", WEIGHT_LIMIT)
    # a file that large could hold enough weights, but its constants are half of it: found not worth a split
    monkeypatch.setattr(weights, "MIN_WEIGHT_BYTES", inlined.source.stat().st_size)
    assert weights.without_weights(inlined, "cpu", tmp_path / "c") is inlined
    assert json.loads((tmp_path / "c" / "split.json").read_text())["weight_bytes"] == 2 * 32 * 1024


def test_a_split_started_beside_the_dump_is_the_one_every_build_uses(mlp, context, tmp_path, monkeypatch):
    """`start_split` compiles the split while `prepare_input` compiles the dump; `without_weights` then takes that
    split as made (the same source and flags) and makes nothing again. A target whose candidates annotate the
    source, or a file too small to hold the weights, starts nothing."""
    from concurrent.futures import ThreadPoolExecutor

    from mltune.input.tuning_input import prepare_input
    from mltune.targets import CpuTarget, GpuTarget

    inlined, _, _ = mlp
    monkeypatch.setattr(weights, "MIN_CONSTANT_BYTES", WEIGHT_LIMIT)
    with ThreadPoolExecutor(max_workers=1) as pool:
        assert weights.start_split(inlined.source, CpuTarget(), (), context, tmp_path / "w", pool) is None  # small
        monkeypatch.setattr(weights, "MIN_WEIGHT_BYTES", 1)
        assert (
            weights.start_split(inlined.source, GpuTarget("cuda", "sm_90"), (), context, tmp_path / "w", pool) is None
        )
        started = weights.start_split(inlined.source, CpuTarget(), (), context, tmp_path / "w", pool)
        prepared = prepare_input(inlined.source, CpuTarget(), tmp_path, context)
        made = started.result()
    assert made is not None and made.seconds > 0 and made.weight_bytes == 2 * 32 * 1024
    stamp = made.module.stat().st_mtime_ns
    used = weights.without_weights(prepared, "cpu", tmp_path / "w")
    assert used.source == made.module and made.module.stat().st_mtime_ns == stamp  # taken as made, not made again
    assert used.invocation.parameters[-1] == made.archive


@pytest.mark.slow  # a whole tuning run through the command line
def test_tune_splits_once_and_gives_back_the_users_model(mlp, tmp_path, monkeypatch, capsys):
    """A whole `mltune tune`: its builds compile the split module, its numerics and timing run with the archive, and
    the command it prints compiles the file the user gave, with the user's flags alone."""
    from mltune.cli.command import main

    inlined, _, _ = mlp
    monkeypatch.setattr(weights, "MIN_WEIGHT_BYTES", 0)
    monkeypatch.setattr(weights, "MIN_CONSTANT_BYTES", WEIGHT_LIMIT)
    run_dir = tmp_path / "run"
    code = main(
        [
            "tune",
            str(inlined.source),
            "--budget",
            "4",
            "--run-dir",
            str(run_dir),
            "--dataset-dir",
            str(tmp_path / "datasets"),
            "-o",
            str(tmp_path / "spec.mlir"),
            "--jobs",
            "1",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out[-2000:]
    assert (run_dir / "weights" / "weights.irpa").is_file()
    for stderr in (run_dir / "candidates").rglob("compile_stderr.txt"):
        pytest.fail(stderr.read_text())
    summary = json.loads((run_dir / "summary.json").read_text())
    records = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert any(r["status"] == "ok" for r in records)
    command = run_dir / "compile_command.txt"
    if command.is_file():  # a result was kept: the user's file, without the split's flag
        text = command.read_text()
        assert str(inlined.source) in text and "compile-from" not in text and "mltune_weights" not in text
        # and it was timed as the user will build it, weights inlined, against IREE's default built so
        assert summary["as_built"]["low"] >= 1.0 and "with its weights" in out
        assert all((run_dir / "as_built" / name / "module.vmfb").is_file() for name in ("default", "recommended"))
        # the recommended build alone was not timed without the weights first: the timing as built decides
        assert summary["end_to_end"] is None and summary["baseline_us"] > 0
    elif summary["as_built"] is not None:  # withdrawn as built: the report says which timing withdrew it
        assert "with the model's weights" in summary["withdrawn"]


@pytest.mark.slow  # 2 s
def test_a_users_own_archive_is_kept_beside_the_split_one(tmp_path, context):
    """A model whose first weight is already a parameter of the user's archive (scope `model`, written with IREE's
    runtime API) and whose second is inlined: both archives are loaded, and the outputs match the unsplit build."""
    import iree.runtime as rt

    w1 = np.random.default_rng(1).uniform(-1, 1, (64, 128)).astype(np.float32)
    index = rt.ParameterIndex()
    index.add_buffer("w1", w1.tobytes())
    index.create_archive_file(str(tmp_path / "user.irpa"))
    lines = mlp_source().splitlines()
    lines = [line for line in lines if "%w1 = arith.constant" not in line]
    lines.insert(1, "  %w1 = util.global.load @w1 : tensor<64x128xf32>")
    source = tmp_path / "mixed.mlir"
    source.write_text(
        'util.global private @w1 = #flow.parameter.named<"model"::"w1"> : tensor<64x128xf32>\n'
        + "\n".join(lines)
        + "\n"
    )
    module = parse_module_file(source, context)
    main = next(op for op in module.body.operations if op.operation.name == "func.func")
    invocation = Invocation(
        "main",
        write_random_inputs(main, tmp_path / "inputs", seed=0),
        False,
        (ParameterArchive("model", tmp_path / "user.irpa"),),
    )
    inlined = TuningInput(source, invocation, (), tuple(CPU_FLAGS))
    made = weights.split(inlined.source, inlined.compile_flags, tmp_path / "weights", 0, WEIGHT_LIMIT)
    assert made is not None and made.weight_bytes == 32 * 1024, "only the inlined weight moves"
    split = weights.compiled_from(inlined, made)
    assert [a.scope for a in split.invocation.parameters] == ["model", "mltune_weights"]
    outputs = []
    for name, tuning_input in (("inlined", inlined), ("split", split)):
        build = Builder(tuning_input, tmp_path, 1).compile(0, None, name)
        assert build.status == "ok", build.detail
        outputs.append(run_outputs(build.vmfb, tuning_input.invocation, "local-task", tmp_path / name))
    assert all(np.array_equal(a, b) for a, b in zip(*outputs))
