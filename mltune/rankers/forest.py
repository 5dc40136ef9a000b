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
    """Orders by predicted log(time / baseline), fastest first; the model comes from `models/ARCH/`
    (loaded at `start`, when the arch is known) unless one is given, as `evaluate` does per fold."""

    name = "random-forest"

    def __init__(self, seed: int = 0, model: TrainedModel | None = None, model_dir: Path = DEFAULT_MODEL_DIR):
        super().__init__(seed)
        self.model = model
        self.model_dir = model_dir

    def load_for(self, arch: str) -> None:
        """Load the model of `arch` now (a no-op when one is loaded): a missing model stops a run before any work."""
        if self.model is None:
            from mltune.learn.forest import load_model  # scikit-learn loads in ~1 s: only when a model is needed

            self.model = load_model(self.model_dir, arch)

    def order(self, ranking_input: RankingInput) -> np.ndarray:
        self.load_for(ranking_input.target.arch)
        problem, target = ranking_input.problem, ranking_input.target
        features = extractor_for(problem, target)(problem, target, ranking_input.candidates)
        predicted = self.model.predict(features.names, features.values)
        # ties (identical predictions are common: trees predict leaf means) in seeded random order
        ties = np.random.default_rng(self.seed).random(len(predicted))
        return np.lexsort((ties, predicted))
