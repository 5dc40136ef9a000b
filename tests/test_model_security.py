"""Model folders crafted to run code when loaded are refused in one line, and nothing runs. The crafted payloads are
real pickles whose unpickling would create a marker file; the forest they sit beside is trained on synthetic records."""

from __future__ import annotations

import io
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from learn_helpers import SYNTHETIC_CPU, matmul_problem, train_synthetic_model

from mltune.errors import UserError
from mltune.learn.forest import load_model
from mltune.learn.model_files import MANIFEST_KEY, MODEL_FILE, SIDECAR_FILE, manifest_sha256
from mltune.rankers import RankingInput, make_ranker
from mltune.spaces.cpu_contraction import CpuContraction


class _Payload:
    """Unpickling this calls os.system: it touches the marker file."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


@pytest.fixture(scope="module")
def intact(tmp_path_factory):
    return train_synthetic_model(tmp_path_factory.mktemp("intact")) / "models" / "synthetic" / "contraction"


def _crafted(intact: Path, root: Path, model_file: str, payload: bytes | None, marker: Path) -> Path:
    """A copy of the intact model folder whose sidecar names `model_file`; `payload` (if given) is written there and
    its SHA-256 put in the sidecar, as an attacker who can write the folder would."""
    folder = root / "models" / "synthetic" / "contraction"
    shutil.copytree(intact, folder)
    target = (folder / model_file) if not os.path.isabs(model_file) else Path(model_file)
    if payload is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(payload)
    sidecar = json.loads((folder / SIDECAR_FILE).read_text())
    sidecar["model_file"] = model_file
    if payload is not None:
        sidecar[MANIFEST_KEY] = manifest_sha256(target, sidecar)
    (folder / SIDECAR_FILE).write_text(json.dumps(sidecar))
    return root / "models"


@pytest.mark.parametrize(
    "case",
    [
        "pickle in the folder",
        "pickle as forest.npz",
        "outside by ..",
        "absolute path",
        "link out",
        "old pickled format",
    ],
)
def test_a_crafted_model_folder_is_refused_and_nothing_runs(case, intact, tmp_path, monkeypatch, capsys):
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_Payload(marker))
    outside = tmp_path / "elsewhere" / "evil.npz"
    if case == "pickle in the folder":
        models = _crafted(intact, tmp_path, "evil.pkl", payload, marker)
    elif case == "pickle as forest.npz":
        models = _crafted(intact, tmp_path, MODEL_FILE, payload, marker)
    elif case == "outside by ..":
        models = _crafted(intact, tmp_path, "../../../elsewhere/evil.npz", payload, marker)
    elif case == "absolute path":
        models = _crafted(intact, tmp_path, str(outside), payload, marker)
    elif case == "link out":
        outside.parent.mkdir(parents=True)
        outside.write_bytes(payload)
        models = _crafted(intact, tmp_path, "linked.npz", None, marker)
        (models / "synthetic" / "contraction" / "linked.npz").symlink_to(outside)
        sidecar_path = models / "synthetic" / "contraction" / SIDECAR_FILE
        sidecar = json.loads(sidecar_path.read_text())
        sidecar_path.write_text(json.dumps({**sidecar, MANIFEST_KEY: manifest_sha256(outside, sidecar)}))
    else:  # a sidecar of the joblib era, pointing at a pickle with its true hash
        models = _crafted(intact, tmp_path, "forest.joblib", payload, marker)
        sidecar_path = models / "synthetic" / "contraction" / SIDECAR_FILE
        sidecar = json.loads(sidecar_path.read_text())
        del sidecar["format"]
        sidecar[MANIFEST_KEY] = manifest_sha256(sidecar_path.parent / "forest.joblib", sidecar)
        sidecar_path.write_text(json.dumps(sidecar))
    monkeypatch.setenv("MLTUNE_HOME", str(tmp_path))  # tune reads the data home's models/ first
    assert models == tmp_path / "models"
    with pytest.raises(UserError) as err:
        load_model(models, "synthetic", "contraction")
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"refusing the model in {models / 'synthetic' / 'contraction'}")
    # through the ranker too, as `tune --ranker random-forest` makes and starts it: what the manifest shows is
    # refused when the ranker is made (before any work), what only the file's own reading shows when it loads
    problem = matmul_problem(40, 56, 24)
    with pytest.raises(UserError, match="refusing the model"):
        ranker = make_ranker("random-forest", 0, SYNTHETIC_CPU)
        ranker.start(RankingInput(problem, SYNTHETIC_CPU, CpuContraction(problem, SYNTHETIC_CPU, None).candidates()))
    assert not marker.exists(), "the payload ran"
    capsys.readouterr()


def test_the_payload_is_live(tmp_path):
    """The crafted pickle does run code when unpickled: the test above would notice if a loader unpickled it."""
    marker = tmp_path / "pwned"
    pickle.loads(pickle.dumps(_Payload(marker)))
    assert marker.exists()


@pytest.mark.parametrize("learner", ["random-forest", "boosted-trees"])
def test_the_stored_arrays_predict_what_scikit_learn_predicted(learner, tmp_path):
    """Synthetic rows: the numpy walk over the stored arrays gives scikit-learn's predictions, after a save and load,
    for either learner (boosting's sum of trees stored as scaled trees to average)."""
    import numpy as np
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor

    from mltune.learn.learners import LEARNERS, SETTINGS
    from mltune.learn.tree_arrays import TreeEnsemble

    rng = np.random.default_rng(0)
    scale = np.array([1, 10, 1e3, 1e-3, 1, 1])
    rows = rng.normal(size=(600, 6)) * scale
    labels = 2 * rows[:, 0] + np.sin(rows[:, 1]) + 0.1 * rng.normal(size=600)
    estimator = {"random-forest": RandomForestRegressor, "boosted-trees": GradientBoostingRegressor}[learner]
    fitted = estimator(**SETTINGS[learner], random_state=0).fit(rows, labels)
    (tmp_path / "f.npz").write_bytes(LEARNERS[learner](rows, labels, np.zeros(600, dtype=np.int64), 0).to_bytes())
    loaded = TreeEnsemble.load(tmp_path / "f.npz", 6)
    unseen = rng.normal(size=(2000, 6)) * scale
    np.testing.assert_allclose(loaded.predict(unseen), fitted.predict(unseen), rtol=0, atol=1e-9)


def _altered_copy(
    intact: Path,
    root: Path,
    arrays: dict | None = None,
    model_bytes: bytes | None = None,
    sidecar_change=None,
    rehash: bool = True,
) -> Path:
    """A copy of the intact model whose forest arrays, file bytes or sidecar are altered; with `rehash` its manifest
    is recomputed, as someone who can write the folder would."""
    folder = root / "models" / "synthetic" / "contraction"
    shutil.copytree(intact, folder)
    if arrays is not None:
        with np.load(folder / MODEL_FILE) as data:
            stored = {name: data[name] for name in data.files}
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **{**stored, **arrays(stored)})
        (folder / MODEL_FILE).write_bytes(buffer.getvalue())
    if model_bytes is not None:
        (folder / MODEL_FILE).write_bytes(model_bytes)
    sidecar = json.loads((folder / SIDECAR_FILE).read_text())
    if sidecar_change is not None:
        sidecar = sidecar_change(sidecar)
    if rehash:
        sidecar[MANIFEST_KEY] = manifest_sha256(folder / MODEL_FILE, sidecar)
    (folder / SIDECAR_FILE).write_text(json.dumps(sidecar))
    return root / "models"


