"""The README's steps as a new user runs them: its Python snippet, from a folder holding what the snippet names."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest
from iree_helpers import run

ROOT = Path(__file__).resolve().parent.parent


def readme_python() -> str:
    (snippet,) = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    return snippet


@pytest.mark.slow
def test_the_readme_python_snippet_runs_and_writes_only_what_it_names(tmp_path):
    """The snippet tunes the example and loads this clone's records: it runs, writes the spec it names (or none,
    when nothing was surely faster) and no `best_spec.mlir`, and the records frame is not empty."""
    (tmp_path / "examples").mkdir()
    shutil.copy(ROOT / "examples" / "matmul_f32.mlir", tmp_path / "examples")
    shutil.copytree(ROOT / "datasets" / "znver4", tmp_path / "datasets" / "znver4")
    code = readme_python() + "\nprint('rows', len(frame))\n"
    result = run([sys.executable, "-c", code], timeout=900, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    rows = int(re.search(r"^rows (\d+)$", result.stdout, re.M).group(1))
    assert rows > 0
    assert not (tmp_path / "best_spec.mlir").exists()
    assert {p.name for p in tmp_path.glob("*.mlir")} <= {"matmul_spec.mlir"}
