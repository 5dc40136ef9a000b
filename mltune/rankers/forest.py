"""The random-forest ranker: candidates in order of their predicted time relative to IREE's default."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from mltune.features import FeatureMatrix, extractor_for
from mltune.paths import model_search_path
from mltune.rankers.base import RankingInput, StaticRanker
from mltune.rankers.blend import blended_order
from mltune.rankers.heuristic import Heuristic, promote_data_tiled

if TYPE_CHECKING:
    from mltune.learn.forest import TrainedModel
    from mltune.learn.model_choice import ModelChoice

class RandomForest(StaticRanker):
    """Orders by predicted log(time / baseline), fastest first. Op kinds have different features, so each
    problem is ranked by a model of its kind: the arch's own, else its family's pooled one, else the heuristic
    (`mltune.learn.model_choice`, said once per arch and kind on stderr), unless one model is given, as
    `evaluate` does per fold. A model that never saw the arch (`blend`) has its order blended with the
    heuristic's."""

    name = "random-forest"

    def __init__(self, seed: int = 0, model: TrainedModel | None = None, model_dir: Path | None = None,
                 blend: bool = False):
        super().__init__(seed)
        self.model = model
        self.blend = blend
        self.model_dirs = model_search_path(model_dir)
        self.choices: dict[tuple[str, str], ModelChoice] = {}

    def check_for(self, target) -> None:
        """Refuse a target with no model of any kind (own or family) now, before any work."""
        from mltune.learn.model_choice import check_models_exist  # scikit-learn loads in ~1 s: only when needed

        if self.model is None:
            check_models_exist(self.model_dirs, target)

    def model_for(self, target, op_kind: str) -> TrainedModel | None:
        """The model that ranks `op_kind` on `target`, None for the heuristic."""
        if self.model is not None:
            return self.model
        key = (target.arch, op_kind)
        if key not in self.choices:
            from mltune.learn.model_choice import choose_model

            self.choices[key] = choose_model(self.model_dirs, target, op_kind)
            print(self.choices[key].description, file=sys.stderr)
        loaded = self.choices[key].loaded
        return loaded.model if loaded is not None else None

    def ranked(self, ranking_input: RankingInput) -> tuple[np.ndarray, np.ndarray | None, FeatureMatrix | None]:
        """The order, with the predicted log ratios and the features they came from (both None when the heuristic
        ranks this problem): the candidates' features are computed once."""
        problem, target = ranking_input.problem, ranking_input.target
        model = self.model_for(target, problem.op_kind)
        if model is None:
            return Heuristic(self.seed).order(ranking_input), None, None
        features = extractor_for(problem, target)(problem, target, ranking_input.candidates)
        predicted = model.predict(features.names, features.values)
        # ties (identical predictions are common: trees predict leaf means) in seeded random order
        ties = np.random.default_rng(self.seed).random(len(predicted))
        order = np.lexsort((ties, predicted))
        if self._blends(ranking_input):
            return blended_order(order, Heuristic(self.seed).order(ranking_input)), predicted, features
        # the model learns data-tiled builds from one CPU's records, a few among thousands of tilings: its first
        # batch measures both lowerings as the heuristic's does, which took the cpu family model's cross-validated
        # median (74 problems, position of the first candidate within 5 % of the best) from 5.5 to 3.5
        return promote_data_tiled(order, features), predicted, features

    def order(self, ranking_input: RankingInput) -> np.ndarray:
        return self.ranked(ranking_input)[0]

    def _blends(self, ranking_input: RankingInput) -> bool:
        if self.model is not None:
            return self.blend
        return self.choices[(ranking_input.target.arch, ranking_input.problem.op_kind)].blend
