"""Positions of the first candidate within 5 % of the best, over runs of `gpu_heuristic_unseen.py` from several calls.

Each call scores its runs against the best that call found; runs of one shape made in other calls (another
ranker, another model) are compared here against the best of all of them. Ratios are each candidate's time over
IREE's default measured beside it on the GPU that ran it, so runs compare across calls on GPUs of one kind.

    python benchmarks/ranking/unseen_positions.py ROWS.json[=LABEL] ...

A call cut short before it wrote its rows is read from its printed output instead (UNSEEN.txt: each finished run's
"ratios in proposal order" line; a run the cut interrupted printed none, and its shape is scored with the runs that
finished). A dataset's record file (`datasets/ARCH/SHAPE[.SUFFIX].jsonl.xz`, e.g. a collection's seeded shuffle) is
read as one run of SHAPE in the order it was measured, named `records` and its suffix. A folder that `--keep` made
(KEEP/SHAPE/RUN/results.jsonl) is read run by run from its records: a candidate that built to IREE's default module
is then left out, as the budget left it out (the rows and printed ratios count it as a failure).
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

# this folder is the script's first on sys.path; importing it puts the repository's root there too
from gpu_heuristic_unseen import first_within, ratios_in_order

from mltune.records.dataset import RECORD_SUFFIXES, read_records

RATIOS_LINE = re.compile(r"^(\S+) (\S+) on \S+: ratios in proposal order (.*)$")


def read_runs(path: Path) -> list[tuple[str, str, list[float | None]]]:
    """(shape, run, ratios) of a call: from its rows.json, its kept runs, or the ratio lines it printed; or of a record
    file."""
    if path.is_dir():
        return [
            (results.parent.parent.name, results.parent.name, ratios_in_order(list(read_records(results))))
            for results in sorted(path.glob("*/*/results.jsonl"))
        ]
    if path.name.endswith(RECORD_SUFFIXES):
        shape, _, suffix = path.name.removesuffix(".xz").removesuffix(".jsonl").partition(".")
        return [(shape, f"records {suffix}".strip(), ratios_in_order(list(read_records(path))))]
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
        runs += [
            (shape, run + (f" ({label})" if label else ""), ratios) for shape, run, ratios in read_runs(Path(path))
        ]
    reached: dict[str, list[tuple[int | None, int, float]]] = defaultdict(list)
    for shape in sorted({shape for shape, _, _ in runs}):
        of_shape = [(name, ratios) for s, name, ratios in runs if s == shape]  # None: failed, keeps its place
        best = min(min(r for r in ratios if r) for _, ratios in of_shape)
        budget = min(len(ratios) for _, ratios in of_shape)
        print(f"{shape}: best {1 / best:.2f}x")
        for name, ratios in of_shape:
            position = first_within(ratios, best)
            fastest = min((r for r in ratios[:budget] if r), default=float("inf"))
            kept = max(1.0, 1 / fastest)  # nothing faster than IREE's default: the default stays
            reached[name].append((position, len(ratios), kept))
            print(f"  {name:<40} {position or 'none':>5}   own best {1 / min(r for r in ratios if r):.2f}x")
    print(
        "per run: shapes where it came within 5 % of the best, the mean position with 'none' read as the "
        "candidates it tried + 1 (a lower bound), and the geometric mean speedup the user keeps within the fewest "
        "candidates any run of the shape tried (at least 1.0: IREE's default stays where nothing beats it)"
    )
    for name, found in reached.items():
        mean = statistics.mean(position or tried + 1 for position, tried, _ in found)
        kept = statistics.geometric_mean(speedup for _, _, speedup in found)
        print(
            f"  {name:<40} {sum(bool(position) for position, _, _ in found)} of {len(found)}, mean {mean:.2f}, "
            f"kept {kept:.3f}x"
        )


if __name__ == "__main__":
    main()
