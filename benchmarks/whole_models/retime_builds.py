"""Time some of a finished run's whole-model builds again against its default build, as the final checks do.

Leave-one-out keeps the configs the model does not run faster without, and the end-to-end timing then measures
only what it kept. This times named builds of the run (`RUN/candidates/NAME/module.vmfb`: `verify_all` is every
config, `final` what leave-one-out kept, `verify_without_N` one config left out) against the run's own default
build (`baseline`), with the final checks' plan, and prints each one's speedup and interval.

    cd /work/exports && flock -x /tmp/mltune-cpu.lock python .../benchmarks/whole_models/retime_builds.py \\
        resnet50 --run /work/st44/r2/0/resnet50_one-op/run --builds verify_all,final [--repeats 1]
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from whole_models.loo_first_look import run_arguments, run_runner

from mltune.whole_model.verify import VERIFY_MAX_ROUNDS, VERIFY_ROUNDS
from mltune.search.settings import final_plan


def main() -> int:
    parser = run_arguments(__doc__.splitlines()[0], "candidates/NAME")
    parser.add_argument("--builds", default="verify_all,final", help="build folders to time, comma-separated")
    args = parser.parse_args()
    runner = run_runner(args.model, args.run, args.work)
    candidates = args.run / "candidates"
    names = args.builds.split(",")
    items = [(i, candidates / name / "module.vmfb") for i, name in enumerate(names)]
    plan = replace(final_plan("cpu"), rounds=VERIFY_ROUNDS, max_rounds=VERIFY_MAX_ROUNDS)
    print(
        f"{args.model.name}: {', '.join(names)} against the run's default build, {args.repeats} repeat(s); "
        f"load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    for repeat in range(args.repeats):
        for m in runner.measure(candidates / "baseline" / "module.vmfb", items, plan):
            print(f"  repeat {repeat}  {names[m.index]:<20} {m.estimate.describe()}", flush=True)
    print(f"load average after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
