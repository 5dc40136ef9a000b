"""Each dispatch's time inside the model, IREE's default build against the tuned one, both built by plain
`iree-compile` from the user's file (weights inlined), as `real_models.retime` builds them.

Where the plain-tools re-time disagrees with mltune's end-to-end timing (which builds the model without its
weights), this says which dispatches differ: IREE's HAL profiling on `local-task`, `rounds` rounds of 5 calls,
the default first in each, and per dispatch the median over rounds of default / tuned.

    python benchmarks/whole_models/plain_profile.py RUN_DIR [--rounds 3] [--top 22]

RUN_DIR is a run's folder holding `plain_default.vmfb`, `plain_tuned.vmfb` and `inputs/flags.txt`."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
from pathlib import Path

from mltune.whole_model.in_model import PROFILED_CALLS, function_times


def profile(vmfb: Path, flags: Path, capture: Path) -> dict[str, float]:
    """Microseconds per model call of each dispatch function."""
    subprocess.run(
        [
            "iree-benchmark-module",
            f"--module={vmfb}",
            "--device=local-task",
            f"--flagfile={flags}",
            f"--benchmark_min_time={PROFILED_CALLS}x",
            "--device_profiling_mode=host-execution",
            f"--device_profiling_output={capture}",
        ],
        check=True,
        capture_output=True,
        cwd=flags.parent,
    )
    text = subprocess.run(
        ["iree-profile", "dispatch", "--format=jsonl", "--dispatch_events", str(capture)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {t.function: t.total_us for t in function_times(text, PROFILED_CALLS)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--top", type=int, default=22)
    args = parser.parse_args()
    flags = (args.run_dir / "inputs" / "flags.txt").resolve()
    pairs: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as work:
        for round_ in range(args.rounds):
            default = profile(args.run_dir / "plain_default.vmfb", flags, Path(work) / f"{round_}_default.ireeprof")
            tuned = profile(args.run_dir / "plain_tuned.vmfb", flags, Path(work) / f"{round_}_tuned.ireeprof")
            for key in default.keys() & tuned.keys():
                pairs.setdefault(key, []).append((default[key], tuned[key]))
            pairs.setdefault("(all dispatches)", []).append((sum(default.values()), sum(tuned.values())))
    rows = sorted(pairs.items(), key=lambda item: -statistics.median(d for d, _ in item[1]))
    print("| dispatch | default us | tuned us | default / tuned |\n| --- | --- | --- | --- |")
    for key, values in rows[: args.top]:
        print(
            f"| {key.split('$')[-1]} | {statistics.median(d for d, _ in values):.0f} | "
            f"{statistics.median(t for _, t in values):.0f} | {statistics.median(d / t for d, t in values):.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
