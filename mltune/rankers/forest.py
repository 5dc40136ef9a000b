"""The random-forest ranker: candidates in order of their predicted time relative to IREE's default."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from mltune.features import extractor_for
from mltune.rankers.base import RankingInput, StaticRanker

if TYPE_CHECKING:
    from mltune.learn.forest import TrainedModel

DEFAULT_MODEL_DIR = Path("models")


class RandomForest(StaticRanker):
    """Orders by predicted log(time / baseline), fastest first. Op kinds have different features, so each
    problem is ranked by the model of its kind, from `models/ARCH/KIND/` (loaded when first needed, then
    kept), unless one model is given, as `evaluate` does per fold of one kind."""

    name = "random-forest"

    def __init__(self, seed: int = 0, model: TrainedModel | None = None, model_dir: Path = DEFAULT_MODEL_DIR):
        super().__init__(seed)
        self.model = model
        self.model_dir = model_dir
        self.models: dict[tuple[str, str], TrainedModel] = {}

    def check_for(self, arch: str) -> None:
        """Refuse an arch with no model of any kind now: a missing model stops a run before any work."""
        from mltune.learn.forest import missing_model, trained_kinds  # scikit-learn loads in ~1 s: only when needed

        if self.model is None and not trained_kinds(self.model_dir, arch):
            raise missing_model(self.model_dir, arch)

    def model_for(self, arch: str, op_kind: str) -> TrainedModel:
        if self.model is not None:
            return self.model
        if (arch, op_kind) not in self.models:
            from mltune.learn.forest import load_model

            self.models[arch, op_kind] = load_model(self.model_dir, arch, op_kind)
        return self.models[arch, op_kind]

    def order(self, ranking_input: RankingInput) -> np.ndarray:
        problem, target = ranking_input.problem, ranking_input.target
        model = self.model_for(target.arch, problem.op_kind)
        features = extractor_for(problem, target)(problem, target, ranking_input.candidates)
        predicted = model.predict(features.names, features.values)
        # ties (identical predictions are common: trees predict leaf means) in seeded random order
        ties = np.random.default_rng(self.seed).random(len(predicted))
        return np.lexsort((ties, predicted))
