"""How early may leave-one-out first read its intervals?

Leave-one-out (`mltune.whole_model.verify`) times the model built with every config against the model built without each
one, and drops a config the model runs faster without. Each comparison is a sequential measurement: `rounds` rounds,
then more at the planned looks until the interval of the ratio lies on one side of 1, at most `max_rounds`. On a
2-core CPU a ResNet-50 call takes about 0.23 s and a round two A B B A turns, so the 15 rounds of the first look
cost 14 s per config before anything is decided, and leave-one-out over 11 configs took 190 s of timing.

This script times a finished run's leave-one-out builds again (`RUN/candidates/verify_all` against each
`verify_without_N`), with each first look of `--looks` in turn, interleaved over `--repeats`, all up to the same
`max_rounds`, and prints per config and look: the ratio (model without it / with all), its interval, the rounds
taken, the verdict (kept or dropped) and, per look, the seconds the whole comparison took.

    cd /work/exports && flock -x /tmp/mltune-cpu.lock python .../benchmarks/whole_models/loo_first_look.py \\
        resnet50 --run /work/st38/w2/0/resnet50_dispatch/run [--looks 15,6] [--repeats 1]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from mltune.execution.runner import Runner
from mltune.frontend.mlir import new_context
from mltune.input.call import model_call
from mltune.input.tuning_input import prepare_input
from mltune.whole_model import weights
from mltune.whole_model.verify import VERIFY_MAX_ROUNDS
from mltune.search.settings import final_plan
from mltune.targets import CpuTarget

DEVICE = "local-task"


def run_arguments(description: str, builds_help: str) -> argparse.ArgumentParser:
    """The arguments of a script that times a finished run's builds again."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("model", type=Path, help="NAME: NAME.mlir and NAME.flags in this folder")
    parser.add_argument("--run", type=Path, required=True, help=f"the finished run's folder ({builds_help})")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--work", type=Path, default=None)
    return parser


def run_runner(model: Path, run: Path, work: Path | None) -> Runner:
    """A runner of the finished run's builds: its model's call, with the weights' archive of the run's split."""
    work = work or Path(tempfile.mkdtemp(prefix="retime-run-"))
    context = new_context()
    call = model_call((), (), None, None, None, model.with_suffix(".flags"))
    given = prepare_input(
        model.with_suffix(".mlir").resolve(), CpuTarget(), work, context, call.function, given=call.inputs
    )
    if not (work / "weights").exists():  # the run's split: its builds take that archive
        shutil.copytree(run / "weights", work / "weights")
    return Runner(weights.without_weights(given, "cpu", work / "weights").invocation, DEVICE, work)


def main() -> int:
    parser = run_arguments(__doc__.splitlines()[0], "candidates/verify_*")
    parser.add_argument("--looks", default="15,6", help="first looks to compare (rounds), comma-separated")
    args = parser.parse_args()
    runner = run_runner(args.model, args.run, args.work)
    builds = args.run / "candidates"
    full = builds / "verify_all" / "module.vmfb"
    items = sorted((int(p.parent.name.rsplit("_", 1)[1]), p) for p in builds.glob("verify_without_*/module.vmfb"))
    looks = [int(x) for x in args.looks.split(",")]
    print(
        f"{args.model.name}: {len(items)} configs left out one at a time, first looks {looks}, at most "
        f"{VERIFY_MAX_ROUNDS} rounds, {args.repeats} repeat(s); load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    rows: dict[tuple[int, int], list[str]] = {}
    seconds: dict[int, list[float]] = {look: [] for look in looks}
    for _ in range(args.repeats):
        for look in looks:
            plan = replace(final_plan("cpu"), rounds=look, max_rounds=VERIFY_MAX_ROUNDS)
            started = time.perf_counter()
            measured = runner.measure(full, items, plan)
            seconds[look].append(time.perf_counter() - started)
            for m in measured:
                estimate = m.estimate
                verdict = "dropped" if m.ratio < 1.0 else "kept"
                rows.setdefault((m.index, look), []).append(
                    f"{m.ratio:.3f} [{1 / estimate.high:.3f}-{1 / estimate.low:.3f}] {len(m.time_us):>2}r {verdict}"
                )
    print(f"{'config':>6} {'first look':>10}  ratio (without / with all) [interval] rounds verdict, per repeat")
    for (index, look), cells in sorted(rows.items()):
        print(f"{index:>6} {look:>10}  " + " | ".join(cells))
    for look in looks:
        print(f"first look {look:>2}: " + ", ".join(f"{s:.0f} s" for s in seconds[look]) + " for the whole comparison")
    print(f"load average after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
