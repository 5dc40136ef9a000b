"""How far one screening reading can be trusted, per arch: configs the dataset measured more than once, and how far
their readings (speedup over IREE's default, each record's median) agree.

A replay scores a ranker against each problem's best reading; on most archs that best is one screening of 3 rounds.
Where configs were measured again (another run, a seed, a finalist's re-measure), the spread of their readings says
how much a single reading can be off. Printed per arch: the configs with several readings and the median and 10th
percentile of min / max reading, the share agreeing within 5 %; the same for the configs whose best reading is within
5 % of their problem's best (the ones that decide positions). Configs are matched as training pools them (problem
and knobs, a knob added later taking its old value).

    python benchmarks/timing/repeat_agreement.py [--dataset-dir datasets] [--archs sm_90,znver4,...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mltune.records.dataset import LATER_KNOBS, knobs_over, read_records, record_ratio  # noqa: E402

TOLERANCE = 0.05


def config_key(record: dict) -> tuple[str, str]:
    """(problem, knobs) of a record, a knob added later taking its old value, as training pools configs."""
    knobs = knobs_over(record["knobs"], {*record["knobs"], *LATER_KNOBS})
    return json.dumps(record["problem"], sort_keys=True), json.dumps(knobs, sort_keys=True)


def readings_by_config(folder: Path) -> dict[tuple[str, str], list[float]]:
    """(problem, knobs) -> every ok record's speedup over IREE's default."""
    readings: dict[tuple[str, str], list[float]] = defaultdict(list)
    for record in read_records(folder):
        ratio = record_ratio(record)  # time / default: a record with no usable round reads inf and is left out
        if record["status"] == "ok" and ratio < float("inf"):
            readings[config_key(record)].append(1 / ratio)
    return readings


def agreement(spreads: list[float]) -> str:
    if not spreads:
        return "none | - | - | -"
    spreads = sorted(spreads)
    within = sum(spread >= 1 - TOLERANCE for spread in spreads) / len(spreads)
    return f"{len(spreads)} | {statistics.median(spreads):.3f} | {spreads[len(spreads) // 10]:.3f} | {within:.0%}"


def row(arch: str, readings: dict[tuple[str, str], list[float]]) -> str:
    best: dict[str, float] = defaultdict(float)
    for (problem, _), values in readings.items():
        best[problem] = max(best[problem], max(values))
    repeated = {config: values for config, values in readings.items() if len(values) > 1}
    spreads = [min(values) / max(values) for values in repeated.values()]
    fast = [
        min(values) / max(values)
        for (problem, _), values in repeated.items()
        if max(values) >= (1 - TOLERANCE) * best[problem]
    ]
    return f"| {arch} | {len(readings)} | {agreement(spreads)} | {agreement(fast)} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset-dir", type=Path, default=Path("datasets"))
    parser.add_argument("--archs", default=None, help="comma-separated (default: every arch folder)")
    args = parser.parse_args()
    archs = args.archs.split(",") if args.archs else sorted(p.name for p in args.dataset_dir.iterdir() if p.is_dir())
    missing = [arch for arch in archs if not (args.dataset_dir / arch).is_dir()]
    if missing:
        print(f"repeat_agreement.py: no dataset folder {', '.join(missing)} under {args.dataset_dir}", file=sys.stderr)
        return 2
    print(
        "| arch | configs | measured again | min / max, median | 10th percentile | within 5 % "
        "| of them near their problem's best | median | 10th percentile | within 5 % |"
    )
    print("| --- " * 10 + "|")
    for arch in archs:
        print(row(arch, readings_by_config(args.dataset_dir / arch)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
