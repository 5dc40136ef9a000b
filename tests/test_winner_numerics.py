"""Every kept config is checked numerically: per-element tolerance with a shift test; a model winner against IREE's
default build, a dispatch winner through its one-op model; a wrong winner is dropped and recorded as `wrong_result`."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from iree_helpers import HOST_FLAGS, compile_cpu, matmul_source, random_inputs, run, strip_config
from test_model_numerics import ALTERED
from test_spec import spec_for

from mltune.errors import UserError
from mltune.execution.build import BuildResult
from mltune.execution.devices import check_device
from mltune.execution.measurement import Measurement
from mltune.input.tuning_input import Invocation, TuningInput
from mltune.search.results import DispatchResult, Trial
from mltune.spaces.cpu_contraction import CpuContraction
from mltune.system.tools import tool_path
from mltune.targets import CpuTarget, parse_target
from mltune.whole_model import winner_numerics
from mltune.whole_model.numerics import compare
from mltune.whole_model.winner_numerics import WinnerCheck, one_op_shape

KNOBS = {"wg_m": 16, "wg_n": 16, "vec_m": 4, "vec_n": 16, "vec_k": 8}
RECORD_FIELDS = {"arch": "test", "device": "local-task", "target": None, "run_id": "r", "level": "model"}


def test_a_systematic_shift_is_refused_where_the_largest_value_hid_it():
    """Synthetic: a 256x256 f32 matmul of positive values (outputs ~ 64), re-accumulated in another order, passes; the
    same outputs + 1e-3 on every element (1.6e-5 of each: within the per-element tolerance, and the old max-relative
    one let it through) do not."""
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0, 1, (256, 256)).astype(np.float32), rng.uniform(0, 1, (256, 256)).astype(np.float32)
    reference = a @ b
    reordered = sum(a[:, i::4] @ b[i::4, :] for i in range(4)).astype(np.float32)  # another summation order
    assert compare([reference], [reordered]).ok
    shifted = compare([reference], [reference + np.float32(1e-3)])
    assert not shifted.ok and "shifted" in shifted.detail
    one_element = reference.copy()
    one_element[3, 7] += 0.05
    wrong = compare([reference], [one_element])
    assert not wrong.ok and "1 of 65536 elements" in wrong.detail


def _winner(dumped, context, vmfb) -> DispatchResult:
    info = CpuContraction(dumped.problem, dumped.cpu, context).compilation_info(KNOBS)
    trial = Trial(0, 0, KNOBS, BuildResult(0, "ok", vmfb), Measurement(0, "ok", (1.0,) * 3, (2.0,) * 3), info)
    result = DispatchResult("dispatch_0", dumped.problem, 100, [trial])
    result.winner = (trial, trial.measurement)
    return result


@pytest.fixture(scope="module")
def model_check(tiny, context, tmp_path_factory):
    root = tmp_path_factory.mktemp("winner_numerics")
    invocation = random_inputs(tiny.source, context, root / "inputs")
    (root / "altered.mlir").write_text(ALTERED)
    tuning_input = TuningInput(tiny.source, invocation, (), tuple(HOST_FLAGS))
    check = WinnerCheck(
        tuning_input, compile_cpu(tiny.source, root / "default.vmfb"), "local-task", CpuTarget(), context, root, jobs=1
    )
    check.start()
    return check, root


def test_a_model_winner_that_shifts_every_element_is_refused_and_recorded(model_check, tiny, context):
    check, root = model_check
    result = _winner(tiny, context, compile_cpu(root / "altered.mlir", root / "altered.vmfb"))
    (record,) = check.verify(result, tiny.cpu, lambda knobs: "DoubleTilingExpert", "heuristic", RECORD_FIELDS)
    assert result.winner is None
    assert record.status == "wrong_result" and record.knobs == KNOBS
    assert "winner refused" in check.verdicts["dispatch_0"] and "(float32)" in check.verdicts["dispatch_0"]


def test_a_winner_whose_build_is_not_at_hand_is_not_called_wrong(model_check, tiny, context):
    """A winner measured by an earlier run, whose build this run does not have: not emitted, said as unchecked (an
    internal limit, not a numerics verdict), and no `wrong_result` record is written about it."""
    check, root = model_check
    result = _winner(tiny, context, None)
    assert check.verify(result, tiny.cpu, lambda knobs: "DoubleTilingExpert", "heuristic", RECORD_FIELDS) == []
    assert result.winner is None
    verdict = check.verdicts["dispatch_0"]
    assert verdict.startswith("winner not emitted, its numerics could not be checked") and "different" not in verdict


def test_a_refused_winner_gives_its_place_to_the_next_finalist_that_computes_right(model_check, tiny, context):
    """The fastest finalist computes a shifted output (an altered model), the second is a retiling: the second wins,
    and only the first is recorded wrong; a third, slower than the baseline, is never checked."""
    check, root = model_check
    wrong = _winner(tiny, context, compile_cpu(root / "altered.mlir", root / "altered.vmfb"))
    (root / "spec.mlir").write_text(spec_for(tiny, KNOBS, context))
    right = _winner(tiny, context, compile_cpu(tiny.source, root / "retiled.vmfb", root / "spec.mlir"))
    second = replace(right.trials[0], index=1, position=1)
    slower = replace(second, index=2, position=2, measurement=Measurement(2, "ok", (2.0,) * 3, (1.0,) * 3))
    wrong.finals = [wrong.winner, (second, second.measurement), (slower, slower.measurement)]
    records = check.verify(wrong, tiny.cpu, lambda knobs: "DoubleTilingExpert", "heuristic", RECORD_FIELDS)
    assert [r.position for r in records] == [0] and records[0].status == "wrong_result"
    assert wrong.winner is not None and wrong.winner[0] is second
    assert (
        check.verdicts["dispatch_0"].startswith("numerics checked")
        and "1 faster finalist" in check.verdicts["dispatch_0"]
    )


def test_a_model_winner_that_only_retiles_passes(model_check, tiny, context):
    check, root = model_check
    (root / "spec.mlir").write_text(spec_for(tiny, KNOBS, context))
    result = _winner(tiny, context, compile_cpu(tiny.source, root / "retiled.vmfb", root / "spec.mlir"))
    assert check.verify(result, tiny.cpu, lambda knobs: "DoubleTilingExpert", "heuristic", RECORD_FIELDS) == []
    assert result.winner is not None and check.verdicts["dispatch_0"].startswith("numerics checked")


def _dispatch_check(dumped, context, root, target=CpuTarget(), device="local-task") -> WinnerCheck:
    stripped = strip_config(dumped.bench, root / "stripped.mlir")
    tuning_input = TuningInput(stripped, Invocation("main", (), True), (dumped.bench,), ())
    check = WinnerCheck(tuning_input, root / "unused.vmfb", device, target, context, root, jobs=1)
    check.start()
    return check


def test_a_dispatch_winner_is_checked_on_its_one_op_model(tiny, context, tmp_path):
    assert one_op_shape(tiny.problem) is not None
    check = _dispatch_check(tiny, context, tmp_path)
    result = _winner(tiny, context, tmp_path / "never_run.vmfb")
    assert check.verify(result, tiny.cpu, lambda knobs: "DoubleTilingExpert", "heuristic", RECORD_FIELDS) == []
    assert check.verdicts["dispatch_0"] == "numerics checked: outputs agree element by element within the tolerance"


def test_an_injected_wrong_dispatch_result_is_refused(tiny, context, tmp_path, monkeypatch):
    """The tuned one-op model's outputs are shifted by 1e-3 on their way to the comparison (injected)."""
    real = winner_numerics.run_outputs

    def shifted(vmfb, invocation, device, out):
        outputs = real(vmfb, invocation, device, out)
        return [o + o.dtype.type(1e-3) for o in outputs] if "tuned" in str(out) else outputs

    monkeypatch.setattr(winner_numerics, "run_outputs", shifted)
    check = _dispatch_check(tiny, context, tmp_path)
    result = _winner(tiny, context, tmp_path / "never_run.vmfb")
    (record,) = check.verify(result, tiny.cpu, lambda knobs: "DoubleTilingExpert", "heuristic", RECORD_FIELDS)
    assert record.status == "wrong_result" and result.winner is None
    assert "winner refused" in check.verdicts["dispatch_0"]


