"""The random-forest cost model: fitting it, and storing it under `models/NAME/KIND/` with a checked sidecar.

One model per op kind: contractions, convolutions and attention have different feature
columns, so one arch's dispatches of several kinds need one model each. NAME is an arch
(`emeraldrapids`) or a family's pooled model (`family-cpu`, trained on every arch of the family).

The model predicts log(candidate time / baseline time) from the feature columns. It is stored as
plain arrays (`mltune.learn.tree_arrays`: an `.npz` read without pickle, so loading runs no code) with
a `model.json` sidecar naming the features, the training data and the cross-validation, and one manifest
SHA-256 over both the arrays' file and the sidecar's other fields (a feature list reordered by hand no
longer matches). Before anything in them is used, loading refuses a sidecar that is not a JSON object, a
`model_file` that is not a plain file inside the model's own folder (absolute paths, `..`, links out) and a
manifest that does not match; then a sidecar of another format and arrays that do not form a forest over
the sidecar's features, each in one line.
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import sklearn
from sklearn.ensemble import RandomForestRegressor

from mltune.errors import UserError
from mltune.learn.learner_names import FOREST, LEARNER_NAMES
from mltune.learn.model_files import (
    MANIFEST_KEY,
    MODEL_FILE,
    SIDECAR_FILE,
    manifest_sha256,
    model_folder,
    read_sidecar,
    refusing,
    train_command,
    trained_kinds,
)
from mltune.learn.tree_arrays import FORMAT, TreeEnsemble

# Shallow trees keep the model small (<< 5 MB) and fast to evaluate on 10,000 candidates;
# leaves of a few samples average out benchmark noise.
FOREST_SETTINGS: dict[str, Any] = {"n_estimators": 100, "max_depth": 8, "min_samples_leaf": 3, "max_features": 0.5}


def fit_forest(features: np.ndarray, labels: np.ndarray, seed: int = 0, jobs: int = 2) -> TreeEnsemble:
    """Fit scikit-learn's forest and keep only its trees' arrays: what is stored is what ranks."""
    forest = RandomForestRegressor(**FOREST_SETTINGS, random_state=seed, n_jobs=jobs)
    forest.fit(features, labels)
    return TreeEnsemble.from_sklearn(forest)


@dataclass(frozen=True)
class TrainedModel:
    """A fitted forest and the names of the feature columns it expects, in order."""

    ensemble: TreeEnsemble
    feature_names: tuple[str, ...]

    def reads(self, names: tuple[str, ...]) -> bool:
        """Whether features named `names` hold every column the model was trained on."""
        return set(self.feature_names) <= set(names)

    def predict(self, names: tuple[str, ...], values: np.ndarray) -> np.ndarray:
        """Predicted log ratios; columns are picked by name, so a reordered extractor still works."""
        missing = [name for name in self.feature_names if name not in names]
        if missing:
            raise UserError(
                f"the model needs features the extractor no longer computes ({', '.join(missing)}); "
                "retrain it with `mltune train`"
            )
        columns = [names.index(name) for name in self.feature_names]
        return self.ensemble.predict(values[:, columns])


@dataclass(frozen=True)
class LoadedModel:
    """A model read from its folder, with what its sidecar says about it."""

    model: TrainedModel
    folder: Path
    sidecar: dict[str, Any]

    @property
    def trusted(self) -> bool:
        """Whether training found it ranks better than the alternatives (or was told to ship it anyway)."""
        quality = self.sidecar.get("quality") or {}
        return bool(quality.get("ok") or quality.get("forced"))

    @property
    def share(self) -> float:
        """The forest's share of the picks beside the heuristic's (`mltune.learn.share`); 1 (the forest alone) for
        models trained before it was stored, or one that is not a number in (0, 1]."""
        share = self.sidecar.get("forest_share", 1.0)
        return float(share) if isinstance(share, (int, float)) and 0 < share <= 1 else 1.0

    @property
    def learner(self) -> str:
        """What fitted the trees (`mltune.learn.learner_names`): models trained before the choice are forests."""
        learner = self.sidecar.get("learner", FOREST)
        return learner if learner in LEARNER_NAMES else FOREST


def library_versions() -> dict[str, str]:
    return {
        "python": platform.python_version(),
        "scikit-learn": sklearn.__version__,
        "numpy": np.__version__,
        "lightgbm": importlib.metadata.version("lightgbm"),
    }


def save_model(model_dir: Path, name: str, op_kind: str, model: TrainedModel, metadata: dict[str, Any]) -> Path:
    """Write `model_dir/name/op_kind/forest.npz` and its sidecar; returns the folder."""
    folder = model_folder(model_dir, name, op_kind)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / MODEL_FILE).write_bytes(model.ensemble.to_bytes())
        sidecar = {
            "format": FORMAT,
            "name": name,
            "model_file": MODEL_FILE,
            "feature_names": list(model.feature_names),
            "versions": library_versions(),
            **metadata,
        }
        sidecar[MANIFEST_KEY] = manifest_sha256(folder / MODEL_FILE, json.loads(json.dumps(sidecar)))
        (folder / SIDECAR_FILE).write_text(json.dumps(sidecar, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    except OSError as err:
        raise UserError(f"cannot write the model to {folder}: {err.strerror or err}") from None
    return folder


def load_model(model_dir: Path, name: str, op_kind: str) -> LoadedModel:
    """Load `model_dir/name/op_kind/`; a missing model, or one that fails a check, is a one-line `UserError`."""
    folder = model_folder(model_dir, name, op_kind)
    if not (folder / SIDECAR_FILE).exists() and not (folder / SIDECAR_FILE).is_symlink():
        raise missing_model(model_dir, name, op_kind)
    with refusing(folder, name):
        sidecar, model_path = read_sidecar(folder)
        names = tuple(sidecar["feature_names"])
        ensemble = TreeEnsemble.load(model_path, len(names))
    return LoadedModel(TrainedModel(ensemble, names), folder, sidecar)


def missing_model(model_dir: Path, name: str, op_kind: str) -> UserError:
    """The one-line error for a name with no model of one op kind, naming the command that makes one."""
    have = trained_kinds(model_dir, name)
    return UserError(
        f"no random-forest model for {op_kind} on {name!r} in {model_folder(model_dir, name, op_kind)}"
        f" (have: {', '.join(have) or 'none'}); train one with `{train_command(name)}` on a dataset "
        f"with {op_kind} records"
    )
