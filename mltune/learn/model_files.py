"""A trained model's files as they are stored and checked: `MODEL/NAME/OP_KIND/` holds the tree arrays
(`forest.npz`) and a sidecar (`model.json`) whose manifest is the SHA-256 of both. Reading them needs no learning
library, so a run checks every model it may load before it compiles anything."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mltune.errors import UserError
from mltune.learn.tree_arrays import FORMAT, ModelFormatError

MODEL_FILE = "forest.npz"
SIDECAR_FILE = "model.json"
MANIFEST_KEY = "manifest_sha256"
FAMILY_PREFIX = "family-"


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


def confined_file(folder: Path, name: Any) -> Path:
    """`folder/name` when `name` is a plain file name whose file lies in `folder` itself (no link out)."""
    if (
        not isinstance(name, str)
        or name in ("", ".", "..")
        or Path(name).name != name
        or "/" in name
        or (os.altsep and os.altsep in name)
        or os.sep in name
    ):
        raise ModelFormatError(f"model_file {name!r} is not a plain file name inside the model's folder")
    path = folder / name
    if path.is_symlink() or Path(os.path.realpath(path)).parent != Path(os.path.realpath(folder)):
        raise ModelFormatError(f"model_file {name!r} links outside the model's folder")
    if not path.is_file():
        raise ModelFormatError(f"model_file {name!r} is not a file")
    return path


def read_sidecar(folder: Path) -> tuple[dict[str, Any], Path]:
    """The sidecar and the model file it names, their manifest verified, then the sidecar's fields checked."""
    sidecar = json.loads(confined_file(folder, SIDECAR_FILE).read_text(encoding="utf-8"))
    if not isinstance(sidecar, dict):
        raise ModelFormatError(f"{SIDECAR_FILE} is not a JSON object")
    model_path = confined_file(folder, sidecar.get("model_file"))
    if manifest_sha256(model_path, sidecar) != sidecar.get(MANIFEST_KEY):
        raise ModelFormatError(
            f"{model_path.name} and {SIDECAR_FILE} do not match the SHA-256 {MANIFEST_KEY} in {SIDECAR_FILE}"
        )
    if sidecar.get("format") != FORMAT:
        raise ModelFormatError(
            f"format {sidecar.get('format')!r} is not {FORMAT!r} (models stored as pickles are no longer loaded)"
        )
    names = sidecar.get("feature_names")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ModelFormatError("feature_names is not a list of names")
    return sidecar, model_path


@contextmanager
def refusing(folder: Path, name: str) -> Iterator[None]:
    """A model in `folder` that fails a check while it is read, as one line naming the folder and the command that
    retrains `name`'s models."""
    try:
        yield
    except (ModelFormatError, OSError, ValueError, UnicodeDecodeError) as err:
        raise UserError(f"refusing the model in {folder}: {err}; retrain it with `{train_command(name)}`") from None


def verify_models(model_dir: Path) -> None:
    """Every model under `model_dir` checked against its manifest (the SHA-256 of its files, the sidecar's
    fields), so that a damaged or altered one is refused before a run compiles anything; a missing folder holds
    nothing to check."""
    names = sorted(d.name for d in model_dir.iterdir() if d.is_dir()) if model_dir.is_dir() else []
    for name in names:
        for op_kind in trained_kinds(model_dir, name):
            folder = model_folder(model_dir, name, op_kind)
            with refusing(folder, name):
                read_sidecar(folder)


def train_command(name: str) -> str:
    return (
        f"mltune train --family {name.removeprefix(FAMILY_PREFIX)}"
        if name.startswith(FAMILY_PREFIX)
        else f"mltune train --arch {name}"
    )
