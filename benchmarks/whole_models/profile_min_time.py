"""How long the profile of dumped dispatches needs to time each one: the benchmark library's 0.5 s per repetition
against `REPETITION_SECONDS`, on the dumps of a run.

Where a device cannot profile dispatches inside the model (CUDA in IREE 3.13), mltune times each dumped dispatch
with `iree-benchmark-module` (`mltune.whole_model.profile.time_dispatch`: the fastest of three repetitions) to split the
budget by time. Each dump of RUN_DIR/dispatches is compiled once, then timed with both settings, one after the
other, in an order rotated from dispatch to dispatch, the default twice. Prints each setting's total time, and how
far each other setting's per-call times lie from the default's first: median and largest |ratio - 1|, the rank
correlation, and whether the dispatches over 1 % of the summed time stay the same (the default's second timing
says how far two timings of the same setting lie apart).

    python benchmarks/whole_models/profile_min_time.py RUN_DIR [--device local-task] [--lock /tmp/mltune-cpu.lock]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from measure_lock import held  # noqa: E402

from mltune.whole_model.profile import REPETITION_SECONDS, compile_dispatches, time_dispatch  # noqa: E402

SETTINGS = {
    "library default (0.5 s)": None,
    "library default, again": None,
    f"{REPETITION_SECONDS} s": REPETITION_SECONDS,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path, help="a tune run's folder (its dispatches/ are timed)")
    parser.add_argument("--device", default="local-task")
    parser.add_argument("--lock", type=Path, default=None, help="hold this lock while timing")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    benches = sorted((args.run_dir / "dispatches").glob("*_benchmark.mlir"))
    named = [(b.name.removesuffix("_benchmark.mlir"), b, "", None) for b in benches]
    with tempfile.TemporaryDirectory(prefix="mltune-profile-") as work:
        with held(args.lock, shared=True):
            built = [
                (name, vmfb)
                for (name, _, _, _), (vmfb, error) in zip(named, compile_dispatches(named, Path(work), args.jobs))
                if not error
            ]
        times: dict[str, dict[str, float]] = {label: {} for label in SETTINGS}
        spent = dict.fromkeys(SETTINGS, 0.0)
        with held(args.lock):
            for turn, (name, vmfb) in enumerate(built):
                labels = list(SETTINGS)
                for label in labels[turn % len(labels) :] + labels[: turn % len(labels)]:
                    started = time.perf_counter()
                    times[label][name] = time_dispatch(vmfb, args.device, SETTINGS[label])[0]
                    spent[label] += time.perf_counter() - started
    first = list(SETTINGS)[0]
    timed = [n for n in times[first] if all(times[label][n] == times[label][n] for label in SETTINGS)]
    print(f"{args.run_dir}: {len(timed)} of {len(benches)} dumps timed on {args.device}")
    for label in SETTINGS:
        apart = "" if label == first else f"  {agreement(times, first, label, timed)}"
        print(f"  {label:<26} {spent[label]:6.1f} s{apart}")


def agreement(times: dict[str, dict[str, float]], base: str, other: str, timed: list[str]) -> str:
    """How far `other`'s per-call times lie from `base`'s, and whether the large dispatches stay the same."""
    ratios = [times[other][n] / times[base][n] for n in timed]

    def large(label: str) -> set[str]:
        total = sum(times[label][n] for n in timed)
        return {n for n in timed if times[label][n] > 0.01 * total}

    rho = spearmanr([times[base][n] for n in timed], [times[other][n] for n in timed])[0]
    return (
        f"|ratio - 1| median {median(abs(r - 1) for r in ratios):.3f}, largest {max(abs(r - 1) for r in ratios):.3f};"
        f" Spearman {rho:.4f}; over 1 % of the time: {len(large(other) & large(base))} of {len(large(base))}"
    )


if __name__ == "__main__":
    main()
