"""Problems an arch's dataset keeps out of training for good: `datasets/ARCH/holdout.json`.

Cross-validation reuses every problem as training data in other folds, and choices made while reading its numbers
(features, labels, settings) fit it a little. A few problems that no model is ever trained on, only scored on,
keep one number that nothing was tuned to. The file is a JSON object `{"problems": [KEY, ...], "why": "..."}`
whose keys are `Problem.key`s of the folder's records; a key the records do not hold is an error, so that a typo
cannot put a problem back into training.
"""

from __future__ import annotations

import json
from pathlib import Path

from mltune.errors import UserError

HOLDOUT_FILE = "holdout.json"


def read_holdout(folder: Path) -> frozenset[str]:
    """The problem keys `folder/holdout.json` keeps out of training (none without the file)."""
    path = folder / HOLDOUT_FILE
    if not path.exists():
        return frozenset()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise UserError(f"{path}: cannot read the held-out problems ({err})") from None
    keys = data.get("problems") if isinstance(data, dict) else None
    if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
        raise UserError(f'{path}: expected {{"problems": [problem keys]}}')
    return frozenset(keys)


def check_holdout(folder: Path, holdout: frozenset[str], keys: set[str]) -> None:
    """Refuse a held-out key that names no problem of the records."""
    unknown = sorted(holdout - keys)
    if unknown:
        raise UserError(f"{folder / HOLDOUT_FILE}: no records of {', '.join(unknown)}")
