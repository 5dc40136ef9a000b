"""What `mltune runs` / `mltune show` say a finished run reached, read from its summary (synthetic summaries)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mltune.runs.directory import RunState
from mltune.runs.past import PastRun

WINNER = {"dispatches": [{"winner": {"speedup": 1.37}}]}
END_TO_END = {"end_to_end": {"recommended": {"speedup": 1.21}}}


@pytest.mark.parametrize(
    "summary, said",
    [
        ({**WINNER, **END_TO_END, "spec": "best_spec.mlir", "compile_command": "iree-compile ..."}, "1.21x model"),
        (
            {**WINNER, **END_TO_END, "spec": None, "compile_command": "iree-compile ... --iree-opt-data-tiling"},
            "1.21x model",
        ),
        (
            {
                **WINNER,
                "end_to_end": {"recommended": {"speedup": 0.9}},
                "spec": None,
                "compile_command": "",
                "withdrawn": "not surely above 1",
            },
            "nothing kept (withdrawn or refused after the search)",
        ),
        ({"dispatches": [{"winner": None}]}, "no gain kept"),
    ],
)
def test_result_is_what_the_run_recommended(summary, said):
    """A result withdrawn by the final end-to-end timing is not reported as its screening speedup, and a
    flags-only result (data tiling, no spec) reports its end-to-end speedup like a spec does."""
    state = RunState("finished", ("tune",), "", 1, 0.0, 0.0)
    assert PastRun(Path("run"), state, None, summary).result == said
