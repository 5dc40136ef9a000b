"""The random-forest cost model: fitting it, and storing it under `models/ARCH/KIND/` with a checked sidecar.

One model per op kind: contractions, convolutions and attention have different feature
columns, so one arch's dispatches of several kinds need one model each.

The model predicts log(candidate time / baseline time) from the feature columns. The joblib
file is unpickled only after its SHA-256 matches the one in `model.json`: unpickling runs
code, so a file changed after training is refused rather than loaded.
"""

from __future__ import annotations

import hashlib
import json
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import sklearn
from sklearn.ensemble import RandomForestRegressor

from mltune.errors import UserError

MODEL_FILE = "forest.joblib"
SIDECAR_FILE = "model.json"
# Shallow trees keep the model small (<< 5 MB) and fast to evaluate on 10,000 candidates;
# leaves of a few samples average out benchmark noise.
FOREST_SETTINGS: dict[str, Any] = {"n_estimators": 100, "max_depth": 8, "min_samples_leaf": 3, "max_features": 0.5}


def fit_forest(features: np.ndarray, labels: np.ndarray, seed: int = 0, jobs: int = 2) -> RandomForestRegressor:
    forest = RandomForestRegressor(**FOREST_SETTINGS, random_state=seed, n_jobs=jobs)
    forest.fit(features, labels)
    forest.n_jobs = 1  # ranking one problem is faster without worker start-up
    return forest


@dataclass(frozen=True)
class TrainedModel:
    """A fitted forest and the names of the feature columns it expects, in order."""

    estimator: RandomForestRegressor
    feature_names: tuple[str, ...]

    def predict(self, names: tuple[str, ...], values: np.ndarray) -> np.ndarray:
        """Predicted log ratios; columns are picked by name, so a reordered extractor still works."""
        missing = [name for name in self.feature_names if name not in names]
        if missing:
            raise UserError(f"the model needs features the extractor no longer computes ({', '.join(missing)}); "
                            "retrain it with `mltune train`")
        columns = [names.index(name) for name in self.feature_names]
        return self.estimator.predict(values[:, columns])


def library_versions() -> dict[str, str]:
    return {"python": platform.python_version(), "scikit-learn": sklearn.__version__, "numpy": np.__version__,
            "joblib": joblib.__version__}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def model_folder(model_dir: Path, arch: str, op_kind: str) -> Path:
    return model_dir / arch / op_kind


def trained_kinds(model_dir: Path, arch: str) -> list[str]:
    """The op kinds that have a model (a sidecar) under `model_dir/arch/`."""
    folder = model_dir / arch
    return sorted(sub.name for sub in folder.iterdir() if (sub / SIDECAR_FILE).is_file()) if folder.is_dir() else []


def save_model(model_dir: Path, arch: str, op_kind: str, model: TrainedModel, metadata: dict[str, Any]) -> Path:
    """Write `model_dir/arch/op_kind/forest.joblib` and its sidecar; returns the folder."""
    folder = model_folder(model_dir, arch, op_kind)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        joblib.dump(model.estimator, folder / MODEL_FILE, compress=3)
        sidecar = {"arch": arch, "model_file": MODEL_FILE, "model_sha256": _sha256(folder / MODEL_FILE),
                   "feature_names": list(model.feature_names), "versions": library_versions(),
                   "forest_settings": FOREST_SETTINGS, **metadata}
        (folder / SIDECAR_FILE).write_text(json.dumps(sidecar, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    except OSError as err:
        raise UserError(f"cannot write the model to {folder}: {err.strerror or err}") from None
    return folder


def missing_model(model_dir: Path, arch: str, op_kind: str | None = None) -> UserError:
    """The one-line error for an arch (or one op kind of it) with no model, naming the command that makes one."""
    if op_kind is None:
        return UserError(f"no random-forest model for arch {arch!r} in {model_dir / arch}; "
                         f"train one with `mltune train --arch {arch}`")
    have = trained_kinds(model_dir, arch)
    return UserError(f"no random-forest model for {op_kind} on arch {arch!r} in {model_folder(model_dir, arch, op_kind)}"
                     f" (have: {', '.join(have) or 'none'}); train one with `mltune train --arch {arch}` "
                     f"on a dataset with {op_kind} records")


def load_model(model_dir: Path, arch: str, op_kind: str) -> TrainedModel:
    """Load `model_dir/arch/op_kind/`, refusing a missing model or a file whose SHA-256 differs from the sidecar's."""
    folder = model_folder(model_dir, arch, op_kind)
    sidecar_path = folder / SIDECAR_FILE
    if not sidecar_path.is_file():
        raise missing_model(model_dir, arch, op_kind)
    try:
        sidecar = json.loads(sidecar_path.read_text(encoding="utf-8"))
        model_path = folder / sidecar["model_file"]
        actual = _sha256(model_path)
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise UserError(f"unreadable model in {folder} ({err}); retrain with `mltune train --arch {arch}`") from None
    if actual != sidecar.get("model_sha256"):
        raise UserError(f"{model_path} does not match the SHA-256 in {sidecar_path}: refusing to load it; "
                        f"retrain with `mltune train --arch {arch}`")
    return TrainedModel(joblib.load(model_path), tuple(sidecar["feature_names"]))
