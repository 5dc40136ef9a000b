"""What moving the weights' split beside the dump saves: a run's first stage, one after the other against side by side.

A model with inlined weights is compiled twice before anything is tuned: the dump (`prepare_input`: IREE's default
build of the whole model, writing its dispatches) and the weights' split (`mltune.whole_model.weights`: a compile to the
end of global optimization, then the large constants written to an archive). Both start from the same file and
flags. Each round does the stage both ways in fresh folders, alternating which goes first: `sequential` calls
`prepare_input` and then `without_weights`, as runs did; `side by side` starts the split
(`weights.start_split`) before `prepare_input` and waits for it after. Printed: seconds per round, then median
and range per way and the ratio of the medians.

    python benchmarks/studies/whole_models/dump_beside_split.py /work/exports/bert.mlir --rounds 3 --lock /tmp/mltune-cpu.lock
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/: its helpers
from measure_lock import held

from mltune.frontend.mlir import new_context
from mltune.input.tuning_input import prepare_input
from mltune.whole_model import weights
from mltune.targets import CpuTarget

WAYS = ("sequential", "side by side")


def one_stage(model: Path, way: str, work: Path) -> float:
    context, target = new_context(), CpuTarget()
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=1) as pool:
        split = weights.start_split(model, target, (), context, work / "weights", pool) if way == WAYS[1] else None
        prepared = prepare_input(model, target, work, context)
        if split is not None:
            split.result()
        built_from = weights.without_weights(prepared, target.kind, work / "weights")
    seconds = time.perf_counter() - started
    assert built_from.source != prepared.source, "the model was not split"
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="a model file with inlined weights (an iree-turbine export)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--lock", type=Path, default=None, help="a lock file held for the whole measurement")
    args = parser.parse_args()
    seconds: dict[str, list[float]] = {way: [] for way in WAYS}
    with held(args.lock):
        print(f"load average at the start: {os.getloadavg()[0]:.2f}")
        for round_ in range(args.rounds):
            for way in WAYS if round_ % 2 == 0 else WAYS[::-1]:
                work = Path(tempfile.mkdtemp(prefix="dump_split_"))
                try:
                    seconds[way].append(one_stage(args.model, way, work))
                finally:
                    shutil.rmtree(work, ignore_errors=True)
                print(f"round {round_ + 1}, {way}: {seconds[way][-1]:.1f} s", flush=True)
        print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    print("| way | median s | range s |")
    print("| --- | --- | --- |")
    for way in WAYS:
        print(f"| {way} | {median(seconds[way]):.1f} | {min(seconds[way]):.1f}-{max(seconds[way]):.1f} |")
    print(f"side by side / sequential: {median(seconds[WAYS[1]]) / median(seconds[WAYS[0]]):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
