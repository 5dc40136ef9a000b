"""Candidates per minute with and without the screen (`mltune tune --screen`), at the same budget, on exported models.

Each model (`NAME.mlir` with `NAME.flags`, tuned in its own folder as a user runs it) is tuned once per screen in
each round, the screens alternating which goes first, each run in a fresh data home (no records of the other run to
seed its order). Printed per run: candidates measured (screened and whole-model alike, from the run's records),
candidates per minute of the whole run, its wall time, mltune's end-to-end verdict, and the recommended build
re-timed with plain `iree-compile` + `iree-benchmark-module` against IREE's default (`real_models.retime`). A run
already finished in the same `--work` is only re-timed.

    cd examples/models/exported && python ../../../benchmarks/whole_models/screen_throughput.py bert resnet50 --budget 24 \\
        --lock /tmp/mltune-cpu.lock

On a GPU (`benchmarks/device/f16_scale.sh`): `--tune-arg=--target=sm_90 --tune-arg=--devices=cuda://0 --rounds 0`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from measure_lock import held
from whole_models.real_models import end_to_end, retime, tune

from mltune.records.dataset import read_records

HEADER = [
    "model",
    "screen",
    "measured",
    "of them whole",
    "per minute",
    "wall s",
    "mltune end to end",
    "plain tools",
    "load",
]


def one_run(stem: Path, screen: str, budget: int, rounds: int, work: Path, tune_args: list[str]) -> list[str]:
    home = work / f"{stem.name}_{screen}"
    os.environ["MLTUNE_HOME"] = str(home)  # a fresh data home: no earlier records seed the order
    run_dir = home / "run"
    load = os.getloadavg()[0]
    if (run_dir / "summary.json").is_file():  # tuned by an earlier call with this --work: re-time only
        wall = json.loads((run_dir / "summary.json").read_text())["wall_seconds"]
    else:
        done, wall = tune(stem, budget, run_dir, ("--screen", screen, *tune_args))
        home.mkdir(parents=True, exist_ok=True)
    (home / "log.txt").write_text(done.stdout + done.stderr)
    if not (run_dir / "summary.json").is_file():
        return [stem.name, screen, f"failed: {(done.stderr.strip().splitlines() or ['?'])[-1][:80]}"]
    summary = json.loads((run_dir / "summary.json").read_text())
    measured = [r for r in read_records(run_dir / "results.jsonl") if r.get("time_us")]
    whole = sum(1 for r in measured if not r.get("screen"))
    plain = retime(stem, run_dir, rounds) if rounds else "not re-timed here"
    return [
        stem.name,
        screen,
        str(len(measured)),
        str(whole),
        f"{60 * len(measured) / wall:.1f}",
        f"{wall:.0f}",
        end_to_end(summary),
        plain,
        f"{load:.1f} -> {os.getloadavg()[0]:.1f}",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", type=Path, help="NAME paths: NAME.mlir and NAME.flags beside it")
    parser.add_argument("--budget", type=int, default=24)
    parser.add_argument("--screens", default="none,dispatch", help="comma-separated --screen values to compare")
    parser.add_argument(
        "--rounds",
        type=int,
        default=6,
        help="plain-tools re-timing rounds on this CPU (0: none; a GPU's run is re-timed by "
        "timing/plain_tools_order.py)",
    )
    parser.add_argument("--repeats", type=int, default=1, help="rounds of runs, the screens' order alternating")
    parser.add_argument(
        "--work", type=Path, default=Path("/tmp") / f"screen-throughput-{time.strftime('%Y%m%d-%H%M%S')}"
    )
    parser.add_argument("--lock", type=Path, default=None, help="flock file held for each run (the machine alone)")
    parser.add_argument(
        "--tune-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="passed to `mltune tune`, e.g. --tune-arg=--target=sm_90 --tune-arg=--devices=cuda://0",
    )
    args = parser.parse_args()
    screens = args.screens.split(",")
    print("| " + " | ".join(HEADER) + " |\n|" + " --- |" * len(HEADER), flush=True)
    for repeat in range(args.repeats):
        for stem in args.models:
            for screen in screens if repeat % 2 == 0 else screens[::-1]:
                with held(args.lock):
                    cells = one_run(
                        stem.resolve(), screen, args.budget, args.rounds, args.work / str(repeat), args.tune_arg
                    )
                print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
