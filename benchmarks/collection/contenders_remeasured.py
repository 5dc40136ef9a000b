"""Do the best readings of an arch's records survive a re-measure? Per problem, the labels before and after the
contenders' re-measure (`collect_dataset.py --ranker contenders`), read as training and `evaluate` read them.

A candidate's label is the median over all its records' rounds (`mltune.records.dataset.pooled_ratio`); "before"
leaves out the files of the re-measure (`*SUFFIX.jsonl[.xz]` and `*SUFFIX.finals.jsonl[.xz]`). Per problem: the best
candidate before, its speedup before and in the re-measure alone; the best after; how many candidates lie within 5 %
of the best (k) and what shuffle then expects, (n + 1) / (k + 1), before and after.

    python benchmarks/collection/contenders_remeasured.py --arch znver4 [--suffix .confirm] [--dataset-dir datasets]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mltune.records.dataset import pooled_ratio, read_records, record_files  # noqa: E402

TOLERANCE = 0.05


def labels(records: dict[str, list[dict]]) -> dict[str, float]:
    """Each config's speedup over IREE's default (its records' rounds pooled); configs with no usable round left out."""
    speedups = {config: 1 / pooled_ratio(rs) for config, rs in records.items()}
    return {config: speedup for config, speedup in speedups.items() if speedup > 0}


def near_best(speedups: dict[str, float]) -> int:
    best = max(speedups.values())
    return sum(speedup >= best / (1 + TOLERANCE) for speedup in speedups.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", required=True)
    parser.add_argument("--suffix", default=".confirm", help="the re-measure's run suffix")
    parser.add_argument("--dataset-dir", type=Path, default=ROOT / "datasets")
    args = parser.parse_args()
    before: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    again: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for f in record_files(args.dataset_dir / args.arch):
        problem, remeasure = f.name.split(".")[0], f".{args.suffix.strip('.')}." in f.name
        for record in read_records(f):
            if record.get("status") == "ok":
                config = json.dumps(record["knobs"], sort_keys=True)
                (again if remeasure else before)[problem][config].append(record)
    print(
        f"{'problem':<34}{'best before':>12}{'re-measured':>12}{'best after':>11}{'same':>6}"
        f"{'k before':>9}{'k after':>8}{'shuffle before':>15}{'after':>7}"
    )
    kept = 0
    problems = [problem for problem in sorted(before) if problem in again]
    for problem in problems:
        old = labels(before[problem])
        merged = {config: before[problem][config] + again[problem].get(config, []) for config in before[problem]}
        new = labels({**merged, **{c: rs for c, rs in again[problem].items() if c not in merged}})
        old_best, new_best = max(old, key=old.get), max(new, key=new.get)
        retimed = labels({old_best: again[problem][old_best]}) if old_best in again[problem] else {}
        survives = new[old_best] >= new[new_best] / (1 + TOLERANCE)
        kept += survives
        k_old, k_new = near_best(old), near_best(new)
        print(
            f"{problem:<34}{old[old_best]:>11.2f}x"
            f"{(f'{retimed[old_best]:.2f}x' if retimed else 'not'):>12}{new[new_best]:>10.2f}x"
            f"{'yes' if survives else 'no':>6}{k_old:>9}{k_new:>8}"
            f"{(len(old) + 1) / (k_old + 1):>15.1f}{(len(new) + 1) / (k_new + 1):>7.1f}"
        )
    print(f"the best before still within {TOLERANCE:.0%} of the best after on {kept} of {len(problems)} problems")


if __name__ == "__main__":
    main()
