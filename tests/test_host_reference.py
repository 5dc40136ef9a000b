"""A GPU run's default build held against the user's file built for the host CPU (`mltune.whole_model.host_reference`):
real llvm-cpu builds of the tiny matmul; where a wrong device is simulated, its outputs are labelled synthetic."""

from __future__ import annotations

import numpy as np
import pytest
from iree_helpers import compile_cpu, random_inputs

from mltune.input.tuning_input import Invocation
from mltune.whole_model.host_reference import HostBuild, against_host, host_check, input_conversion_flags
from mltune.whole_model.numerics import run_outputs


@pytest.fixture(scope="module")
def host_case(tiny, context, tmp_path_factory):
    """The tiny matmul's call and IREE's default build's outputs, computed here as a device would."""
    root = tmp_path_factory.mktemp("host_reference")
    invocation = random_inputs(tiny.source, context, root / "inputs")
    default = run_outputs(compile_cpu(tiny.source, root / "default.vmfb"), invocation, "local-task", root / "default")
    return HostBuild(tiny.source, invocation, ("--iree-input-demote-i64-to-i32", "--iree-opt-level=O3")), default, root


def test_a_default_build_that_computes_what_the_host_does_agrees(host_case):
    build, default, root = host_case
    check = against_host(build, default, root / "agrees")
    assert check.line.startswith("IREE's default build agrees with the same file built for llvm-cpu"), check.line
    assert not check.default_is_wrong and check.judge(default, default).ok


def test_a_default_build_far_from_the_host_is_reported(host_case):
    """Synthetic device outputs: the real outputs halved, an error RMS of half the outputs' (ResNet-50 f16's sm_90
    build was off by 0.90)."""
    build, default, root = host_case
    check = against_host(build, [o * np.float32(0.5) for o in default], root / "differs")
    assert "DIFFERS from the same file built for llvm-cpu" in check.line and "error RMS is 0.5 of" in check.line
    assert check.default_is_wrong


def test_a_host_build_that_fails_is_said_in_one_line(tmp_path):
    broken = tmp_path / "broken.mlir"
    broken.write_text("func.func @main(\n")
    check = against_host(HostBuild(broken, Invocation("main", (), False), ()), [], tmp_path / "host")
    assert check.line.startswith("not held against the host: its llvm-cpu build failed"), check.line
    assert not check.default_is_wrong and check.judge([np.ones(3)], [np.ones(3)]).ok


def test_devices_may_differ_in_rounding_but_not_in_values():
    """Synthetic: 1 % noise on f16 outputs agrees (accumulation order, fused operations); integers must match."""
    rng = np.random.default_rng(0)
    host = rng.normal(size=(4, 256)).astype(np.float16)
    noisy = (host * (1 + rng.normal(scale=0.01, size=host.shape))).astype(np.float16)
    assert host_check([host], [noisy]).line.startswith("IREE's default build agrees")
    ints = np.arange(8, dtype=np.int32)
    assert "DIFFERS" in host_check([ints], [ints[::-1].copy()]).line
    assert "other outputs" in host_check([host], [host[:2]]).line
    assert not host_check([ints], [ints[::-1].copy()]).default_is_wrong  # no measure to judge other builds by


def test_where_the_default_is_wrong_a_build_is_judged_by_its_distance_from_the_host():
    """Synthetic: the host computes H, IREE's default H / 2. A build computing H (a config that builds the broken
    dispatch right) is kept although it differs from the default; one computing -H is refused."""
    rng = np.random.default_rng(1)
    host = rng.normal(size=(64, 64)).astype(np.float32)
    check = host_check([host], [host / 2])
    assert check.default_is_wrong
    right, worse = check.judge([host / 2], [host]), check.judge([host / 2], [-host])
    assert right.ok and "no further: it agrees with the host" in right.detail, right.detail
    assert not worse.ok and "further" in worse.detail, worse.detail
    less_wrong = check.judge([host / 2], [host * 0.75])  # one of two broken dispatches built right: kept, and told
    assert less_wrong.ok and "no further: its outputs are wrong too" in less_wrong.detail, less_wrong.detail


def test_only_the_input_conversion_flags_reach_the_host_build():
    assert input_conversion_flags(["--iree-input-type=onnx", "--iree-cuda-target=sm_80", "--iree-opt-level=O3"]) == [
        "--iree-input-type=onnx"
    ]


@pytest.mark.slow  # 5 s: real builds, outputs and the host's build compared
def test_a_winner_that_builds_right_what_the_default_builds_wrong_is_kept(tiny, context, tmp_path):
    """Real builds on the CPU standing in for a GPU: IREE's default is a build whose output is halved (a wrongly
    built dispatch); the winner is the tiny matmul retiled, which computes right. Against the default alone it is
    refused; held against the host first, it is kept."""
    from test_model_numerics import ALTERED
    from test_spec import spec_for
    from test_winner_numerics import KNOBS, RECORD_FIELDS, _winner

    from mltune.input.tuning_input import TuningInput
    from mltune.whole_model.winner_numerics import WinnerCheck
    from mltune.targets import CpuTarget

    halved = tmp_path / "halved.mlir"
    halved.write_text(
        ALTERED.replace("arith.constant 1.0e-3 : f32", "arith.constant 0.5 : f32").replace(
            "arith.addf %a, %c : f32", "arith.mulf %a, %c : f32"
        )
    )
    (tmp_path / "spec.mlir").write_text(spec_for(tiny, KNOBS, context))
    right = compile_cpu(tiny.source, tmp_path / "retiled.vmfb", tmp_path / "spec.mlir")
    invocation = random_inputs(tiny.source, context, tmp_path / "inputs")
    default, verdicts = compile_cpu(halved, tmp_path / "halved.vmfb"), {}
    for host in (None, HostBuild(tiny.source, invocation, ())):
        (tmp_path / str(host is None)).mkdir()
        check = WinnerCheck(
            TuningInput(tiny.source, invocation, (), ()),
            default,
            "local-task",
            CpuTarget(),
            context,
            tmp_path / str(host is None),
            jobs=1,
        )
        check.start(host)
        result = _winner(tiny, context, right)
        refused = check.verify(result, tiny.cpu, lambda knobs: "DoubleTilingExpert", "heuristic", RECORD_FIELDS)
        verdicts[host is None] = (len(refused), result.winner is not None, check.verdicts["dispatch_0"])
    assert verdicts[True][:2] == (1, False), verdicts[True]
    assert verdicts[False][:2] == (0, True) and "no further" in verdicts[False][2], verdicts[False]
