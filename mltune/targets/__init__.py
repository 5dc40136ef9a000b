"""Targets: what a device can do, the flags that compile for it and the runtime device that runs it."""

from mltune.targets.cpu import CpuInfo, CpuTarget, parse_target

__all__ = ["CpuInfo", "CpuTarget", "parse_target"]
