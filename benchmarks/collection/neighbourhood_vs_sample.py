"""Does IREE's default config lie near the best? Per problem, the best of a local search from the default against the
best of the random sample, from an arch's records.

The local search's records are the `*.neighbours.jsonl[.xz]` files (`collect_dataset.py --ranker
default-neighbourhood`); every other record file of the problem is its sample (seeded shuffles, data-tiled builds).
A candidate's speedup is IREE's default time over its time, as recorded (each file's own baseline, measured in the
same run).

    python benchmarks/collection/neighbourhood_vs_sample.py --arch znver4 [--dataset-dir datasets]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mltune.records.dataset import read_records, record_files, record_ratio  # noqa: E402

NEIGHBOURS = ".neighbours.jsonl"
TOLERANCE = 0.05


def speedups(files: list[Path]) -> list[float]:
    return [
        1 / ratio
        for f in files
        for record in read_records(f)
        if record.get("status") == "ok" and (ratio := record_ratio(record)) not in (0, float("inf"))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", required=True)
    parser.add_argument("--dataset-dir", type=Path, default=ROOT / "datasets")
    args = parser.parse_args()
    by_problem: dict[str, dict[bool, list[Path]]] = defaultdict(lambda: defaultdict(list))
    for f in record_files(args.dataset_dir / args.arch):
        problem = f.name.split(".")[0]
        by_problem[problem][NEIGHBOURS in f.name].append(f)
    print(f"{'problem':<34}{'sample n':>9}{'best':>8}{'neigh. n':>9}{'best':>8}{'median':>8}  best within 5 %")
    ahead = 0
    for problem, files in sorted(by_problem.items()):
        if not files[True]:
            continue
        sample, local = speedups(files[False]), speedups(files[True])
        best = max(sample + local)
        where = [
            name
            for name, values in (("sample", sample), ("neighbourhood", local))
            if max(values) >= best / (1 + TOLERANCE)
        ]
        ahead += max(local) > max(sample) * (1 + TOLERANCE)
        print(
            f"{problem:<34}{len(sample):>9}{max(sample):>7.2f}x{len(local):>9}{max(local):>7.2f}x"
            f"{statistics.median(local):>7.2f}x  {' and '.join(where)}"
        )
    print(f"the neighbourhood's best more than {TOLERANCE:.0%} ahead of the sample's on {ahead} problems")


if __name__ == "__main__":
    main()
