"""Positions of live runs scored against pooled bests: every config's speedup is the median over all rounds of all
its records (screenings, finalists' re-measures, other runs, a dense sample), as training labels it.

`unseen_positions.py` scores each run against the best single screening any run read (3 rounds). On a noisy CPU a
lucky screening can set a best no re-measure confirms, and then every run that did not meet that luck reads 'none'.
Here a config re-measured as a finalist (9-30 rounds) weighs by its rounds, so the best is what holds.

Inputs: kept folders of `gpu_heuristic_unseen.py --keep` (KEEP/SHAPE/RUN/results.jsonl, the run's order; its
records with the finalists' re-measures in KEEP/SHAPE/datasets-RUN/) and dataset folders of the same shapes (e.g. a
dense random sample, `collect_dataset.py`): each record file there is pooled too and read as one more run in the order
it was measured. Printed per shape: the best pooled speedup and its rounds, each run's position of the first
config within 5 % of it, and, from the record files, shuffle's expectation (n + 1) / (k + 1) over their distinct
configs; per run, the shapes reached and the mean position ('none' read as the candidates tried + 1).

    python benchmarks/ranking/pooled_live_positions.py --keep KEEP [--keep ...] [--records D/znver4 ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from timing.repeat_agreement import config_key  # noqa: E402

from mltune.execution.build import NOT_APPLIED  # noqa: E402
from mltune.frontend.problem import Problem  # noqa: E402
from mltune.learn.scoring import shuffle_expectation  # noqa: E402
from mltune.records.dataset import pooled_ratio, read_records, record_files, record_rounds  # noqa: E402

TOLERANCE = 1.05
Key = tuple[str, str]


def shape_of(key: Key) -> str:
    return key[0]


def runs_of(keeps: list[Path], record_dirs: list[Path]) -> tuple[list[tuple[str, list[Key]]], list[dict]]:
    """(run name, its configs in the order it measured them) of every run, and every record to pool."""
    runs, pooled = [], []
    for keep in keeps:
        for results in sorted(keep.glob("*/*/results.jsonl")):
            trials = sorted(
                (r for r in read_records(results) if r["status"] != NOT_APPLIED), key=lambda r: r["position"]
            )
            runs.append((results.parent.name, [config_key(r) for r in trials]))
            pooled += read_records(results.parent.parent / f"datasets-{results.parent.name}")
    for folder in record_dirs:
        for file in record_files(folder):
            records = list(read_records(file))
            pooled += records
            suffix = file.name.removesuffix(".xz").removesuffix(".jsonl").partition(".")[2]
            if not suffix.endswith("finals"):  # a re-measure file is pooled, but it is no run's order
                runs.append(
                    (f"records {suffix}".strip(), [config_key(r) for r in records if r["status"] != NOT_APPLIED])
                )
    return runs, pooled


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, action="append", default=[])
    parser.add_argument("--records", type=Path, action="append", default=[])
    args = parser.parse_args()
    missing = [str(p) for p in args.keep + args.records if not p.is_dir()]
    if missing or not args.keep:
        print(
            f"pooled_live_positions.py: {'no folder ' + ', '.join(missing) if missing else 'no --keep'}",
            file=sys.stderr,
        )
        return 2
    runs, records = runs_of(args.keep, args.records)
    by_config: dict[Key, list[dict]] = defaultdict(list)
    for record in records:
        if record["status"] == "ok":
            by_config[config_key(record)].append(record)
    ratio = {key: pooled_ratio(group) for key, group in by_config.items()}  # time / default, inf: no usable round
    rounds = {key: sum(len(record_rounds(r)) for r in group) for key, group in by_config.items()}
    reached: dict[str, list[int | None]] = defaultdict(list)
    tried: dict[str, list[int]] = defaultdict(list)
    for shape in sorted({shape_of(key) for key in ratio}):
        best = min((key for key in ratio if shape_of(key) == shape), key=ratio.get)
        within = {key for key in ratio if shape_of(key) == shape and ratio[key] <= ratio[best] * TOLERANCE}
        sampled = {key for name, order in runs if name.startswith("records") for key in order if shape_of(key) == shape}
        expected = shuffle_expectation(len(sampled), len(sampled & within)) if sampled else float("nan")
        problem = Problem.from_record(json.loads(shape)).key
        print(
            f"{problem}\n  best {1 / ratio[best]:.2f}x over {rounds[best]} rounds; {len(within)} configs within 5 %; "
            f"a shuffle of the {len(sampled)} sampled expects {expected:.1f}"
        )
        for name, order in runs:
            mine = [key for key in order if shape_of(key) == shape]
            if not mine:
                continue
            position = next((i + 1 for i, key in enumerate(mine) if key in within), None)
            reached[name].append(position)
            tried[name].append(len(mine))
            print(f"  {name:<24} {position or 'none':>5}")
    print("per run: shapes within 5 % of the pooled best, mean position ('none' read as the candidates tried + 1)")
    for name, positions in reached.items():
        mean = statistics.mean(p or n + 1 for p, n in zip(positions, tried[name]))
        print(f"  {name:<24} {sum(p is not None for p in positions)} of {len(positions)}, mean {mean:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
