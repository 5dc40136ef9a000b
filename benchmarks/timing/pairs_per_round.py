"""How many call pairs a timing round needs when one call of the model is long.

A round of the timing worker is `calls` adjacent (baseline, candidate) pairs in A B B A order, its ratio the median of
the pairs' ratios; `calls` fills `round_seconds` but is at least `min_calls` (5). For a model whose call takes 0.7 s
that floor, not `round_seconds`, sets the cost: a round of 5 pairs lasts 7 s, and a finalist's 9 rounds a minute.

This script measures one (default, tuned) pair of builds in `--processes` timing processes of `--rounds` rounds of
`--pairs` pairs each (raw mode: every call kept), then recomputes the verdict as if each round had held only its first
k pairs (k = 1, 2, 3, 5, ...; the first 2k calls, still balanced A B B A for even k), over the same rounds. Printed per
k: the median speedup, its confidence interval (the finals' estimator: `SpeedupEstimate`), the interval's width, and
the seconds the rounds would have taken. Fewer pairs per round are enough where the speedup and the interval stay
those of all the pairs.

    flock -x /tmp/mltune-cpu.lock python benchmarks/timing/pairs_per_round.py --default D.vmfb --tuned T.vmfb \\
        --input ids.npy [--function main] [--processes 3] [--rounds 10] [--pairs 6] [--out raw.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from timing.timing_protocol import sample

from mltune.execution.verdict import SpeedupEstimate
from mltune.input.files import InputFile


def estimate(rounds: list, k: int) -> tuple[SpeedupEstimate, float]:
    """The verdict from the first k pairs of every round, and the seconds those calls took."""
    ratios = [float(np.median(np.array(c[:k]) / np.array(b[:k]))) for c, b in rounds]
    seconds = sum(sum(c[:k]) + sum(b[:k]) for c, b in rounds) / 1e6
    return SpeedupEstimate.from_ratios(ratios), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--default", type=Path, required=True)
    parser.add_argument("--tuned", type=Path, required=True)
    parser.add_argument("--input", type=Path, action="append", default=[], help=".npy argument (repeatable)")
    parser.add_argument("--function", default="main")
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--out", type=Path, default=None, help="save the raw calls (JSON)")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    inputs = [InputFile(path, np.load(path, mmap_mode="r").shape, "npy") for path in args.input]
    with tempfile.TemporaryDirectory() as work:
        rounds = [
            r
            for _ in range(args.processes)
            for r in sample(
                args.default, args.tuned, inputs, args.rounds, Path(work), pairs=args.pairs, function=args.function
            )
        ]
    if args.out:
        args.out.write_text(json.dumps(rounds))
    call_ms = np.median([x for _, b in rounds for x in b]) / 1e3
    print(
        f"{args.tuned.name} against {args.default.name}: {len(rounds)} rounds from {args.processes} processes, "
        f"default call {call_ms:.1f} ms; load average {load_before:.2f} -> {os.getloadavg()[0]:.2f}"
    )
    print(f"{'pairs per round':>16} {'speedup':>8} {'interval':>14} {'width':>7} {'seconds':>8}")
    for k in sorted({1, 2, 3, 5, args.pairs} & set(range(1, args.pairs + 1))):
        verdict, seconds = estimate(rounds, k)
        print(
            f"{k:>16} {verdict.speedup:>7.3f}x {verdict.low:>6.3f}-{verdict.high:.3f}x "
            f"{verdict.high - verdict.low:>7.3f} {seconds:>8.1f}"
        )


if __name__ == "__main__":
    main()
