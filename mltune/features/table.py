"""Candidates as a data frame (pandas): one row per candidate, its knobs and its features as named columns.

The candidates of a problem being tuned (`candidate_frame`) and the measured candidates of the records
(`mltune.records.load`) get the same columns, so that a model fitted on records predicts on candidates. Knob and
feature names can coincide, hence the prefixes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import pandas

    from mltune.features.base import FeatureMatrix
    from mltune.spaces.candidate import CandidateSet

KNOB_PREFIX = "knob."
FEATURE_PREFIX = "feature."


class CandidatesWithFeatures(Protocol):
    """A problem's candidates and their features: what a frame is made of (a ranker's `RankingInput` is one)."""

    @property
    def candidates(self) -> CandidateSet: ...

    @property
    def features(self) -> FeatureMatrix: ...


def candidate_frame(ranking_input: CandidatesWithFeatures) -> pandas.DataFrame:
    """The problem's candidates as a frame: row i is candidate i.

    Args:
        ranking_input: A problem's candidates, as a ranker's `start` is given them.

    Returns:
        One column `knob.NAME` (int) per knob and one `feature.NAME` (float) per feature.

    Raises:
        UserError: mltune has no feature extractor for this op kind on this target.
    """
    import pandas as pd  # only where frames are asked for: not at the command line's start

    candidates, features = ranking_input.candidates, ranking_input.features
    columns: dict[str, Any] = {KNOB_PREFIX + name: candidates.values[:, i] for i, name in enumerate(candidates.names)}
    columns.update({FEATURE_PREFIX + name: features.values[:, i] for i, name in enumerate(features.names)})
    return pd.DataFrame(columns)


def knob_columns(frame: pandas.DataFrame) -> list[str]:
    """The frame's knob columns, in order."""
    return [column for column in frame.columns if str(column).startswith(KNOB_PREFIX)]


def feature_columns(frame: pandas.DataFrame) -> list[str]:
    """The frame's feature columns, in order."""
    return [column for column in frame.columns if str(column).startswith(FEATURE_PREFIX)]
