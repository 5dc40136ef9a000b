"""The committed frontend exports compile and run with the plain IREE tools.

examples/models/exported/ holds torch models exported through iree-turbine and through ONNX, and a JAX block.

No torch here: the files are checked as a user without the exporters gets them, through `iree-compile`
for llvm-cpu and `iree-run-module` fed by each export's own flags file (run from the flags file's folder,
the convention examples/export/export_models.py documents).
"""

from __future__ import annotations

import filecmp
import importlib.util
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from iree_helpers import CPU_FLAGS

from mltune.system.tools import tool_path

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent
EXPORTED = ROOT / "examples" / "models" / "exported"
STEMS = ("bert", "gpt2", "vit", "resnet50", "mobilenet_v2", "bert_params", "bert_onnx", "jax_block")
BERT_ROUTES = ("bert", "bert_params", "bert_onnx")  # one seeded BERT: inlined, .irpa, through ONNX
MAX_TOTAL_BYTES = 8_000_000  # the repository travels to test machines: the examples stay small


def _compile_and_run(stem: str, work: Path) -> np.ndarray:
    """Compiles STEM.mlir and runs it with STEM.flags as the only model flags; returns its one result."""
    vmfb, output = work / f"{stem}.vmfb", work / f"{stem}.out.npy"
    subprocess.run(
        [tool_path("iree-compile"), str(EXPORTED / f"{stem}.mlir"), *CPU_FLAGS, "-o", str(vmfb)],
        check=True,
        capture_output=True,
        text=True,
    )
    subprocess.run(
        [
            tool_path("iree-run-module"),
            f"--module={vmfb}",
            "--device=local-task",
            f"--flagfile={stem}.flags",
            f"--output=@{output}",
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=EXPORTED,
    )
    return np.load(output)


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, np.ndarray]:
    work = tmp_path_factory.mktemp("exported")
    with ThreadPoolExecutor(max_workers=2) as pool:
        outputs = pool.map(lambda stem: _compile_and_run(stem, work), STEMS)
        return dict(zip(STEMS, outputs))


def test_every_export_has_its_files():
    assert sorted(p.stem for p in EXPORTED.glob("*.mlir")) == sorted(STEMS)
    for stem in STEMS:
        for line in (EXPORTED / f"{stem}.flags").read_text().splitlines():
            if line.startswith("--input=@"):
                assert (EXPORTED / line.removeprefix("--input=@")).is_file(), line
            elif line.startswith("--parameters="):
                assert (EXPORTED / line.split("=", 2)[2]).is_file(), line
            else:
                assert line.startswith("--function="), line
    assert sum(p.stat().st_size for p in EXPORTED.iterdir()) < MAX_TOTAL_BYTES


def test_text_inputs_are_valid_token_ids():
    vocab_size = 512  # the tiny preset's vocabulary
    for stem in ("bert", "gpt2", "bert_params", "bert_onnx"):
        ids = np.load(EXPORTED / f"{stem}.input0.npy")
        assert ids.dtype == np.int64 and ids.shape == (1, 32)
        assert 0 <= ids.min() and ids.max() < vocab_size


@pytest.mark.slow  # 10 s: every committed export compiled and run
@pytest.mark.parametrize("stem", STEMS)
def test_export_compiles_and_runs(results, stem):
    result = results[stem]
    assert result.dtype == np.float32 and result.size > 0
    assert np.isfinite(result).all()
    assert result.std() > 0, "a constant result means the weights or the input did not arrive"


@pytest.mark.slow  # shares the compiled exports
def test_bert_routes_agree(results):
    """The same seeded BERT exported three ways computes the same hidden states."""
    reference = results[BERT_ROUTES[0]]
    for stem in BERT_ROUTES[1:]:
        np.testing.assert_allclose(results[stem], reference, rtol=1e-4, atol=1e-4)


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@pytest.mark.slow
@pytest.mark.parametrize(
    "script, exporters", [("export_models.py", ("iree.turbine", "transformers", "onnx")), ("export_jax.py", ("jax",))]
)
def test_committed_exports_are_what_the_scripts_write(tmp_path, script, exporters):
    """The examples are reproducible: the export scripts, seeded, write the committed files byte for byte."""
    if not all(_installed(m) for m in exporters):
        pytest.skip(f"{script} needs {', '.join(exporters)} (pip install 'mltune[export]')")
    subprocess.run(
        [sys.executable, str(ROOT / "examples" / "export" / script), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
        text=True,
    )
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written, f"{script} wrote nothing"
    _, mismatch, errors = filecmp.cmpfiles(tmp_path, EXPORTED, written, shallow=False)
    assert (mismatch, errors) == ([], [])
