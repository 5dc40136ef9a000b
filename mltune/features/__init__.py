"""Feature extractors: (problem, candidates, target) to a named numeric matrix, one row per candidate."""

from mltune.features.base import FeatureMatrix
from mltune.features.cpu import cpu_contraction_features

__all__ = ["FeatureMatrix", "cpu_contraction_features"]
