"""Models as shipped, replayed on records none of them learned from: for each problem of `DATASET_DIR/ARCH/` (e.g. a
collection made after the models were trained), the 1-based position of the first candidate within 5 % of the best
measured one in the order of the heuristic and of `random-forest` (and its refitted form) with each `--model-dir`,
each asked in batches and told the recorded ratios as in a tuning run, beside shuffle's expectation (n+1)/(k+1).
Positions count only measured candidates. Nothing is measured or trained: run it anywhere.

    python benchmarks/ranking/models_on_records.py --dataset-dir DIR --arch ARCH [--model-dir MODELS ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mltune.learn.replay import replay  # noqa: E402
from mltune.learn.samples import load_dataset  # noqa: E402
from mltune.learn.scoring import first_near_optimal, near_optimal, shuffle_expectation  # noqa: E402
from mltune.rankers import make_ranker  # noqa: E402
from mltune.rankers.base import Ranker  # noqa: E402
from mltune.rankers.forest import RandomForest  # noqa: E402
from mltune.rankers.refit import RefittedForest  # noqa: E402

TOLERANCE = 0.05
BATCH = 8  # what `mltune tune` asks per step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset-dir", type=Path, required=True)
    parser.add_argument("--arch", required=True)
    parser.add_argument(
        "--model-dir",
        type=Path,
        action="append",
        default=[],
        help="a models folder (e.g. the repository's models/ at some commit)",
    )
    args = parser.parse_args()
    makers: dict[str, Callable[[], Ranker]] = {"heuristic": lambda: make_ranker("heuristic", seed=0)}
    for number, folder in enumerate(args.model_dir, 1):
        makers[f"M{number} forest"] = lambda folder=folder: RandomForest(seed=0, model_dir=folder)
        makers[f"M{number} refit"] = lambda folder=folder: RefittedForest(seed=0, model_dir=folder)
        print(f"M{number}: {folder}")
    dataset = load_dataset(args.dataset_dir, args.arch)
    positions: dict[str, list[float]] = defaultdict(list)
    width = max(len(p.key) for p in dataset.problems)
    print(f"{'problem':<{width}} {'n':>4} {'best':>6} {'shuffle expects':>15} " + " ".join(f"{m:>9}" for m in makers))
    for samples in dataset.problems:
        times = samples.ratios
        expected = shuffle_expectation(len(times), int(near_optimal(times, TOLERANCE).sum()))
        row = {"shuffle expects": expected}
        row.update(
            {
                name: first_near_optimal(times, replay(make(), samples, BATCH), TOLERANCE)
                for name, make in makers.items()
            }
        )
        for name, value in row.items():
            positions[name].append(value)
        print(
            f"{samples.key:<{width}} {len(times):>4} {1 / times.min():>5.2f}x {expected:>15.1f} "
            + " ".join(f"{row[m]:>9}" for m in makers)
        )
    print(
        f"{len(dataset.problems)} problems, mean: "
        + ", ".join(f"{name} {statistics.mean(values):.2f}" for name, values in positions.items())
    )
    print("median: " + ", ".join(f"{name} {statistics.median(values):.1f}" for name, values in positions.items()))


if __name__ == "__main__":
    main()
