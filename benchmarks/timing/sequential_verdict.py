"""Synthetic simulation of the sequential keep rule: how often a candidate is called faster and after how many
rounds, reading the interval after every round from 9 to 30 at 95 % (the earlier rule) or at the planned looks
of `mltune.execution.verdict.Looks`. Round ratios are synthetic: true ratio x log-normal noise.

    python benchmarks/timing/sequential_verdict.py [--runs 3000]
"""

from __future__ import annotations

import argparse

import numpy as np

from mltune.execution.verdict import Looks, SpeedupEstimate

FIRST, LAST = 9, 30


def planned_looks(ratios: list[float]) -> tuple[int, bool]:
    looks = Looks.of(FIRST, LAST)
    done = next(n for n in range(FIRST, LAST + 1) if looks.settled(ratios[:n], n - 1))
    return done, looks.estimate(ratios[:done]).faster()


def every_round(ratios: list[float]) -> tuple[int, bool]:
    done = next(n for n in range(FIRST, LAST + 1) if n == LAST or SpeedupEstimate.from_ratios(ratios[:n]).decided())
    return done, SpeedupEstimate.from_ratios(ratios[:done]).faster()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3000)
    args = parser.parse_args()
    for noise in (0.02, 0.05):
        for true_ratio in (1.0, 0.97, 0.95, 0.9):
            rng = np.random.default_rng(1)
            results: dict[str, list[tuple[int, bool]]] = {"every round": [], "planned looks": []}
            for _ in range(args.runs):
                ratios = (true_ratio * np.exp(rng.normal(0, noise, LAST))).tolist()
                results["every round"].append(every_round(ratios))
                results["planned looks"].append(planned_looks(ratios))
            cells = "; ".join(
                f"{rule}: faster {np.mean([f for _, f in runs]):.3f}, rounds mean "
                f"{np.mean([n for n, _ in runs]):.1f} median {np.median([n for n, _ in runs]):.0f}"
                for rule, runs in results.items()
            )
            print(f"noise {noise:.2f}, speedup {1 / true_ratio:.3f}: {cells}")


if __name__ == "__main__":
    main()
