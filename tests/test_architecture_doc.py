"""docs/architecture.md's table of op kinds keeps up with the tables that pick each kind's space, features and
heuristic."""

from __future__ import annotations

import re
from pathlib import Path

from mltune.features import EXTRACTORS
from mltune.rankers.gpu_heuristic import ORDERS
from mltune.rankers.heuristic import CPU_ORDERS
from mltune.spaces import configure

ARCHITECTURE = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"


def test_every_op_kind_has_its_row():
    rows = set(re.findall(r"^\| (\w+) \| ", ARCHITECTURE.read_text(), re.MULTILINE))
    kinds = (
        {kind for _, kind in EXTRACTORS}
        | set(CPU_ORDERS)
        | set(ORDERS)
        | set(configure._CPU_SPACES)
        | set(configure._GPU_SPACES)
    )
    assert kinds <= rows, f"op kinds without a row in {ARCHITECTURE.name}: {sorted(kinds - rows)}"
