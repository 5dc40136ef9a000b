"""What each kept run of `gpu_heuristic_unseen.py --keep` emitted: its whole-model speedup over IREE's default, as
`mltune runs` reads it (`mltune.runs.past.emitted_speedup`).

A position within 5 % of the best scores one screening reading per candidate (three rounds); what a user gets is the
result mltune emitted, re-measured at the end of the run (15 rounds, alternating with IREE's default build). A run
that kept nothing leaves IREE's default: 1.0x.

    python benchmarks/ranking/emitted_speedups.py KEEP[=LABEL] ...
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mltune.runs.past import emitted_speedup  # noqa: E402


def emitted(summary: dict) -> float:
    """The speedup of what the run emitted; 1.0 where it kept IREE's default."""
    speedup = emitted_speedup(summary)
    return 1.0 if speedup is None else float(speedup)


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    speedups: dict[str, dict[str, float]] = defaultdict(dict)  # run -> shape -> speedup
    for argument in sys.argv[1:]:
        folder, _, label = argument.partition("=")
        for path in sorted(Path(folder).glob("*/*/summary.json")):
            run = path.parent.name + (f" ({label})" if label else "")
            speedups[run][path.parent.parent.name] = emitted(json.loads(path.read_text()))
    shapes = sorted({shape for of_run in speedups.values() for shape in of_run})
    runs = list(speedups)
    print("shape".ljust(34) + "".join(run[:24].rjust(26) for run in runs))
    for shape in shapes:
        print(
            shape.ljust(34)
            + "".join((f"{speedups[run][shape]:.2f}x" if shape in speedups[run] else "-").rjust(26) for run in runs)
        )
    print("per run: geometric mean over the shapes it ran, and the shapes where it emitted more than 1.03x")
    for run in runs:
        values = list(speedups[run].values())
        print(
            f"  {run:<40} {statistics.geometric_mean(values):.3f}x over {len(values)}, "
            f"{sum(v > 1.03 for v in values)} above 1.03x"
        )


if __name__ == "__main__":
    main()
