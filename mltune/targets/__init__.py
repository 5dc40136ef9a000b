"""Targets: what a device can do, the flags that compile for it and the runtime device that runs it.

`Target` is what the tuner needs from any target; `TargetFacts` is what the compiler resolved
for it (read from a dumped dispatch), used by spaces, features and rankers.
"""

from mltune.targets.base import Target, TargetFacts, facts_from_executable_target, parse_target
from mltune.targets.cpu import CpuInfo, CpuTarget
from mltune.targets.gpu import GpuInfo, GpuTarget, MmaShape

__all__ = [
    "CpuInfo",
    "CpuTarget",
    "GpuInfo",
    "GpuTarget",
    "MmaShape",
    "Target",
    "TargetFacts",
    "facts_from_executable_target",
    "parse_target",
]
