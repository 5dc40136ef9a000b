"""What measuring each candidate cost the timing worker, per run and level: the median seconds to load its module
(and make a first call), with their range, and the median of its whole time (load and rounds), from the records'
`load_s` and `worker_s`. A CUDA module that carries PTX is assembled by the driver at load, unless the driver's cache
holds it from an earlier process: the first run of a candidate on a machine pays that, a later run of the same
candidate does not.

    python benchmarks/executors/load_seconds.py benchmarks/results/scaling/h100x4_jit/logs_ab96/*.jsonl.xz
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from actor_timeline import read_jsonl  # noqa: E402 - beside this script


def lines(path: Path) -> list[str]:
    records = read_jsonl(path.with_name(path.name.removesuffix(".xz")))
    found = []
    for level in ("dispatch", "model"):
        timed = [r for r in records if r.get("level") == level and r.get("worker_s")]
        if timed:
            loads = [r["load_s"] for r in timed]
            found.append(
                f"{path.parent.name}/{path.name.split('.')[0]:<18} {level:<8} {len(timed):>4} "
                f"{statistics.median(loads):>8.3f} {min(loads):>6.3f}-{max(loads):<6.3f} "
                f"{statistics.median(r['worker_s'] for r in timed):>8.3f}"
            )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", nargs="+", type=Path, help="runs' record files (.jsonl or .jsonl.xz)")
    args = parser.parse_args()
    print(f"{'run':<32} {'level':<8} {'n':>4} {'load s':>8} {'range':>13} {'worker s':>8}")
    for path in args.records:
        print("\n".join(lines(path)))


if __name__ == "__main__":
    main()
