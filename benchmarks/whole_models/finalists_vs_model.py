"""How a screened run's order and its in-model finalists compare with every candidate timed in the whole model: two
finished `mltune tune` runs of one model with the same ranker and seed, one `--screen none`, one screened.

    python benchmarks/whole_models/finalists_vs_model.py WHOLE_RUN_DIR SCREENED_RUN_DIR [--top 8]

For each problem both runs measured: the whole-model run's best candidates with their screen speedup and rank, each
finalist the screened run timed inside the model with its speedup in the whole-model run, and Spearman's rank
correlation of the screen with the whole model over the candidates both measured. Each finalist's in-model
measurement is read again as the stage reads it, and the winner is named as the fastest median picks it and as
`screen_first_of_the_fastest` picks it."""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path

from scipy.stats import spearmanr

from mltune.execution.build import BuildResult
from mltune.execution.measurement import Measurement
from mltune.frontend.problem import Problem
from mltune.search.results import Trial
from mltune.search.settings import LoopSettings
from mltune.whole_model.in_model_finals import LOOKS, screen_first_of_the_fastest


def speedups(run: Path, screened: bool | None) -> dict[str, dict[str, float]]:
    """Median per-round speedup over IREE's default of each measured candidate, by problem and knobs (`screened`:
    only the screen's records, or only the others; None: all)."""
    found: dict[str, dict[str, float]] = defaultdict(dict)
    for line in (run / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["status"] != "ok" or (screened is not None and bool(record["screen"]) != screened):
            continue
        ratios = [base / time for base, time in zip(record["baseline_us"], record["time_us"])]
        found[Problem.from_record(record["problem"]).key][json.dumps(record["knobs"], sort_keys=True)] = (
            statistics.median(ratios)
        )
    return found


def in_model_winners(run: Path, problem: str, order: list[str]) -> tuple[str | None, str | None]:
    """The knobs the fastest in-model median would keep, and those `screen_first_of_the_fastest` keeps."""
    finals = []
    for line in (run / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["screen"] or record["status"] != "ok" or Problem.from_record(record["problem"]).key != problem:
            continue
        knobs = json.dumps(record["knobs"], sort_keys=True)
        position = order.index(knobs) if knobs in order else len(order)
        measurement = Measurement(position, "ok", tuple(record["time_us"]), tuple(record["baseline_us"]), looks=LOOKS)
        finals.append(
            (
                Trial(position, position, record["knobs"], BuildResult(position, "ok", None), measurement, ""),
                measurement,
            )
        )
    min_speedup = LoopSettings().min_speedup
    firsts = (
        min(finals, key=lambda pair: pair[1].ratio, default=None),
        next(iter(screen_first_of_the_fastest(finals, min_speedup)), None),
    )
    return tuple(
        None if pair is None or not pair[1].wins(min_speedup) else json.dumps(pair[0].knobs, sort_keys=True)
        for pair in firsts
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("whole_run", type=Path)
    parser.add_argument("screened_run", type=Path)
    parser.add_argument("--top", type=int, default=8)
    args = parser.parse_args()
    whole, screen, in_model = (
        speedups(args.whole_run, None),
        speedups(args.screened_run, True),
        speedups(args.screened_run, False),
    )
    for problem in sorted(set(whole) & set(screen)):
        model, screened = whole[problem], screen[problem]
        order = sorted(screened, key=lambda knobs: -screened[knobs])
        both = [knobs for knobs in model if knobs in screened]
        rho = spearmanr([model[k] for k in both], [screened[k] for k in both]).statistic if len(both) > 2 else None
        print(
            f"\n{problem}: {len(both)} candidates in both runs, Spearman "
            f"{'-' if rho is None else f'{rho:.2f}'} (screen against whole model)"
        )
        print("| whole model | screen | screen rank | knobs |\n| --- | --- | --- | --- |")
        for knobs in sorted(model, key=lambda k: -model[k])[: args.top]:
            rank = order.index(knobs) + 1 if knobs in screened else "-"
            print(f"| {model[knobs]:.3f}x | {screened.get(knobs, float('nan')):.2f}x | {rank} | {knobs} |")
        finalists = in_model.get(problem, {})
        if finalists:
            print("| in the model (its dispatches) | whole model | screen rank | knobs |\n| --- | --- | --- | --- |")
            for knobs in sorted(finalists, key=lambda k: order.index(k) if k in order else len(order)):
                rank = order.index(knobs) + 1 if knobs in order else "-"
                print(f"| {finalists[knobs]:.3f}x | {model.get(knobs, float('nan')):.3f}x | {rank} | {knobs} |")
            for rule, knobs in zip(
                ("the fastest median keeps", "the screen's first of the fastest keeps"),
                in_model_winners(args.screened_run, problem, order),
            ):
                whole_model = "-" if knobs is None or knobs not in model else f"{model[knobs]:.3f}x"
                print(f"{rule}: {knobs} ({whole_model} in the whole model)")


if __name__ == "__main__":
    main()
