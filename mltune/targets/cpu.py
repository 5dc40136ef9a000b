"""The llvm-cpu target: compile flags, and the facts the compiler resolved for this host."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from mltune.errors import UserError


@dataclass(frozen=True)
class CpuTarget:
    """An llvm-cpu target; `cpu` is passed to `--iree-llvmcpu-target-cpu` (`host` by default)."""

    cpu: str = "host"
    runtime_device: str = "local-task"
    kind: ClassVar[str] = "cpu"

    @property
    def name(self) -> str:
        return self.cpu

    def prepare_source(self, source: Path, work_dir: Path, context: object) -> Path:
        """The model compiles as it is: the target comes from the flags."""
        return source

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
    kind = "cpu"

    def describe(self) -> str:
        return f"{self.native_vector_bytes}-byte vectors, {self.cores} cores"

    @staticmethod
    def from_dict(data: dict[str, Any]) -> "CpuInfo":
        """The facts from their stored form (`dataclasses.asdict`)."""
        return CpuInfo(str(data["arch"]), int(data["native_vector_bytes"]), int(data["cores"]))

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

