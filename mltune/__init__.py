"""mltune: an ML-guided autotuner for IREE dispatches, as a command (`mltune`) and as a library.

The public API is what `__all__` names here, with the public modules' own names:

- `tune`, `problems`, `rank`, `train`, `evaluate` and the results `TuneResult`, `DispatchVerdict` (`mltune.api`);
- `Ranker`, `RankingInput`, `make_ranker`, `ranker_names` (`mltune.rankers`): rankers are plugins, registered as
  entry points of the group `mltune.rankers` (docs/ranker-plugins.md);
- `records.load` (`mltune.records`): measured candidates as a data frame; `candidate_frame`, `knob_columns`,
  `feature_columns` (`mltune.features`): a problem's candidates as the same columns;
- `CandidateSet`, `FeatureMatrix`, and the errors `UserError` (bad input: one line) and `RunFailure`.

Everything else (any other module or name) is internal and may change between releases. The names are imported on
first use, so that `import mltune` and the command line start fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# each public name: the module that defines it
_PUBLIC = {
    **dict.fromkeys(
        ("tune", "tune_shapes", "problems", "rank", "train", "evaluate", "TuneResult", "DispatchVerdict"), "mltune.api"
    ),
    **dict.fromkeys(("Ranker", "RankingInput", "make_ranker", "ranker_names"), "mltune.rankers"),
    **dict.fromkeys(("candidate_frame", "knob_columns", "feature_columns", "FeatureMatrix"), "mltune.features"),
    "CandidateSet": "mltune.spaces.candidate",
    "UserError": "mltune.errors",
    "RunFailure": "mltune.errors",
}
_PUBLIC_MODULES = ("api", "features", "rankers", "records")

__all__ = [
    "CandidateSet",
    "DispatchVerdict",
    "FeatureMatrix",
    "Ranker",
    "RankingInput",
    "RunFailure",
    "TuneResult",
    "UserError",
    "__version__",
    "api",
    "candidate_frame",
    "evaluate",
    "feature_columns",
    "features",
    "knob_columns",
    "make_ranker",
    "problems",
    "rank",
    "ranker_names",
    "rankers",
    "records",
    "train",
    "tune",
    "tune_shapes",
]

if TYPE_CHECKING:
    from mltune.api import DispatchVerdict, TuneResult, evaluate, problems, rank, train, tune, tune_shapes
    from mltune.errors import RunFailure, UserError
    from mltune.features import FeatureMatrix, candidate_frame, feature_columns, knob_columns
    from mltune.rankers import Ranker, RankingInput, make_ranker, ranker_names
    from mltune.spaces.candidate import CandidateSet


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    if name in _PUBLIC_MODULES:
        return importlib.import_module(f"mltune.{name}")
    raise AttributeError(f"module 'mltune' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
