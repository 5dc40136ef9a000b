"""Rankers, chosen by name: every one is an entry point of the group `mltune.rankers` (`mltune.rankers.registry`);
the `Ranker` protocol they follow is public (`mltune.rankers.base`)."""

from __future__ import annotations

from mltune.rankers.base import Ranker, RankingInput
from mltune.rankers.registry import BUILT_IN, make_ranker, plugin_names, ranker_names

# the built-in rankers that read trained models (`--model-dir`)
LEARNED = ("random-forest", "random-forest-refit")

__all__ = ["BUILT_IN", "LEARNED", "Ranker", "RankingInput", "make_ranker", "plugin_names", "ranker_names"]
