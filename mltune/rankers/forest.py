"""The random-forest ranker: candidates in order of their predicted time relative to IREE's default."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from mltune.features import FeatureMatrix, extractor_for, model_kind
from mltune.rankers.base import RankingInput, StaticRanker
from mltune.rankers.blend import blended_order, interleaved_order
from mltune.rankers.heuristic import Heuristic, promote_data_tiled
from mltune.system.paths import model_search_path

if TYPE_CHECKING:
    from mltune.learn.forest import TrainedModel
    from mltune.learn.model_choice import ModelChoice


@dataclass(frozen=True)
class Ranked:
    """A learned order and what it came from: the forest's predicted log ratios and the features (None when the
    heuristic ranks alone), and, when the forest's order is interleaved with the heuristic's, that order and the
    forest's share of the picks (`mltune.rankers.blend.interleaved_order`)."""

    order: np.ndarray
    predicted: np.ndarray | None = None
    features: FeatureMatrix | None = None
    heuristic: np.ndarray | None = None
    share: float = 1.0


class RandomForest(StaticRanker):
    """Orders by predicted log(time / baseline), fastest first, taken in turn with the heuristic's order in the
    share the model's held-out quality earned (`mltune.learn.share`; the sidecar's `forest_share`, absent in models
    trained before: the forest alone). Op kinds have different features, so each problem is ranked by a model of
    its kind: the arch's own, else its family's pooled one, else the heuristic (`mltune.learn.model_choice`, said
    once per arch and kind on stderr), unless one model is given, as `evaluate` does per fold (with its `share`).
    A model that never saw the arch (`blend`) has its order blended with the heuristic's instead."""

    name = "random-forest"
    seen_only = False  # a family model that never saw the arch blends with the heuristic (`Learned`: gives way)

    def __init__(
        self,
        seed: int = 0,
        model: TrainedModel | None = None,
        model_dir: Path | None = None,
        blend: bool = False,
        share: float = 1.0,
    ):
        super().__init__(seed)
        self.model = model
        self.blend = blend
        self.share = share
        self.model_dirs = model_search_path(model_dir)
        self.choices: dict[tuple[str, str], ModelChoice] = {}

    def check_files(self) -> None:
        """Refuse a damaged model in the search path now, before any work (`mltune.learn.forest.verify_models`)."""
        from mltune.learn.model_files import verify_models

        if self.model is None:
            for model_dir in self.model_dirs:
                verify_models(model_dir)

    def check_for(self, target) -> None:
        """Refuse a target with no model of any kind (own or family) now, before any work."""
        from mltune.learn.model_choice import check_models_exist  # scikit-learn loads in ~1 s: only when needed

        if self.model is None:
            check_models_exist(self.model_dirs, target)

    def model_for(self, target, kind: str) -> TrainedModel | None:
        """The model that ranks model kind `kind` (`mltune.features.model_kind`) on `target`, None for the
        heuristic."""
        if self.model is not None:
            return self.model
        key = (target.arch, kind)
        if key not in self.choices:
            from mltune.learn.model_choice import choose_model

            self.choices[key] = choose_model(self.model_dirs, target, kind, self.name, self.seen_only)
            print(self.choices[key].description, file=sys.stderr)
        loaded = self.choices[key].loaded
        return loaded.model if loaded is not None else None

    def ranked(self, ranking_input: RankingInput) -> Ranked:
        """The order, with what it came from: the candidates' features are computed once."""
        problem, target = ranking_input.problem, ranking_input.target
        kind = model_kind(problem, target, ranking_input.candidates)
        model = self.model_for(target, kind)
        if model is None:
            return Ranked(Heuristic(self.seed).order(ranking_input))
        features = extractor_for(problem, target)(problem, target, ranking_input.candidates)
        if not model.reads(features.names):  # e.g. a model trained on other features of its kind than these
            print(
                f"note: the {kind} model was trained on candidates of another kind than "
                f"{problem.key}'s on {target.arch}: the heuristic ranks them",
                file=sys.stderr,
            )
            return Ranked(Heuristic(self.seed).order(ranking_input))
        predicted = model.predict(features.names, features.values)
        # ties (identical predictions are common: trees predict leaf means) in seeded random order
        ties = np.random.default_rng(self.seed).random(len(predicted))
        order = np.lexsort((ties, predicted))
        blend, share = self._blend_and_share(target.arch, kind)
        if blend:
            return Ranked(blended_order(order, Heuristic(self.seed).order(ranking_input)), predicted, features)
        # the model learns data-tiled builds from one CPU's records, a few among thousands of tilings: its first
        # batch measures both lowerings as the heuristic's does (why: docs/learned-ranking.md)
        order = promote_data_tiled(order, features)
        if share >= 1.0:
            return Ranked(order, predicted, features)
        heuristic = Heuristic(self.seed).order(ranking_input)
        return Ranked(interleaved_order(order, heuristic, share), predicted, features, heuristic, share)

    def order(self, ranking_input: RankingInput) -> np.ndarray:
        return self.ranked(ranking_input).order

    def _blend_and_share(self, arch: str, kind: str) -> tuple[bool, float]:
        if self.model is not None:
            return self.blend, self.share
        choice = self.choices[(arch, kind)]
        return choice.blend, choice.share


class Learned(RandomForest):
    """`mltune tune`'s default: `random-forest` where a model has learned from the target's arch (its own, or its
    family's trained on records of it), the heuristic everywhere else, op kind by op kind. Live, with models that had
    learned from the CPU, it reached within 5 % of the best sooner than the heuristic on shapes they never saw, and
    on sm_90 too; on a CPU the model never saw it only tied the heuristic, and on ROCm no model has seen any record
    (docs/evaluation/honest-split.md)."""

    name = "learned"
    seen_only = True

    def check_for(self, target) -> None:
        """Never refuses a target: with no model that learned from it, the heuristic ranks."""
