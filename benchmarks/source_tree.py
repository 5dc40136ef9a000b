"""Which checkout's mltune a benchmark's child processes import."""

from __future__ import annotations

import os
from pathlib import Path


def python_path_first(tree: Path) -> str:
    """A PYTHONPATH with `tree` first, so children import that checkout's mltune; what the path held stays after
    it (where IREE or Ray may have been installed with `pip --target`)."""
    return os.pathsep.join(filter(None, [str(tree), os.environ.get("PYTHONPATH")]))
