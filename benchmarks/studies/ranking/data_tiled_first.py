"""How early should a CPU contraction's data-tiled builds be measured? The heuristic measures IREE's own data-tiled
build second and the other data-tiled builds (`dt_tile_kib`, `dt_threads`) where its keys put them; on the dense
znver3 problems a data-tiled build was the best on three of four, at positions 10-12 of the heuristic's order.

For every CPU arch under `datasets/`, the heuristic's order on each contraction problem's measured candidates, and
the same order with its first `k` data-tiled builds (those the packing limit allows, in the heuristic's own order)
moved to follow its first candidate. Printed: median / mean 1-based position of the first candidate within 5 % of
the best, per arch, and how many problems a data-tiled build is the best on.

    python benchmarks/studies/ranking/data_tiled_first.py [--dataset-dir datasets]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from statistics import mean, median

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from mltune.learn.pooled import family_archs  # noqa: E402
from mltune.learn.samples import load_dataset  # noqa: E402
from mltune.learn.scoring import first_near_optimal, near_optimal, shuffle_expectation  # noqa: E402
from mltune.rankers.heuristic import PACK_BYTES_PER_FLOP_LIMIT, Heuristic  # noqa: E402

TOLERANCE = 0.05
PROMOTED = (0, 1, 2, 3, 8)  # data-tiled builds moved forward; 0: the heuristic as it is


def promoted(order: np.ndarray, tiled: np.ndarray, k: int) -> np.ndarray:
    """`order` with its first `k` candidates of `tiled` (after its first candidate) moved to follow its first."""
    chosen = [int(i) for i in order[1:] if tiled[i]][:k]
    rest = [int(i) for i in order[1:] if int(i) not in chosen]
    return np.array([int(order[0]), *chosen, *rest])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset-dir", type=Path, default=ROOT / "datasets")
    args = parser.parse_args()
    print(
        "| arch | problems | data-tiled best | shuffle expects | "
        + " | ".join("heuristic" if k == 0 else f"{k} data-tiled after its first" for k in PROMOTED)
        + " |"
    )
    print("| --- " * (4 + len(PROMOTED)) + "|")
    for arch in family_archs(args.dataset_dir, "cpu"):
        problems = [p for p in load_dataset(args.dataset_dir, arch).problems if p.problem.op_kind == "contraction"]
        if not problems:
            continue
        cells, tiled_best, expected = {k: [] for k in PROMOTED}, 0, []
        for samples in problems:
            features = samples.features()
            tiled = features["data_tiled"].astype(bool) & (features["pack_bytes_per_flop"] <= PACK_BYTES_PER_FLOP_LIMIT)
            tiled_best += bool(features["data_tiled"][int(np.argmin(samples.ratios))])
            good = int(near_optimal(samples.ratios, TOLERANCE).sum())
            expected.append(shuffle_expectation(len(samples.ratios), good))
            order = Heuristic(0).order(samples.ranking_input())
            for k in PROMOTED:
                cells[k].append(first_near_optimal(samples.ratios, promoted(order, tiled, k), TOLERANCE))
        print(
            f"| {arch} | {len(problems)} | {tiled_best} | {mean(expected):.2f} | "
            + " | ".join(f"{median(v):.1f} / {mean(v):.2f}" for v in cells.values())
            + " |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
