"""Dataset records: one JSON line per measured candidate (`dataset`), what a usable record is (`check`), and,
public, an arch's records as a data frame (`load`, from `frame`). `load` is imported on first use: the writers and
readers that tuning uses stay free of pandas and of the learning code the frame is built with."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mltune.records.frame import load

__all__ = ["load"]


def __getattr__(name: str) -> Any:
    if name == "load":
        from mltune.records.frame import load

        return load
    raise AttributeError(f"module 'mltune.records' has no attribute {name!r}")
