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

import hashlib
import importlib.metadata
import json
import os
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import sklearn
from sklearn.ensemble import RandomForestRegressor

from mltune.errors import UserError
from mltune.learn.learner_names import FOREST, LEARNER_NAMES
from mltune.learn.tree_arrays import FORMAT, ModelFormatError, TreeEnsemble

MODEL_FILE = "forest.npz"
SIDECAR_FILE = "model.json"
MANIFEST_KEY = "manifest_sha256"
FAMILY_PREFIX = "family-"
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
            raise UserError(f"the model needs features the extractor no longer computes ({', '.join(missing)}); "
                            "retrain it with `mltune train`")
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
    return {"python": platform.python_version(), "scikit-learn": sklearn.__version__, "numpy": np.__version__,
            "lightgbm": importlib.metadata.version("lightgbm")}


def family_name(family: str) -> str:
    """The folder name of a family's pooled models (`family-cpu`)."""
    return FAMILY_PREFIX + family


def manifest_sha256(model_path: Path, sidecar: dict[str, Any]) -> str:
    """The SHA-256 of the model file's bytes followed by the sidecar's fields but this hash (canonical JSON)."""
    digest = hashlib.sha256()
    with open(model_path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    fields = {key: value for key, value in sidecar.items() if key != MANIFEST_KEY}
    digest.update(json.dumps(fields, sort_keys=True, separators=(",", ":")).encode("utf-8"))
    return digest.hexdigest()


def model_folder(model_dir: Path, name: str, op_kind: str) -> Path:
    return model_dir / name / op_kind


def trained_kinds(model_dir: Path, name: str) -> list[str]:
    """The op kinds that have a model (a sidecar) under `model_dir/name/`."""
    folder = model_dir / name
    return sorted(sub.name for sub in folder.iterdir() if (sub / SIDECAR_FILE).is_file()) if folder.is_dir() else []


def save_model(model_dir: Path, name: str, op_kind: str, model: TrainedModel, metadata: dict[str, Any]) -> Path:
    """Write `model_dir/name/op_kind/forest.npz` and its sidecar; returns the folder."""
    folder = model_folder(model_dir, name, op_kind)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / MODEL_FILE).write_bytes(model.ensemble.to_bytes())
        sidecar = {"format": FORMAT, "name": name, "model_file": MODEL_FILE,
                   "feature_names": list(model.feature_names), "versions": library_versions(), **metadata}
        sidecar[MANIFEST_KEY] = manifest_sha256(folder / MODEL_FILE, json.loads(json.dumps(sidecar)))
        (folder / SIDECAR_FILE).write_text(json.dumps(sidecar, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    except OSError as err:
        raise UserError(f"cannot write the model to {folder}: {err.strerror or err}") from None
    return folder


def _confined_file(folder: Path, name: Any) -> Path:
    """`folder/name` when `name` is a plain file name whose file lies in `folder` itself (no link out)."""
    if not isinstance(name, str) or name in ("", ".", "..") or Path(name).name != name or "/" in name \
            or (os.altsep and os.altsep in name) or os.sep in name:
        raise ModelFormatError(f"model_file {name!r} is not a plain file name inside the model's folder")
    path = folder / name
    if path.is_symlink() or Path(os.path.realpath(path)).parent != Path(os.path.realpath(folder)):
        raise ModelFormatError(f"model_file {name!r} links outside the model's folder")
    if not path.is_file():
        raise ModelFormatError(f"model_file {name!r} is not a file")
    return path


def _read_sidecar(folder: Path) -> tuple[dict[str, Any], Path]:
    """The sidecar and the model file it names, their manifest verified, then the sidecar's fields checked."""
    sidecar = json.loads(_confined_file(folder, SIDECAR_FILE).read_text(encoding="utf-8"))
    if not isinstance(sidecar, dict):
        raise ModelFormatError(f"{SIDECAR_FILE} is not a JSON object")
    model_path = _confined_file(folder, sidecar.get("model_file"))
    if manifest_sha256(model_path, sidecar) != sidecar.get(MANIFEST_KEY):
        raise ModelFormatError(f"{model_path.name} and {SIDECAR_FILE} do not match the SHA-256 {MANIFEST_KEY} "
                               f"in {SIDECAR_FILE}")
    if sidecar.get("format") != FORMAT:
        raise ModelFormatError(f"format {sidecar.get('format')!r} is not {FORMAT!r} (models stored as pickles are "
                               "no longer loaded)")
    names = sidecar.get("feature_names")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ModelFormatError("feature_names is not a list of names")
    return sidecar, model_path


def load_model(model_dir: Path, name: str, op_kind: str) -> LoadedModel:
    """Load `model_dir/name/op_kind/`; a missing model, or one that fails a check, is a one-line `UserError`."""
    folder = model_folder(model_dir, name, op_kind)
    if not (folder / SIDECAR_FILE).exists() and not (folder / SIDECAR_FILE).is_symlink():
        raise missing_model(model_dir, name, op_kind)
    try:
        sidecar, model_path = _read_sidecar(folder)
        names = tuple(sidecar["feature_names"])
        ensemble = TreeEnsemble.load(model_path, len(names))
    except (ModelFormatError, OSError, ValueError, UnicodeDecodeError) as err:
        raise UserError(f"refusing the model in {folder}: {err}; retrain it with `{_train_command(name)}`") from None
    return LoadedModel(TrainedModel(ensemble, names), folder, sidecar)


def _train_command(name: str) -> str:
    return (f"mltune train --family {name.removeprefix(FAMILY_PREFIX)}" if name.startswith(FAMILY_PREFIX)
            else f"mltune train --arch {name}")


def missing_model(model_dir: Path, name: str, op_kind: str) -> UserError:
    """The one-line error for a name with no model of one op kind, naming the command that makes one."""
    have = trained_kinds(model_dir, name)
    return UserError(f"no random-forest model for {op_kind} on {name!r} in {model_folder(model_dir, name, op_kind)}"
                     f" (have: {', '.join(have) or 'none'}); train one with `{_train_command(name)}` on a dataset "
                     f"with {op_kind} records")
