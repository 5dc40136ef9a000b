"""Each op kind end to end, found in one place: its space, features and heuristic on llvm-cpu and on GPUs.

The pieces stay in the layers that use them (the spaces' tables in `mltune.spaces.configure`, the features'
`EXTRACTORS`, the heuristics' `CPU_ORDERS` and `ORDERS`); `op_kinds()` reads those tables into one entry per kind, so
that a maintainer finds a kind's code from its name, a test sees that no kind misses a piece, and the architecture
page's table is generated from it.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from mltune.features import EXTRACTORS
from mltune.rankers.gpu_heuristic import ORDERS
from mltune.rankers.heuristic import CPU_ORDERS
from mltune.spaces.configure import CPU_SPACES, CUDA_SPACES, GPU_SPACES, GPU_SPACES_WITHOUT_MMA

Piece = Callable[..., Any] | None  # a space's class, a feature extractor or a heuristic's order; None: none


@dataclass(frozen=True)
class OpKind:
    """One op kind's pieces; where a target family has no space, the kind is untunable there."""

    name: str
    cpu_space: Piece
    gpu_space: Piece
    gpu_space_without_mma: Piece  # where the target has no MMA intrinsic for the operand types (scalar FMAs)
    cuda_space: Piece  # where CUDA takes a space of its own
    cpu_features: Piece
    gpu_features: Piece
    cpu_heuristic: Piece
    gpu_heuristic: Piece

    def missing(self) -> list[str]:
        """The pieces a family with a space lacks (a space that nothing could rank or learn from)."""
        families = {
            "llvm-cpu": (self.cpu_space, self.cpu_features, self.cpu_heuristic),
            "GPU": (self.gpu_space, self.gpu_features, self.gpu_heuristic),
        }
        return [
            f"{family} {piece}"
            for family, (space, features, heuristic) in families.items()
            if space is not None
            for piece, value in (("features", features), ("heuristic", heuristic))
            if value is None
        ]


def op_kinds() -> dict[str, OpKind]:
    """Every op kind that some target family tunes, by name."""
    features = {key: extractor for key, (extractor, _) in EXTRACTORS.items()}
    names = sorted(set(CPU_SPACES) | set(GPU_SPACES) | {kind for _, kind in features} | set(CPU_ORDERS) | set(ORDERS))
    return {
        name: OpKind(
            name,
            CPU_SPACES.get(name),
            GPU_SPACES.get(name),
            GPU_SPACES_WITHOUT_MMA.get(name),
            CUDA_SPACES.get(name),
            features.get(("cpu", name)),
            features.get(("gpu", name)),
            CPU_ORDERS.get(name),
            ORDERS.get(name),
        )
        for name in names
    }


def module_of(piece: Piece) -> str:
    """Where a piece is written, as `folder/module.py` under `mltune/` ("-": none)."""
    if piece is None:
        return "-"
    path = Path(inspect.getfile(piece))
    return f"`{path.relative_to(Path(__file__).parents[1]).as_posix()}`"


def op_kinds_table() -> str:
    """The op kinds as a Markdown table, each piece by its module."""
    rows = [
        "| op kind | llvm-cpu space | GPU space (without MMA; on CUDA) | features: llvm-cpu / GPU | "
        "heuristic: llvm-cpu / GPU |",
        "|---|---|---|---|---|",
    ]
    for kind in op_kinds().values():
        extra = [module_of(p) for p in (kind.gpu_space_without_mma, kind.cuda_space) if p is not None]
        gpu = module_of(kind.gpu_space) + (f" ({', '.join(extra)})" if extra else "")
        rows.append(
            f"| {kind.name} | {module_of(kind.cpu_space)} | {gpu} | {module_of(kind.cpu_features)} / "
            f"{module_of(kind.gpu_features)} | {module_of(kind.cpu_heuristic)} / {module_of(kind.gpu_heuristic)} |"
        )
    return "\n".join(rows)
