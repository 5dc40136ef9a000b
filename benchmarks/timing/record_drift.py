"""The same configs measured twice: do recorded speedups over IREE's default hold on another day or machine?

Every candidate of a later run (`results.jsonl` of a tuning run, e.g. a seeded shuffle replaying a collection's
order) whose problem and knobs match a record of the earlier files (a dataset's `PROBLEM*.jsonl.xz`) is paired with
it. Per problem: how many configs matched, the median of earlier speedup / later speedup (1.00: it held; 1.20: the
earlier reading was 20 % more favourable) with its range, and each side's median default time. Ratios against
IREE's default are what rankers are scored on, so a drift above the 5 % tolerance means that positions must not be
scored against a best measured elsewhere.

    python benchmarks/timing/record_drift.py --earlier RECORDS ... --later RESULTS.jsonl ...
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mltune.frontend.problem import Problem  # noqa: E402
from mltune.records.dataset import read_records, record_ratio  # noqa: E402


def speedups(paths: list[Path]) -> tuple[dict[tuple[str, str], float], dict[str, list[float]]]:
    """(problem key, knobs) -> default time / candidate time over the measured records of `paths`, and each problem's
    default times; a config measured more than once keeps its median."""
    by_config: dict[tuple[str, str], list[float]] = defaultdict(list)
    defaults: dict[str, list[float]] = defaultdict(list)
    for path in paths:
        for record in read_records(path):
            if record["status"] != "ok":
                continue
            key = Problem.from_record(record["problem"]).key
            by_config[key, json.dumps(record["knobs"], sort_keys=True)].append(1 / record_ratio(record))
            defaults[key].append(statistics.median(record["baseline_us"]))
    return {config: statistics.median(values) for config, values in by_config.items()}, defaults


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--earlier", type=Path, nargs="+", required=True)
    parser.add_argument("--later", type=Path, nargs="+", required=True)
    args = parser.parse_args()
    earlier, earlier_defaults = speedups(args.earlier)
    later, later_defaults = speedups(args.later)
    matched: dict[str, list[float]] = defaultdict(list)
    for (problem, knobs), speedup in later.items():
        if (problem, knobs) in earlier:
            matched[problem].append(earlier[problem, knobs] / speedup)
    print(f"{'problem':<44} {'configs':>7} {'earlier / later speedup':>24} {'default us, earlier / later':>28}")
    for problem, drift in sorted(matched.items()):
        before, after = statistics.median(earlier_defaults[problem]), statistics.median(later_defaults[problem])
        print(
            f"{problem:<44} {len(drift):>7} {statistics.median(drift):>9.3f} ({min(drift):.2f}-{max(drift):.2f})"
            f" {before:>15.0f} / {after:.0f}"
        )
    everything = [d for drift in matched.values() for d in drift]
    if everything:
        print(
            f"all {len(everything)} configs: median {statistics.median(everything):.3f}, "
            f"{sum(abs(d - 1) > 0.05 for d in everything)} drifted by more than 5 %"
        )


if __name__ == "__main__":
    main()
