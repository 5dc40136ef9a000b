"""Where the GPU heuristic puts the first near-best candidate, per problem and op kind, replaying measured records.

For every problem of `datasets/ARCH/` (default sm_90, the H100's records): the 1-based position, in the heuristic's
order restricted to the measured candidates, of the first one within 5 % of the best; shuffle's expectation
(n + 1) / (k + 1); and how many of the heuristic's first 24 ran over 4x slower than IREE's default. Then a summary
per op kind (median / mean position, mean shuffle expectation).

`--holdout` also checks the one constant of the contraction time estimate that is not a datasheet figure, the memory
latency: for each contraction or convolution problem, the latency (of LATENCIES) with the best mean position on all
*other* problems is chosen, and the held-out problem is scored with it (leave one problem out).

    python benchmarks/ranking/heuristic_holdout.py [--arch sm_90] [--dataset-dir datasets] [--holdout]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mltune.learn.samples import ProblemSamples, load_dataset  # noqa: E402
from mltune.learn.scoring import first_near_optimal, near_optimal, shuffle_expectation  # noqa: E402
from mltune.rankers import make_ranker  # noqa: E402

TOLERANCE = 0.05
FIRST = 24
SLOW = 4.0  # times IREE's default
LATENCIES = (200, 400, 600, 1000, 2000)


def heuristic_order(samples: ProblemSamples, seed: int) -> list[int]:
    ranker = make_ranker("heuristic", seed)
    ranker.start(samples.ranking_input())
    return ranker.ask(len(samples.ratios))


def holdout(problems: list[ProblemSamples], seed: int) -> None:
    from mltune.rankers.gpu_heuristic import contraction_heuristic_order

    gemms = [p for p in problems if p.problem.op_kind in ("contraction", "convolution")]
    positions = {
        latency: [
            first_near_optimal(p.ratios, contraction_heuristic_order(p.ranking_input(), seed, latency), TOLERANCE)
            for p in gemms
        ]
        for latency in LATENCIES
    }
    for latency, found in positions.items():
        print(
            f"latency {latency:>5} cycles, all {len(gemms)} problems: median {statistics.median(found):.1f}, "
            f"mean {statistics.mean(found):.2f}"
        )
    held_out, chosen = [], []
    for i in range(len(gemms)):
        best = min(LATENCIES, key=lambda lat: statistics.mean(v for j, v in enumerate(positions[lat]) if j != i))
        held_out.append(positions[best][i])
        chosen.append(best)
    print(
        f"leave one problem out ({len(gemms)} contraction and convolution problems, latency chosen on the others: "
        f"{', '.join(f'{lat} x{chosen.count(lat)}' for lat in sorted(set(chosen)))}): "
        f"median {statistics.median(held_out):.1f}, mean {statistics.mean(held_out):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--dataset-dir", type=Path, default=ROOT / "datasets")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--holdout", action="store_true")
    args = parser.parse_args()
    problems = load_dataset(args.dataset_dir, args.arch).problems
    by_kind: dict[str, list[tuple[int, float]]] = defaultdict(list)
    print(f"{'problem':<56}{'n':>5}{'k':>4}{'heuristic':>10}{'shuffle':>9}{f'>{SLOW:g}x in first {FIRST}':>20}")
    for samples in problems:
        order = heuristic_order(samples, args.seed)
        position = first_near_optimal(samples.ratios, order, TOLERANCE)
        good = int(near_optimal(samples.ratios, TOLERANCE).sum())
        expected = shuffle_expectation(len(samples.ratios), good)
        slow = int((samples.ratios[np.asarray(order[:FIRST])] > SLOW).sum())
        by_kind[samples.problem.op_kind].append((position, expected))
        print(f"{samples.key[:55]:<56}{len(samples.ratios):>5}{good:>4}{position:>10}{expected:>9.1f}{slow:>20}")
    for kind, scores in by_kind.items():
        found = [p for p, _ in scores]
        expected = statistics.mean(e for _, e in scores)
        print(
            f"{kind}: {len(scores)} problems, first within {TOLERANCE:.0%} at median {statistics.median(found):.1f}, "
            f"mean {statistics.mean(found):.2f} (shuffle's expectation: mean {expected:.2f})"
        )
    if args.holdout:
        holdout(problems, args.seed)


if __name__ == "__main__":
    main()
