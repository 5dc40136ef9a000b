"""Per screened dispatch of a run: the screen's best ratio, and each finalist's screen ratio next to its whole-model
ratio (the model stage times one finalist in the model at a time, so its ratio is the whole model's).

    python benchmarks/whole_models/screen_vs_model.py RUN_DIR/results.jsonl [...]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from mltune.frontend.problem import Problem
from mltune.records.dataset import read_records


def _ratio(record: dict) -> float:
    return statistics.median(record["baseline_us"]) / statistics.median(record["time_us"])


def compare(results: Path) -> list[str]:
    by_problem: dict[str, dict] = {}
    for record in read_records(results):
        if record.get("status") != "ok" or not record.get("time_us"):
            continue
        entry = by_problem.setdefault(Problem.from_record(record["problem"]).key, {"screen": [], "model": {}})
        knobs = json.dumps(record["knobs"], sort_keys=True)
        if record.get("screen"):
            entry["screen"].append((_ratio(record), knobs))
        else:
            entry["model"][knobs] = _ratio(record)
    lines = []
    for name, entry in by_problem.items():
        screened = sorted(entry["screen"], reverse=True)
        pairs = ", ".join(f"{s:.2f}->{entry['model'][k]:.2f}" for s, k in screened if k in entry["model"])
        best = f"{screened[0][0]:.2f}" if screened else "none"
        lines.append(f"  {name:75s} screen best {best}  finalists (screen->model): {pairs}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", type=Path)
    for path in parser.parse_args().results:
        print(path)
        print("\n".join(compare(path)))


if __name__ == "__main__":
    main()
