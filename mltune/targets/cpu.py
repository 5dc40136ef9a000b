"""The llvm-cpu target: compile flags, and the facts the compiler resolved for this host."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from mltune.errors import UserError

GPU_TARGET_PREFIXES = ("gfx", "sm_", "mi3", "mi2", "rdna", "cdna")


@dataclass(frozen=True)
class CpuTarget:
    """An llvm-cpu target; `cpu` is passed to `--iree-llvmcpu-target-cpu` (`host` by default)."""

    cpu: str = "host"
    runtime_device: str = "local-task"

    def compile_flags(self) -> list[str]:
        return [
            "--iree-hal-target-device=local",
            "--iree-hal-local-target-device-backends=llvm-cpu",
            f"--iree-llvmcpu-target-cpu={self.cpu}",
        ]


@dataclass(frozen=True)
class CpuInfo:
    """What the compiler resolved: the CPU name (the dataset's arch), vector width, and cores to run on."""

    arch: str
    native_vector_bytes: int
    cores: int

    @staticmethod
    def from_executable_target(target_attr: str, cores: int | None = None) -> "CpuInfo":
        """Read `cpu` and `native_vector_size` from a printed `#hal.executable.target` attribute.

        The Python bindings expose no accessor for this attribute's configuration dictionary,
        so the two keys are looked up in its printed form.
        """
        cpu = re.search(r'\bcpu = "([^"]+)"', target_attr)
        vector = re.search(r"\bnative_vector_size = (\d+)", target_attr)
        if cpu is None or vector is None:
            raise UserError("the dispatch is not compiled for llvm-cpu (no cpu / native_vector_size in its target)")
        return CpuInfo(cpu.group(1), int(vector.group(1)), cores or len(os.sched_getaffinity(0)))


def parse_target(name: str) -> CpuTarget:
    """`host` or an LLVM CPU name; GPU names are recognised and refused with the reason."""
    if not name or not re.fullmatch(r"[A-Za-z0-9_.+-]+", name):
        raise UserError(f"invalid --target {name!r}: expected 'host' or an LLVM CPU name such as znver4")
    if name.lower().startswith(GPU_TARGET_PREFIXES):
        raise UserError(f"--target {name}: GPU targets are not supported yet; use the CPU ('host')")
    return CpuTarget(cpu=name)
