"""Each op kind end to end (`mltune.tuning.op_kinds`): every kind that a target family has a space for has its
features and its heuristic there, and the architecture page shows the table generated from them."""

from __future__ import annotations

from pathlib import Path

from mltune.tuning.op_kinds import op_kinds, op_kinds_table

ARCHITECTURE = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"


def test_no_op_kind_with_a_space_misses_its_features_or_heuristic():
    kinds = op_kinds()
    assert {"contraction", "convolution", "attention", "reduction", "matvec", "elementwise"} <= set(kinds)
    assert {name: kind.missing() for name, kind in kinds.items() if kind.missing()} == {}


def test_the_architecture_page_shows_every_kind_from_the_code():
    assert "<!-- op-kinds -->" in ARCHITECTURE.read_text()
    table = op_kinds_table()
    assert all(f"| {name} |" in table for name in op_kinds())
    assert "`spaces/cuda_attention.py`" in table and "`features/__init__.py`" in table


def test_a_kind_with_a_space_but_no_heuristic_is_reported():
    """Synthetic: a kind that llvm-cpu has a space for, with features but no heuristic."""
    from mltune.tuning.op_kinds import OpKind

    kind = OpKind(
        "made_up",
        cpu_space=object,
        gpu_space=None,
        gpu_space_without_mma=None,
        cuda_space=None,
        cpu_features=len,
        gpu_features=None,
        cpu_heuristic=None,
        gpu_heuristic=None,
    )
    assert kind.missing() == ["llvm-cpu heuristic"]
