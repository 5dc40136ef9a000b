"""Where a CPU candidate lies among tilings: the log2 of each of its tiles, level by level and loop by loop, so that
configs have neighbours (one doubling or halving of one tile away), IREE's own default config among them.

A tile of 0 (the loop not tiled at that level) counts as the loop's whole extent. Candidates of another pipeline
than the space's own (a CPU contraction's data-tiled builds) have no coordinates: NaN rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from mltune.emit.op_config import config_levels
from mltune.frontend.problem import Problem
from mltune.spaces.candidate import CandidateSet


@runtime_checkable
class TiledSpace(Protocol):
    """A configurator whose configs are tiling levels, placed among tilings (`mltune.spaces.cpu_contraction.
    CpuContraction` and the CPU spaces built on it; GPU configs hold more than tiles, and their spaces do not say)."""

    problem: Problem
    pipeline: str

    def tile_levels(self, knobs: dict[str, int]) -> dict[str, list[int]]: ...

    def pipeline_of(self, knobs: dict[str, int]) -> str: ...


@dataclass(frozen=True)
class TileCoordinates:
    """Every candidate's coordinates (one row each, NaN for another pipeline's), and those of IREE's default config
    (None where its tiling levels are not this space's)."""

    candidates: np.ndarray
    default: np.ndarray | None


def _point(levels: dict[str, list[int]], names: tuple[str, ...], bounds: tuple[int, ...]) -> list[float] | None:
    if any(len(levels.get(name, ())) != len(bounds) for name in names):
        return None
    return [math.log2(max(tile or bound, 1)) for name in names for tile, bound in zip(levels[name], bounds)]


def tile_coordinates(space: object, candidates: CandidateSet, default_config: str) -> TileCoordinates | None:
    """The coordinates of `candidates` of `space` and of IREE's `default_config` (its root op's `lowering_config`);
    None for a space that does not place its configs among tilings (`TiledSpace`: the GPU spaces)."""
    if not isinstance(space, TiledSpace) or not len(candidates):
        return None
    problem = space.problem
    bounds = tuple(problem.bounds)
    names = tuple(sorted(space.tile_levels(candidates.knobs(0))))
    rows = np.full((len(candidates), len(names) * len(bounds)), np.nan)
    for index in range(len(candidates)):
        knobs = candidates.knobs(index)
        if space.pipeline_of(knobs) == space.pipeline:
            rows[index] = _point(space.tile_levels(knobs), names, bounds)
    default = _point(config_levels(default_config), names, bounds) if default_config else None
    return TileCoordinates(rows, None if default is None else np.array(default))
