"""Time some of a finished run's whole-model builds again against its default build, as the final checks do.

Leave-one-out keeps the configs the model does not run faster without, and the end-to-end timing then measures
only what it kept. This times named builds of the run (`RUN/candidates/NAME/module.vmfb`: `verify_all` is every
config, `final` what leave-one-out kept, `verify_without_N` one config left out) against the run's own default
build (`baseline`), with the final checks' plan, and prints each one's speedup and interval.

    cd /work/exports && flock -x /tmp/mltune-cpu.lock python .../benchmarks/whole_models/retime_builds.py \\
        resnet50 --run /work/st44/r2/0/resnet50_one-op/run --builds verify_all,final [--repeats 1]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from mltune.execution.run import Runner
from mltune.frontend.mlir import new_context
from mltune.input.call import model_call
from mltune.input.model import prepare_input
from mltune.model import weights
from mltune.model.verify import VERIFY_MAX_ROUNDS, VERIFY_ROUNDS
from mltune.search.loop import final_plan
from mltune.targets import CpuTarget


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="NAME: NAME.mlir and NAME.flags in this folder")
    parser.add_argument("--run", type=Path, required=True, help="the finished run's folder (candidates/NAME)")
    parser.add_argument("--builds", default="verify_all,final", help="build folders to time, comma-separated")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="retime-builds-"))
    context = new_context()
    call = model_call((), (), None, None, None, args.model.with_suffix(".flags"))
    given = prepare_input(args.model.with_suffix(".mlir").resolve(), CpuTarget(), work, context, call.function,
                          given=call.inputs)
    if not (work / "weights").exists():  # the run's split: its builds take that archive
        shutil.copytree(args.run / "weights", work / "weights")
    tuning_input = weights.without_weights(given, "cpu", work / "weights")
    candidates = args.run / "candidates"
    names = args.builds.split(",")
    items = [(i, candidates / name / "module.vmfb") for i, name in enumerate(names)]
    plan = replace(final_plan("cpu"), rounds=VERIFY_ROUNDS, max_rounds=VERIFY_MAX_ROUNDS)
    runner = Runner(tuning_input.invocation, "local-task", work)
    print(f"{args.model.name}: {', '.join(names)} against the run's default build, {args.repeats} repeat(s); "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    for repeat in range(args.repeats):
        for m in runner.measure(candidates / "baseline" / "module.vmfb", items, plan):
            print(f"  repeat {repeat}  {names[m.index]:<20} {m.estimate.describe()}", flush=True)
    print(f"load average after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
