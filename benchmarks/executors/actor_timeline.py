"""Where a Ray run's benchmark actors spent the tuning loop: each actor's calls, and each group's records over time.

Reads what `scaling.py --logs DIR` keeps of a Ray run: its records (`NAME.jsonl`) and the spans of its actor calls
and compile tasks (`NAME.timeline.json`, from `ray.timeline`). Times are seconds from the loop's first record.
Printed per run: the loop's span, the compile tasks' durations, each actor's calls (`p`: a timing worker started
early for a group being compiled) with its busy time in the loop, and each group's record times (screens by
their problem's sizes, `model` for the whole-model stage), with the actor-seconds per screened candidate and, where
the records say it, the timing workers' own seconds per candidate.

    python benchmarks/executors/actor_timeline.py benchmarks/results/scaling/h100x4_kept/logs_one96 ray-4dev-0 ray-1dev-0
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scaling import ACTOR_CALLS, compact_timeline  # noqa: E402 - beside this script

from mltune.records.dataset import read_records  # noqa: E402


def read_jsonl(path: Path) -> list[dict]:
    """A run's records, from `path` or, kept compressed, from `path.xz`."""
    return list(read_records(path if path.exists() else path.with_name(path.name + ".xz")))


def report(folder: Path, name: str) -> list[str]:
    records = read_jsonl(folder / f"{name}.jsonl")
    spans = compact_timeline(json.loads((folder / f"{name}.timeline.json").read_text()))
    start = min(r["timestamp"] for r in records)
    end = max(r["timestamp"] for r in records) - start
    compiles = sorted(s["dur"] / 1e6 for s in spans if s["name"].endswith("compile_candidate"))
    lines = [
        f"{name}: loop {end:.1f} s, {len(records)} records; {len(compiles)} compiles, median "
        f"{statistics.median(compiles):.2f} s (10-90 %: {compiles[len(compiles) // 10]:.2f}-"
        f"{compiles[9 * len(compiles) // 10]:.2f} s)"
    ]
    screened = [r["timestamp"] - start for r in records if r.get("screen")]
    screens_end = max(screened, default=0.0)
    actors: dict[str, list[tuple[float, float, str]]] = {}
    for span in spans:
        if span["name"] in ACTOR_CALLS:
            begin = span["ts"] / 1e6 - start
            actors.setdefault(span["tid"], []).append((begin, begin + span["dur"] / 1e6, span["name"]))
    in_screens = 0.0
    for number, calls in enumerate(actors.values()):
        calls.sort()
        busy = sum(max(0.0, min(b, end) - max(a, 0.0)) for a, b, _ in calls)
        in_screens += sum(max(0.0, min(b, screens_end) - max(a, 0.0)) for a, b, _ in calls)
        lines.append(
            f"  actor {number}: busy {busy:.1f} of {end:.1f} s; calls "
            + " ".join(f"{a:.1f}-{b:.1f}{'p' if kind == 'prepare' else ''}" for a, b, kind in calls)
        )
    if screened:
        lines.append(
            f"  screens end at {screens_end:.1f} s: {in_screens / len(screened):.2f} actor-seconds per "
            f"screened candidate ({len(screened)})"
        )
        lines += worker_seconds([r for r in records if r.get("screen")])
    groups: dict[str, list[float]] = {}
    for record in sorted(records, key=lambda r: r["timestamp"]):
        label = f"{record.get('screen') or 'model'} {'x'.join(map(str, record['problem']['bounds']))}"
        groups.setdefault(label, []).append(record["timestamp"] - start)
    for label, times in groups.items():
        lines.append(f"  {label:<24} {len(times):>3}: " + " ".join(f"{t:.1f}" for t in times))
    return lines


def worker_seconds(records: list[dict]) -> list[str]:
    """What the timing workers spent on these records' candidates (records that say so): the median per candidate,
    of which the module's load and first call, and the rounds measured again as disturbed."""
    timed = [r for r in records if r.get("worker_s")]
    if not timed:
        return []
    return [
        f"  timing worker per candidate: median {statistics.median(r['worker_s'] for r in timed):.3f} s, load "
        f"{statistics.median(r['load_s'] for r in timed):.3f} s; total {sum(r['worker_s'] for r in timed):.1f} s; "
        f"rounds retried {sum(r.get('retried_rounds', 0) for r in timed)} ({len(timed)} candidates)"
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="a scaling.py --logs folder")
    parser.add_argument("runs", nargs="+", help="run names, e.g. ray-4dev-0")
    args = parser.parse_args()
    for name in args.runs:
        print("\n".join(report(args.folder, name)))


if __name__ == "__main__":
    main()