def test_a_problem_without_a_one_op_model_is_reported_not_checked(dumps, context, tmp_path):
    """The transposed-LHS matmul has no one-op model: its winner is kept, and the report says it was not checked."""
    dumped = dumps["matmul_tn"]
    assert one_op_shape(dumped.problem) is None
    check = _dispatch_check(dumped, context, tmp_path)
    trial = Trial(0, 0, {}, BuildResult(0, "ok", None), Measurement(0, "ok", (1.0,), (2.0,)), "")
    result = DispatchResult("dispatch_0", dumped.problem, 1, [trial], winner=(trial, trial.measurement))
    assert check.verify(result, dumped.cpu, lambda knobs: "", "heuristic", RECORD_FIELDS) == []
    assert result.winner is not None and "not checked: no one-op model" in check.verdicts["dispatch_0"]


@pytest.mark.parametrize("device,target", [("hip://0", "gfx942"), ("cuda://0", "sm_90")])
def test_gpu_numerics_run_on_the_device(device, target, context, tmp_path):
    """On a GPU the reference is IREE's default build on that device; runs only where the device exists."""
    try:
        check_device(device)
    except UserError as err:
        pytest.skip(f"no GPU device here: {err}")
    (tmp_path / "mm.mlir").write_text(matmul_source(64, 128, 64, "f16", "f32"))
    gpu = parse_target(target)
    flags = gpu.compile_flags()
    source = gpu.prepare_source(tmp_path / "mm.mlir", tmp_path, context)
    inputs = random_inputs(tmp_path / "mm.mlir", context, tmp_path / "inputs").inputs
    default = tmp_path / "default.vmfb"
    assert run([tool_path("iree-compile"), str(source), *flags, "-o", str(default)]).returncode == 0
    check = WinnerCheck(
        TuningInput(source, Invocation("main", inputs, False), (), tuple(flags)),
        default,
        device,
        gpu,
        context,
        tmp_path,
        jobs=1,
    )
    check.start()  # IREE's default build ran on the GPU: it is the reference for every winner
