"""What the configs' check inside the model saw: for each build it profiled (the build with all configs, then the
halves), the speedup over the build with none of the dispatches no config touches, of the dispatches outside that
build's configs, of the build's own configs' dispatches and of the whole model's, per round and their median.

    python benchmarks/whole_models/check_profiles.py RUN_DIR

RUN_DIR is a finished `mltune tune` run of a model on llvm-cpu (`run/`): its `profile.json` maps dispatches to
problems, `candidates/verify_*/spec.mlir` name each build's configs, `in_model_check/profiles/` holds the captures."""

from __future__ import annotations

import argparse
import json
import re
import statistics
from collections import defaultdict
from pathlib import Path

from mltune.whole_model.in_model import PROFILED_CALLS, function_times, read_capture
from mltune.whole_model.in_model_timer import ROUNDS


def problem_totals(capture: Path, problem_of: dict[str, str]) -> dict[str | None, float]:
    totals: dict[str | None, float] = defaultdict(float)
    for time in function_times(read_capture(capture), PROFILED_CALLS):
        totals[next((key for prefix, key in problem_of.items() if time.function.startswith(prefix)), None)] += (
            time.total_us
        )
    return totals


def configs_of(spec: Path) -> set[str]:
    return set(re.findall(r"@match_([A-Za-z0-9_]+)", spec.read_text()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    run = parser.parse_args().run_dir
    problem_of = {
        row["name"].split("_embedded")[0] + "_": row["problem_key"]
        for row in json.loads((run / "profile.json").read_text())
    }
    profiles = run / "in_model_check" / "profiles"
    every = configs_of(run / "candidates" / "verify_all" / "spec.mlir")
    rows: dict[tuple[int, str], list[tuple[float, ...]]] = defaultdict(list)
    builds: dict[tuple[int, str], set[str]] = {}
    for reference in sorted(profiles.glob("*_reference"), key=lambda p: int(p.name.split("_")[0])):
        round_ = int(reference.name.split("_")[0])
        level = round_ // ROUNDS
        without = problem_totals(reference / "model.ireeprof", problem_of)
        for build in sorted(profiles.glob(f"{round_}_[0-9]*")):
            index = build.name.split("_")[1]
            name = "verify_all" if level == 0 else f"verify_part_{level}_{index}"
            configs = builds.setdefault((level, index), configs_of(run / "candidates" / name / "spec.mlir"))
            with_them = problem_totals(build / "model.ireeprof", problem_of)

            def part(keep) -> float:
                return sum(us for key, us in without.items() if keep(key)) / max(
                    sum(us for key, us in with_them.items() if keep(key)), 1e-9
                )

            rows[(level, index)].append(
                (
                    part(lambda key: key not in every),
                    part(lambda key: key not in configs),
                    part(lambda key: key in configs),
                    part(lambda key: True),
                )
            )
    print(f"{len(every)} configs; speedup over the build with none, per round (median)")
    print("| level | build | configs | untouched by any config | outside its configs | its configs | whole model |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for (level, index), measured in sorted(rows.items()):
        cells = [
            " ".join(f"{x:.3f}" for x in column) + f" ({statistics.median(column):.3f})" for column in zip(*measured)
        ]
        print(f"| {level} | {index} | {len(builds[(level, index)])} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