def _split(stored, which: int = 0) -> int:
    """The `which`-th inner node of the stored forest."""
    return int(np.flatnonzero(stored["left"] != -1)[which])


ALTERATIONS = {
    "truncated forest, manifest updated": ({"model_bytes": "half"}, "not a forest .npz"),
    "feature names reordered in model.json": (
        {"sidecar_change": lambda s: {**s, "feature_names": s["feature_names"][::-1]}, "rehash": False},
        "do not match the SHA-256",
    ),
    "a node its own child": (
        {"arrays": lambda a: {"left": _with(a["left"], _split(a), _split(a))}},
        "not a later node of its own tree",
    ),
    "a child pointing back to the root (a cycle)": (
        {"arrays": lambda a: {"right": _with(a["right"], _split(a, 1), 0)}},
        "not a later node of its own tree",
    ),
    "a leaf with one child": ({"arrays": lambda a: {"left": _with(a["left"], _leaf(a), _leaf(a) + 1)}}, "one child"),
    "a child out of range": (
        {"arrays": lambda a: {"left": _with(a["left"], _split(a), len(a["left"]) + 5)}},
        "out of range",
    ),
    "a child in the next tree": (
        {"arrays": lambda a: {"left": _with(a["left"], _split(a), int(a["roots"][1]))}},
        "not a later node of its own tree",
    ),
    "depth understated": ({"arrays": lambda a: {"depth": a["depth"] - 1}}, "deeper than the recorded depth"),
}


def _leaf(stored) -> int:
    return int(np.flatnonzero(stored["left"] == -1)[0])


def _with(array, index: int, value: int):
    changed = array.copy()
    changed[index] = value
    return changed


@pytest.mark.parametrize("case", list(ALTERATIONS))
def test_a_damaged_model_is_refused_in_one_line(case, intact, tmp_path):
    """Damage that a file hash alone would let through: refused before the forest is used, one line each."""
    options, words = ALTERATIONS[case]
    if options.get("model_bytes") == "half":
        options = {"model_bytes": (intact / MODEL_FILE).read_bytes()[: len((intact / MODEL_FILE).read_bytes()) // 2]}
    models = _altered_copy(intact, tmp_path, **options)
    with pytest.raises(UserError) as err:
        load_model(models, "synthetic", "contraction")
    message = str(err.value)
    assert "\n" not in message and message.startswith("refusing the model") and words in message, message


def test_an_intact_copy_with_its_manifest_loads(intact, tmp_path):
    load_model(_altered_copy(intact, tmp_path), "synthetic", "contraction")


def test_a_damaged_model_folder_is_refused_before_any_compile(tmp_path):
    """The shipped models copied and one file altered: `mltune tune --model-dir` refuses in one line before it
    runs iree-compile once (a stand-in compiler, through MLTUNE_IREE_TOOLS, notes every call), and leaves no
    folder behind."""
    models = tmp_path / "models"
    shutil.copytree(Path(__file__).resolve().parent.parent / "models", models)
    with open(models / "family-cpu" / "contraction" / MODEL_FILE, "ab") as handle:
        handle.write(b"\0")
    tools, calls = tmp_path / "tools", tmp_path / "compiler_calls"
    tools.mkdir()
    (tools / "iree-compile").write_text(f"#!/bin/sh\necho called >> {calls}\nexit 1\n")
    (tools / "iree-compile").chmod(0o755)
    model = Path(__file__).resolve().parent.parent / "examples" / "matmul_f32.mlir"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "tune",
            str(model),
            "--model-dir",
            "models",
            "--run-dir",
            "run",
            "--dataset-dir",
            "datasets",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "MLTUNE_IREE_TOOLS": str(tools)},
    )
    assert result.returncode == 2, result.stderr[-2000:]
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"mltune: error: refusing the model in models{os.sep}family-cpu{os.sep}contraction: ")
    assert not calls.exists(), "iree-compile ran before the damaged model was refused"
    assert not (tmp_path / "run").exists() and not (tmp_path / "datasets").exists()
