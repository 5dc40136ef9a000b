"""Where mltune reads and writes, so that it runs the same from any directory.

Shipped models live in the repository's top-level `models/`, which an install carries as the data package
`mltune.models` (setup.py maps it); they are found through importlib.resources, or, in a source checkout that
is on the path but not installed, beside the `mltune` folder. A user's own files live in one data home:
`$MLTUNE_HOME` if set, otherwise the platform's user data folder (platformdirs: `~/.local/share/mltune` on
Linux). Under it, `datasets/ARCH/` holds the records of every run, `models/ARCH/KIND/` the models the user
trained and `runs/` the run directories. `--dataset-dir`, `--model-dir` and `--run-dir` override each.

Models are looked up in order: `--model-dir` alone when given; otherwise the data home's
`models/`, then the shipped ones. Within that order an arch's own model comes before its family's.
"""

from __future__ import annotations

import importlib.resources
import os
from pathlib import Path

import platformdirs

HOME_VARIABLE = "MLTUNE_HOME"


def _shipped_models() -> Path:
    """The installed data package `mltune.models`, else (a source checkout on sys.path, not installed) the
    `models/` beside the `mltune` folder."""
    try:
        found = importlib.resources.files("mltune.models")
    except ModuleNotFoundError:
        found = None
    if isinstance(found, Path):  # a regular package on disk (a stray namespace folder is no Path)
        return found
    return Path(__file__).resolve().parents[2] / "models"


SHIPPED_MODELS = _shipped_models()


def data_home() -> Path:
    """The user's data home: `$MLTUNE_HOME`, else the platform's user data folder for mltune."""
    configured = os.environ.get(HOME_VARIABLE, "")
    return Path(configured).expanduser() if configured else Path(platformdirs.user_data_dir("mltune"))


def user_datasets() -> Path:
    return data_home() / "datasets"


def user_models() -> Path:
    return data_home() / "models"


def user_runs() -> Path:
    return data_home() / "runs"


def model_search_path(model_dir: Path | None = None) -> tuple[Path, ...]:
    """The folders models are looked up in, first match wins: `model_dir` alone, else the user's then the shipped."""
    return (model_dir,) if model_dir is not None else (user_models(), SHIPPED_MODELS)


def describe_search_path(folders: tuple[Path, ...]) -> str:
    return ", then ".join(str(folder) for folder in folders)
