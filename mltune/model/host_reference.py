"""IREE's default GPU build held against the same model built for the host CPU.

mltune's numerics check compares every config with IREE's default build on the tuning device. A default build that is
itself wrong goes unseen there, and every speedup of the run then compares wrong builds: IREE 3.13's sm_90 build of
ResNet-50 in f16 is one (docs/evaluation/sm_90/f16_scale). So a GPU run of a model builds the user's file once for
llvm-cpu and runs it on the same arguments. The verdict is reported, never used to refuse: the host's build can be the
wrong one too. Float outputs agree when the error's RMS stays within `FACTOR` times the element type's tolerance of
the host outputs' RMS: devices differ in accumulation order and fused operations, so the per-element rule of a config
check would flag legitimate differences over a deep network.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from mltune.input.model import Invocation
from mltune.model.numerics import TOLERANCE, compare, run_outputs
from mltune.system.tools import run_tool, tool_path
from mltune.targets import CpuTarget

FACTOR = 5  # f16: an error RMS of 5 % of the outputs' (ResNet-50's wrong sm_90 build: 90 %)
COMPILE_TIMEOUT_S = 1800  # a large model on few cores


@dataclass(frozen=True)
class HostBuild:
    """The user's file as given, how it is called (with the user's own weights), and the user's compile flags."""

    source: Path
    invocation: Invocation
    compile_flags: tuple[str, ...]


def input_conversion_flags(compile_flags: Sequence[str]) -> list[str]:
    """The user's flags that act before dispatches exist (`--iree-input-*`, e.g. an ONNX import's): the host build
    needs them; the others are the GPU target's."""
    return [flag for flag in compile_flags if flag.startswith("--iree-input-")]


def _relative_error(host: np.ndarray, device: np.ndarray) -> float:
    ref, got = host.astype(np.float64), device.astype(np.float64)
    scale = float(np.sqrt(np.mean(ref ** 2))) or 1.0
    return float(np.sqrt(np.mean((got - ref) ** 2))) / scale


def verdict(host: Sequence[np.ndarray], device: Sequence[np.ndarray]) -> str:
    """One line: whether IREE's default build on the device computes what the host's computes."""
    if len(host) != len(device) or any(h.shape != d.shape for h, d in zip(host, device)):
        return f"IREE's default build returns other outputs than the host's build ({len(device)} against {len(host)})"
    errors = []
    for i, (h, d) in enumerate(zip(host, device)):
        if d.dtype.name not in TOLERANCE:  # integers and booleans: exactly, as a config check
            exact = compare([h.astype(d.dtype)], [d])
            if not exact.ok:
                return f"IREE's default build DIFFERS from the host's: {exact.detail}"
            continue
        error, limit = _relative_error(h, d), FACTOR * TOLERANCE[d.dtype.name]
        errors.append(error)
        if error > limit:
            return (f"IREE's default build DIFFERS from the same file built for llvm-cpu: output {i}'s error RMS is "
                    f"{error:.2g} of the host outputs' RMS (agreement: within {limit:.2g}); every speedup here compares "
                    "builds whose outputs are not the host's")
    largest = f" (error RMS at most {max(errors):.1e} of the outputs')" if errors else ""
    return f"IREE's default build agrees with the same file built for llvm-cpu{largest}"


def against_host(build: HostBuild, device_outputs: Sequence[np.ndarray], work_dir: Path) -> str:
    """Build the user's file for the host CPU, run it on the same arguments and compare with IREE's default build's
    outputs on the device; a host build that fails says why instead."""
    work_dir.mkdir(parents=True, exist_ok=True)
    host = CpuTarget()
    vmfb = work_dir / "host.vmfb"
    built = run_tool([tool_path("iree-compile"), str(build.source), *host.compile_flags(),
                      *input_conversion_flags(build.compile_flags), "-o", str(vmfb)], timeout_s=COMPILE_TIMEOUT_S)
    if not built.ok:
        return f"not held against the host: its llvm-cpu build failed ({built.describe_failure()[:200]})"
    try:
        outputs = run_outputs(vmfb, build.invocation, host.runtime_device, work_dir / "outputs_host")
    except RuntimeError as err:
        return f"not held against the host: its llvm-cpu build did not run ({err})"
    return verdict(outputs, device_outputs)
