"""The llvm-cpu target: compile flags, and the facts the compiler resolved for this host."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from mltune.errors import UserError
from mltune.targets.cpu_table import cpu_core_facts

_CORE_FIELDS = ("l1d_bytes", "l2_bytes", "l3_bytes", "vector_registers", "fma_units", "fma_latency")


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
    """What the compiler resolved (the CPU name, the dataset's arch, and vector width), the cores to run on, and
    per-core resources from `mltune.targets.cpu_table` (filled from the name when not given: 0 means unknown)."""

    arch: str
    native_vector_bytes: int
    cores: int
    l1d_bytes: int = 0
    l2_bytes: int = 0
    l3_bytes: int = 0
    vector_registers: int = 0
    fma_units: int = 0
    fma_latency: int = 0
    kind = "cpu"

    def __post_init__(self) -> None:
        table, _ = cpu_core_facts(self.arch, self.native_vector_bytes)
        for name in _CORE_FIELDS:
            if not getattr(self, name):
                object.__setattr__(self, name, getattr(table, name))

    @property
    def peak_flops_per_cycle(self) -> int:
        """Per-core f32 peak: FMA units x f32 lanes x 2 flops."""
        return self.fma_units * (self.native_vector_bytes // 4) * 2

    def describe(self) -> str:
        return (
            f"{self.native_vector_bytes}-byte vectors, {self.cores} cores, {self.vector_registers} vector registers, "
            f"{self.fma_units} FMA x {self.fma_latency} cycles, L1D {self.l1d_bytes // 1024} KiB, "
            f"L2 {self.l2_bytes // 1024} KiB, L3 {self.l3_bytes // 1024} KiB per core"
        )

    @staticmethod
    def from_dict(data: dict[str, Any]) -> "CpuInfo":
        """The facts from their stored form (`dataclasses.asdict`); records that carry only the name, vector width
        and cores get the rest from the table."""
        return CpuInfo(
            str(data["arch"]),
            int(data["native_vector_bytes"]),
            int(data["cores"]),
            **{name: int(data.get(name) or 0) for name in _CORE_FIELDS},
        )

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
