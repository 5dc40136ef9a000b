"""A GPU run's default build held against the user's file built for the host CPU (`mltune.model.host_reference`):
real llvm-cpu builds of the tiny matmul; where a wrong device is simulated, its outputs are labelled synthetic."""

from __future__ import annotations

import numpy as np
import pytest
from iree_helpers import compile_cpu, random_inputs

from mltune.input.model import Invocation
from mltune.model.host_reference import HostBuild, against_host, input_conversion_flags, verdict
from mltune.model.numerics import run_outputs


@pytest.fixture(scope="module")
def host_case(tiny, context, tmp_path_factory):
    """The tiny matmul's call and IREE's default build's outputs, computed here as a device would."""
    root = tmp_path_factory.mktemp("host_reference")
    invocation = random_inputs(tiny.source, context, root / "inputs")
    default = run_outputs(compile_cpu(tiny.source, root / "default.vmfb"), invocation, "local-task", root / "default")
    return HostBuild(tiny.source, invocation, ("--iree-input-demote-i64-to-i32", "--iree-opt-level=O3")), default, root


def test_a_default_build_that_computes_what_the_host_does_agrees(host_case):
    build, default, root = host_case
    line = against_host(build, default, root / "agrees")
    assert line.startswith("IREE's default build agrees with the same file built for llvm-cpu"), line


def test_a_default_build_far_from_the_host_is_reported(host_case):
    """Synthetic device outputs: the real outputs halved, an error RMS of half the outputs' (ResNet-50 f16's sm_90
    build was off by 0.90)."""
    build, default, root = host_case
    line = against_host(build, [o * np.float32(0.5) for o in default], root / "differs")
    assert "DIFFERS from the same file built for llvm-cpu" in line and "error RMS is 0.5 of" in line, line


def test_a_host_build_that_fails_is_said_in_one_line(tmp_path):
    broken = tmp_path / "broken.mlir"
    broken.write_text("func.func @main(\n")
    line = against_host(HostBuild(broken, Invocation("main", (), False), ()), [], tmp_path / "host")
    assert line.startswith("not held against the host: its llvm-cpu build failed"), line


def test_devices_may_differ_in_rounding_but_not_in_values():
    """Synthetic: 1 % noise on f16 outputs agrees (accumulation order, fused operations); integers must match."""
    rng = np.random.default_rng(0)
    host = rng.normal(size=(4, 256)).astype(np.float16)
    noisy = (host * (1 + rng.normal(scale=0.01, size=host.shape))).astype(np.float16)
    assert verdict([host], [noisy]).startswith("IREE's default build agrees")
    assert "DIFFERS" in verdict([np.arange(8, dtype=np.int32)], [np.arange(8, dtype=np.int32)[::-1].copy()])
    assert "other outputs" in verdict([host], [host[:2]])


def test_only_the_input_conversion_flags_reach_the_host_build():
    assert input_conversion_flags(["--iree-input-type=onnx", "--iree-cuda-target=sm_80", "--iree-opt-level=O3"]) == [
        "--iree-input-type=onnx"]
