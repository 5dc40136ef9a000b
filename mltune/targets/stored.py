"""Target facts in dataset records: stored as plain data with each record, read back, or rebuilt for old records.

Features depend on the target's facts (CPU vector width and cores; GPU CUs/SMs, SIMDs, shared memory,
MMA intrinsics), so a record carries the facts it was tuned with (`Record.target`, schema 2) and
training computes the columns the ranker computed at tune time. Schema 1 records name only the arch:
their facts are rebuilt from it (by the compiler for a GPU arch, from `mltune.targets.cpu_table` for a
CPU), with the core count taken from the record's device id.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, replace
from typing import Any

from mltune.targets.base import TargetFacts, compiler_facts
from mltune.targets.cpu import CpuInfo
from mltune.targets.cpu_table import cpu_core_facts
from mltune.targets.gpu import GpuInfo, gpu_target

STORED = "stored in the records"


@dataclass(frozen=True)
class ResolvedFacts:
    """A record's target facts and where they came from (`train` prints it)."""

    facts: TargetFacts
    origin: str


def facts_to_record(facts: TargetFacts) -> dict[str, Any]:
    """The facts as plain JSON data: their kind (cpu, rocm, cuda) and their fields."""
    return {"kind": facts.kind, **asdict(facts)}


def facts_from_record(data: Any) -> TargetFacts:
    """The facts object of a record's `target`; malformed data raises ValueError, TypeError or KeyError."""
    if not isinstance(data, dict):
        raise ValueError(f"a record's target is not an object: {data!r}")
    fields = {name: value for name, value in data.items() if name != "kind"}
    if data.get("kind") == "cpu":
        return CpuInfo.from_dict(fields)
    if data.get("kind") in ("rocm", "cuda"):
        return GpuInfo.from_dict(fields)
    raise ValueError(f"a record's target has unknown kind {data.get('kind')!r}")


def _device_cores(device: str) -> int | None:
    """The cores (CPU) or CUs/SMs (GPU) a device id names (`.../132cores`)."""
    found = re.search(r"/(\d+)cores$", device)
    return int(found.group(1)) if found else None


def rebuilt_facts(arch: str, device: str) -> ResolvedFacts:
    """The facts of a record without `target`, from its arch and device id."""
    cores = _device_cores(device)
    gpu = gpu_target(arch)
    if gpu is not None:
        facts = compiler_facts(gpu)
        # a plain arch (gfx942, sm_80) names no chip: the device id kept the CU/SM count the tuner used
        return ResolvedFacts(
            replace(facts, cu_count=facts.cu_count or cores or 0), "rebuilt from the arch name by the compiler"
        )
    table, known = cpu_core_facts(arch)
    origin = (
        "rebuilt from the arch name (CPU table)"
        if known
        else f"rebuilt from the arch name, which the CPU table lacks: a typical core of {table.native_vector_bytes}-byte "
        "vectors assumed"
    )
    return ResolvedFacts(CpuInfo(arch, table.native_vector_bytes, cores or len(os.sched_getaffinity(0))), origin)


def record_facts(record: dict[str, Any]) -> ResolvedFacts:
    """A record's facts: stored ones when it carries them, else rebuilt from its arch and device."""
    if record.get("target") is not None:
        return ResolvedFacts(facts_from_record(record["target"]), STORED)
    return rebuilt_facts(record["arch"], record.get("device", ""))
