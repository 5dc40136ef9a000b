"""Draw the problems an arch's dataset keeps out of training for good (`datasets/ARCH/holdout.json`).

Among the arch's contraction problems (the one op kind every dataset has many of), sorted by their FLOPs and cut
into four quarters, one problem of each quarter is drawn at random (seeded): small and large shapes alike are held
out, and no one chose which. Prints the JSON the file holds; `--write` writes it.

    python benchmarks/collection/draw_holdout.py --arch sm_90 [--dataset-dir datasets] [--seed 31] [--write]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mltune.learn.holdout import HOLDOUT_FILE  # noqa: E402
from mltune.learn.samples import load_dataset  # noqa: E402

QUARTERS = 4


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", required=True)
    parser.add_argument("--dataset-dir", type=Path, default=ROOT / "datasets")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    path = args.dataset_dir / args.arch / HOLDOUT_FILE
    if path.exists():
        sys.exit(f"{path} exists: the held-out problems are drawn once")
    problems = [
        p.problem for p in load_dataset(args.dataset_dir, args.arch).problems if p.problem.op_kind == "contraction"
    ]
    problems.sort(key=lambda p: (math.prod(p.bounds), p.key))
    rng = np.random.default_rng(args.seed)
    quarters = np.array_split(np.array(problems, dtype=object), QUARTERS)
    drawn = [str(quarter[rng.integers(len(quarter))].key) for quarter in quarters]
    document = {
        "problems": drawn,
        "why": f"kept out of training for good: one contraction of each quarter by FLOPs, drawn with "
        f"`python benchmarks/collection/draw_holdout.py --arch {args.arch} --seed {args.seed}`",
    }
    text = json.dumps(document, indent=2) + "\n"
    print(text, end="")
    if args.write:
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
