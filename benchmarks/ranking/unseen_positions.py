"""Positions of the first candidate within 5 % of the best, over runs of `gpu_heuristic_unseen.py` from several calls.

Each call scores its runs against the best that call found; runs of one shape made in other calls (another
ranker, another model) are compared here against the best of all of them. Ratios are each candidate's time over
IREE's default measured beside it on the GPU that ran it, so runs compare across calls on GPUs of one kind.

    python benchmarks/ranking/unseen_positions.py ROWS.json[=LABEL] ...

A call cut short before it wrote its rows is read from its printed output instead (UNSEEN.txt: each finished run's
"ratios in proposal order" line; a run the cut interrupted printed none, and its shape is scored with the runs that
finished).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from gpu_heuristic_unseen import first_within  # this folder is the script's first on sys.path


RATIOS_LINE = re.compile(r"^(\S+) (\S+) on \S+: ratios in proposal order (.*)$")


def read_runs(path: Path) -> list[tuple[str, str, list[float | None]]]:
    """(shape, run, ratios) of a call: from its rows.json, or from the ratio lines it printed."""
    if path.suffix == ".json":
        return [(row["shape"], row["run"], row["ratios"]) for row in json.loads(path.read_text())["rows"]]
    matches = filter(None, map(RATIOS_LINE.match, path.read_text().splitlines()))
    return [(m[1], m[2], [None if r == "inf" else float(r) for r in m[3].split()]) for m in matches]


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    runs = []  # (shape, name, ratios)
    for argument in sys.argv[1:]:
        path, _, label = argument.partition("=")
        runs += [(shape, run + (f" ({label})" if label else ""), ratios)
                 for shape, run, ratios in read_runs(Path(path))]
    for shape in sorted({shape for shape, _, _ in runs}):
        of_shape = [(name, ratios) for s, name, ratios in runs if s == shape]  # None: failed, keeps its place
        best = min(min(r for r in ratios if r) for _, ratios in of_shape)
        print(f"{shape}: best {1 / best:.2f}x")
        for name, ratios in of_shape:
            position = first_within(ratios, best)
            print(f"  {name:<40} {position or 'none':>5}   own best {1 / min(r for r in ratios if r):.2f}x")


if __name__ == "__main__":
    main()
