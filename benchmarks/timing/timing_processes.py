"""Is one verdict trustworthy? One pair of builds measured again and again, each verdict in new timing processes.

mltune's timing worker measures a candidate against the baseline in one process, in rounds, and gives a
confidence interval over those rounds. Rounds in one process share its memory layout, its threads and its
loaded modules; what differs between processes is in the interval only when the rounds come from several
(`TimingPlan.processes`). This measures the same pair (build A against IREE's default build B of a one-op f32
matmul) `--verdicts` times with the finals' plan (9 to 30 rounds until the interval lies on one side of 1),
its rounds shared out over `--processes-per-verdict` processes, and prints each verdict, then how many intervals
lie wholly above or below 1 and whether they overlap. With `--flags ''`, A is B compiled again, so every interval
should contain 1.

    python benchmarks/timing/timing_processes.py --shape 32x2304x768 --flags '' [--verdicts 8] \
        [--processes-per-verdict 1] [--lock FILE]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from measure_lock import held
from timing.timing_roles import build_pair

from mltune.execution.measurement import TimingPlan
from mltune.search.settings import LoopSettings

FINALS: TimingPlan = LoopSettings().final  # the plan the loop re-measures its finalists with


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", required=True, help="M x N x K of an f32 matmul, e.g. 32x2304x768")
    parser.add_argument(
        "--flags", required=True, help="iree-compile flags of build A (one flag: --flags=FLAG; '': B compiled again)"
    )
    parser.add_argument("--verdicts", type=int, default=8)
    parser.add_argument("--processes-per-verdict", type=int, default=1)
    parser.add_argument("--lock", type=Path, default=None, help="flock(1) file held while measuring")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        builds, runner = build_pair(args.shape, args.flags, Path(tmp))
        estimates = []
        with held(args.lock):
            plan = replace(FINALS, processes=args.processes_per_verdict)
            for number in range(args.verdicts):
                (measured,) = runner.measure(builds["B"], [(0, builds["A"])], plan)
                estimates.append(measured.estimate)
                print(f"verdict {number + 1}: A over B {estimates[-1].describe()}", flush=True)
    above = sum(e.low > 1.0 for e in estimates)
    below = sum(e.high < 1.0 for e in estimates)
    overlap = max(e.low for e in estimates) <= min(e.high for e in estimates)
    print(
        f"{above} of {len(estimates)} intervals wholly above 1, {below} wholly below; "
        f"{'all intervals share a point' if overlap else 'some intervals do not overlap'} "
        f"(speedups {min(e.speedup for e in estimates):.3f}-{max(e.speedup for e in estimates):.3f}x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
