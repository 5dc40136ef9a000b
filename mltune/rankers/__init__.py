"""Rankers, chosen by name: every one is an entry point of the group `mltune.rankers` (`mltune.rankers.registry`);
the `Ranker` protocol they follow is public (`mltune.rankers.base`).

The names are imported on first use, so that listing the rankers (`mltune --help`) loads none of them."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# the built-in rankers that read trained models (`--model-dir`)
LEARNED = ("learned", "random-forest", "random-forest-refit")
# the share of picks near the fastest config so far, IREE's default at first (`mltune.rankers.near_incumbent`)
NEAR_DEFAULT_SHARE = 0.25

# each public name: the module that defines it
_PUBLIC = {
    **dict.fromkeys(("Ranker", "RankingInput"), "mltune.rankers.base"),
    **dict.fromkeys(("BUILT_IN", "make_ranker", "plugin_names", "ranker_names"), "mltune.rankers.registry"),
}

__all__ = [
    "BUILT_IN",
    "LEARNED",
    "NEAR_DEFAULT_SHARE",
    "Ranker",
    "RankingInput",
    "make_ranker",
    "plugin_names",
    "ranker_names",
]

if TYPE_CHECKING:
    from mltune.rankers.base import Ranker, RankingInput
    from mltune.rankers.registry import BUILT_IN, make_ranker, plugin_names, ranker_names


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'mltune.rankers' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
