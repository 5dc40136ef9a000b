"""What a dataset folder shows, per record file: how many candidates ran, and the best and median candidate's speed
over IREE's default measured with it (1 / `record_ratio`: > 1 is faster), with the baseline's own spread over the
rounds of one record (records of one round, a slow candidate's, left out) and the cores other processes kept busy.

A README's "what it shows" line is read off this table, so every number in it comes from the records.

    python benchmarks/collection/dataset_summary.py datasets/rocketlake
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from mltune.records.dataset import read_records, record_files, record_ratio


def spread(values: list[float]) -> float:
    """(max - min) / median of one record's baseline rounds."""
    return (max(values) - min(values)) / statistics.median(values)


def busy(records: list[dict]) -> str:
    """The median and the most, over rounds, of the cores other processes kept busy (records that carry it)."""
    rounds = [cores for r in records for cores in r.get("busy_cores") or []]
    return f"{statistics.median(rounds):.2f} ({max(rounds):.2f})" if rounds else "-"


def row(file: Path) -> str:
    records = list(read_records(file))
    ran = [r for r in records if r["status"] == "ok"]
    speeds = sorted(1 / record_ratio(r) for r in ran)
    noise = statistics.median([spread(r["baseline_us"]) for r in ran if len(r["baseline_us"]) > 1] or [0.0])
    problem = ran[0]["problem"] if ran else records[0]["problem"]
    return (
        f"| {file.name.split('.')[0]} | {problem['op_kind']} | {len(records)} | {len(ran)} | "
        f"{speeds[-1]:.2f}x | {statistics.median(speeds):.2f}x | {speeds[0]:.2f}x | "
        f"{sum(s > 1 for s in speeds)} | {100 * noise:.0f} % | {busy(ran)} |"
    )


def main() -> int:
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_dir():
        print("usage: dataset_summary.py DATASET_ARCH_FOLDER", file=sys.stderr)
        return 2
    print(
        "| problem | op kind | records | ran | best | median | worst | faster than IREE's default | "
        "baseline spread in a record (median) | busy cores, median (max) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for file in record_files(Path(sys.argv[1])):
        print(row(file))
    return 0


if __name__ == "__main__":
    sys.exit(main())
