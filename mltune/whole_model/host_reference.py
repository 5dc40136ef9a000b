"""IREE's default GPU build held against the same model built for the host CPU.

mltune's numerics check compares every config with IREE's default build on the tuning device. A default build that is
itself wrong goes unseen there, and every speedup of the run then compares wrong builds: IREE 3.13 builds two of
ResNet-50's strided f16 projections wrong on CUDA (docs/evaluation/sm_90/f16_scale/README.md). So a GPU run of a model
builds the user's file once for llvm-cpu and runs it on the same arguments. Float outputs agree when the error's RMS
stays within `FACTOR` times the element type's tolerance of the host outputs' RMS: devices differ in accumulation order
and fused operations, so the per-element rule of a config check would flag legitimate differences over a deep network.
Where the default does not agree, a tuned build is judged by its distance from the host's outputs instead
(`HostCheck.judge`): it may be no further than the default, so a config that builds a wrongly built dispatch right is
kept, and one that breaks something more is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from mltune.execution.build import Builder
from mltune.input.tuning_input import Invocation, TuningInput
from mltune.whole_model.numerics import TOLERANCE, Comparison, compare, run_outputs
from mltune.targets import CpuTarget

FACTOR = 5  # f16: an error RMS of 5 % of the outputs', far below a wrong build's (`docs/evaluation/sm_90/f16_scale/`)
SLACK = 0.2  # agreement limits a build may lie further from the host than a wrong default: rounding, not errors
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


def relative_error(host: np.ndarray, device: np.ndarray) -> float:
    """The error's RMS over the host outputs' RMS."""
    ref, got = host.astype(np.float64), device.astype(np.float64)
    scale = float(np.sqrt(np.mean(ref**2))) or 1.0
    return float(np.sqrt(np.mean((got - ref) ** 2))) / scale


def distance(host: Sequence[np.ndarray], device: Sequence[np.ndarray]) -> tuple[float, str]:
    """How far `device`'s outputs are from the host's, in agreement limits (the furthest float output's error RMS
    over `FACTOR` times its type's tolerance; at most 1: they agree), and what that is in words; infinite where
    they cannot be compared (other shapes, or integers that differ)."""
    if len(host) != len(device) or any(h.shape != d.shape for h, d in zip(host, device)):
        return float("inf"), f"other outputs than the host's build ({len(device)} against {len(host)})"
    furthest, words = 0.0, "no float output"
    for i, (h, d) in enumerate(zip(host, device)):
        if d.dtype.name not in TOLERANCE:  # integers and booleans: exactly, as a config check
            exact = compare([h.astype(d.dtype)], [d])
            if not exact.ok:
                return float("inf"), exact.detail
            continue
        error, limit = relative_error(h, d), FACTOR * TOLERANCE[d.dtype.name]
        if error / limit >= furthest:
            furthest = error / limit
            words = f"output {i}'s error RMS is {error:.2g} of the host outputs' (agreement: {limit:.2g})"
    return furthest, words


@dataclass(frozen=True)
class HostCheck:
    """IREE's default build against the host's: the line the report prints, the host's outputs, and how far the
    default's are from them (None: not compared)."""

    line: str
    outputs: tuple[np.ndarray, ...] = ()
    default_distance: float | None = None

    @property
    def default_is_wrong(self) -> bool:
        """IREE's default build computes something else than the host, measurably (a mismatch of integers or shapes
        leaves no measure to judge others by)."""
        return self.default_distance is not None and 1 < self.default_distance < float("inf")

    def judge(self, default: Sequence[np.ndarray], tuned: Sequence[np.ndarray]) -> Comparison:
        """The numerics rule: a tuned build computes what IREE's default computes, or, where the default is wrong
        against the host, no further from the host's outputs than the default (`SLACK` for rounding): a config that
        computes a wrongly built dispatch right must not be refused for differing from it. On a default 90 % wrong,
        that lets through no error beyond about 13 % of the outputs' RMS."""
        if not self.default_is_wrong:
            return compare(default, tuned)
        assert self.default_distance is not None
        far, words = distance(self.outputs, tuned)
        verdict = "no further" if far <= self.default_distance + SLACK else "further"
        state = "it agrees with the host" if far <= 1 else "its outputs are wrong too"
        return Comparison(
            far <= self.default_distance + SLACK,
            f"IREE's default build is wrong here ({self.default_distance:.1f} agreement limits from the "
            f"host's outputs); this build is {far:.1f}, {verdict}: {state} ({words})",
        )


def host_check(host: Sequence[np.ndarray], device: Sequence[np.ndarray]) -> HostCheck:
    """Whether IREE's default build on the device computes what the host's computes, with the host's outputs."""
    far, words = distance(host, device)
    if far <= 1:
        return HostCheck(
            f"IREE's default build agrees with the same file built for llvm-cpu ({words})", tuple(host), far
        )
    return HostCheck(
        f"IREE's default build DIFFERS from the same file built for llvm-cpu: {words}; the tuned builds "
        "are judged by how far they are from the host's outputs",
        tuple(host),
        far,
    )


def against_host(build: HostBuild, device_outputs: Sequence[np.ndarray], work_dir: Path) -> HostCheck:
    """Build the user's file for the host CPU, run it on the same arguments and compare with IREE's default build's
    outputs on the device; a host build that fails says why instead."""
    host = CpuTarget()
    flags = (*host.compile_flags(), *input_conversion_flags(build.compile_flags))
    built = Builder(
        TuningInput(build.source, build.invocation, (), flags), work_dir, jobs=1, timeout_s=COMPILE_TIMEOUT_S
    ).compile(0, None, "host")
    if built.status != "ok" or built.vmfb is None:
        return HostCheck(f"not held against the host: its llvm-cpu build failed ({built.detail[:200]})")
    try:
        outputs = run_outputs(built.vmfb, build.invocation, host.runtime_device, work_dir / "outputs_host")
    except RuntimeError as err:
        return HostCheck(f"not held against the host: its llvm-cpu build did not run ({err})")
    return host_check(outputs, device_outputs)
