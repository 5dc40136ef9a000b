"""Can one build time several dispatches' finalists inside the model at once?

The model stage of a screened run (`mltune tune --screen ...`) compiles and times each finalist in a whole-model
build of its own: 48 builds for ResNet-50 at budget 100, most of that run's time. Here the finalists a finished run
timed are combined instead, the j-th finalist of every dispatch into build j (one spec for all of them), and each
build runs under IREE's HAL profiling (`mltune.whole_model.in_model`) alternately with IREE's default build, for `--rounds`
rounds. That gives each finalist's time inside the model, next to its neighbours' finalists rather than IREE's
defaults. Printed per tuned problem and finalist: its in-model ratio (IREE default / finalist, median of the
rounds), the whole-model ratio that implies (its share of the default run), and the whole-model ratio the run
measured for it alone; then whether both pick the same best finalist, and the builds and seconds either way.

    cd /work/exports && flock -x /tmp/mltune-cpu.lock python .../benchmarks/studies/whole_models/combined_finalists.py \\
        resnet50 --run /work/st26/0/resnet50_dispatch/run [--rounds 5] [--finalists 4] [--work DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from mltune.emit.apply import make_applier
from mltune.execution.build import Builder
from mltune.frontend.mlir import new_context
from mltune.frontend.problem import Problem
from mltune.input.call import model_call
from mltune.input.tuning_input import prepare_input
from mltune.whole_model import weights
from mltune.whole_model.in_model import profile_in_model
from mltune.whole_model.profile import problem_times
from mltune.records.dataset import read_records
from mltune.targets import CpuTarget
from mltune.input.dispatches import read_dispatches
from mltune.tuning.prepare import configurators

DEVICE = "local-task"


def _ratio(record: dict) -> float:
    return statistics.median(record["baseline_us"]) / statistics.median(record["time_us"])


def _ranks(values) -> list[int]:
    return [sorted(values).index(value) for value in values]


def timed_finalists(results: Path) -> dict[str, list[tuple[dict, float]]]:
    """Each problem's finalists the run timed in the whole model, in the order it timed them, with their ratios."""
    finalists: dict[str, list[tuple[int, dict, float]]] = defaultdict(list)
    for record in read_records(results):
        if record["status"] == "ok" and record["level"] == "model" and not record.get("screen"):
            problem = Problem.from_record(record["problem"])
            finalists[problem.key].append((record["position"], record["knobs"], _ratio(record)))
    return {
        key: [(knobs, ratio) for _, knobs, ratio in sorted(found, key=lambda f: f[0])]
        for key, found in finalists.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="NAME: NAME.mlir and NAME.flags in this folder")
    parser.add_argument("--run", type=Path, required=True, help="the finished run's folder (its results.jsonl)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--finalists", type=int, default=4, help="each problem's first K finalists (the run's order)")
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="combined-finalists-"))
    context = new_context()
    call = model_call((), (), None, None, None, args.model.with_suffix(".flags"))
    given = prepare_input(
        args.model.with_suffix(".mlir").resolve(), CpuTarget(), work, context, call.function, given=call.inputs
    )
    tuning_input = weights.without_weights(given, "cpu", work / "weights")
    dispatches = read_dispatches(given, context)
    named = [
        (d.name, d.bench, d.problem.op_name, d.problem if isinstance(d.problem, Problem) else None) for d in dispatches
    ]
    tunable = [d for d in dispatches if isinstance(d.problem, Problem)]
    spaces = {d.problem.key: c for d, c in configurators(tunable, context, work / "spaces")}
    problems = {d.problem.key: d.problem for d in tunable}
    finalists = {
        key: found[: args.finalists]
        for key, found in timed_finalists(args.run / "results.jsonl").items()
        if key in spaces
    }
    applier = make_applier("cpu", tuning_input.source, context)
    builder = Builder(tuning_input, work / "builds", 2)
    started = time.perf_counter()
    builds = {"default": builder.compile(-1, None, "default")}
    for j in range(max(len(found) for found in finalists.values())):
        chosen = [
            (problems[key], spaces[key].compilation_info(found[j][0]))
            for key, found in finalists.items()
            if j < len(found)
        ]
        (work / f"link_{j}").mkdir(parents=True, exist_ok=True)
        builds[j] = builder.compile(j, applier.combine(chosen, work / f"link_{j}"), f"combined_{j}")
        assert builds[j].status == "ok", builds[j].detail
    compile_s = time.perf_counter() - started
    times: dict = {name: [] for name in builds}
    for round_ in range(args.rounds):
        for name, build in builds.items():
            times[name].append(
                problem_times(
                    named, profile_in_model(build.vmfb, tuning_input.invocation, DEVICE, work / f"p{round_}_{name}")
                )
            )
    profile_s = time.perf_counter() - started - compile_s
    model_us = statistics.median(sum(t.values()) for t in times["default"])
    print(
        f"{args.model.name}: {len(finalists)} problems, {sum(map(len, finalists.values()))} finalists timed whole "
        f"by the run ({args.run}); here {len(builds)} builds (IREE default + {len(builds) - 1} combined) in "
        f"{compile_s:.0f} s, {args.rounds} profiled rounds of 5 calls each in {profile_s:.0f} s; the default's "
        f"dispatches {model_us / 1000:.1f} ms a call"
    )
    print("| problem | share | finalist | in-model ratio | implies for the model | the run measured alone |")
    print("| --- | --- | --- | --- | --- | --- |")
    agree, pairs, losses = 0, [], []
    for key, found in finalists.items():
        default_us = statistics.median(t[key] for t in times["default"])
        rows = []
        for j, (_, measured) in enumerate(found):
            ratio = statistics.median(d[key] / c[key] for d, c in zip(times["default"], times[j]))
            implied = model_us / (model_us - default_us + default_us / ratio)
            rows.append((ratio, measured))
            pairs.append((implied, measured))
            print(
                f"| {key} | {100 * default_us / model_us:.1f} % | {j} | {ratio:.2f}x | {implied:.3f}x | "
                f"{measured:.3f}x |"
            )
        picked, best = max(rows)[1], max(measured for _, measured in rows)
        agree += picked == best
        losses.append(picked / best)
    implied, measured = zip(*pairs)
    print(
        f"the same best finalist in {agree} of {len(finalists)} problems; the in-model pick's ratio measured alone "
        f"over the best measured alone: median {statistics.median(losses):.3f}, lowest {min(losses):.3f}; "
        f"implied against measured alone over all finalists: Pearson {statistics.correlation(implied, measured):.2f}"
        f", Spearman {statistics.correlation(_ranks(implied), _ranks(measured)):.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
