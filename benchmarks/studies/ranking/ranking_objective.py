"""Does a ranking objective rank new shapes sooner than regression? Every learner of `mltune.learn.learners` on
one arch's op kind, replayed on two splits: the honest folds (whole neighbourhoods held out, as `mltune train`
judges), and the largest quarter of the problems by FLOPs held out of a model trained on the smaller rest (shapes
larger than any it learned from, as the unseen layers measured on the H100s were).

For each learner and held-out problem: the position of the first recorded candidate within 5 % of the best, in the
model's own order and interleaved with the heuristic's at fixed shares (`mltune.rankers.blend.interleaved_order`;
`mltune train` sets the share from held-out quality, between 1/3 and 4/5), median / mean over the problems, beside
the heuristic's and shuffle's expectation. Features are those `mltune train` fits on (`feature_table`).

    python benchmarks/studies/ranking/ranking_objective.py --arch sm_90 --kind simt_gemm [--seeds 0,1,2] [--dataset-dir D]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from statistics import mean, median

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks" / "ranking"))  # benchmarks/ranking/: honest_split_study.py

from honest_split_study import splits  # noqa: E402

from mltune.learn.learners import LEARNERS  # noqa: E402
from mltune.learn.samples import ProblemSamples, load_dataset  # noqa: E402
from mltune.learn.scoring import first_near_optimal, near_optimal, shuffle_expectation  # noqa: E402
from mltune.learn.train import feature_table, fit_model  # noqa: E402
from mltune.rankers.blend import interleaved_order  # noqa: E402
from mltune.rankers.forest import RandomForest  # noqa: E402
from mltune.rankers.heuristic import Heuristic  # noqa: E402

TOLERANCE = 0.05
SHARES = (0.8, 0.5)


def learner_orders(
    problems: list[ProblemSamples], folds: list[tuple[list[int], list[int]]], learner: str, seed: int
) -> dict[int, np.ndarray]:
    """Each held-out problem's candidates as the model of its fold orders them alone (`RandomForest`, share 1)."""
    table = feature_table(problems)
    orders = {}
    for train, test in folds:
        model = fit_model(table, np.isin(table.problem_of_row, train), seed, learner)
        orders.update({i: RandomForest(seed, model=model).order(problems[i].ranking_input()) for i in test})
    return orders


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", required=True)
    parser.add_argument("--kind", required=True, help="a model kind (`mltune.features.model_kind`)")
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--dataset-dir", type=Path, default=ROOT / "datasets")
    args = parser.parse_args()
    problems = [p for p in load_dataset(args.dataset_dir, args.arch).problems if p.model_kind == args.kind]
    heuristic = {i: Heuristic(0).order(p.ranking_input()) for i, p in enumerate(problems)}
    for split, folds in splits(problems, holdout=[]).items():  # the honest folds and the largest quarter
        scored = sorted(i for _, test in folds for i in test)
        near = [first_near_optimal(problems[i].ratios, heuristic[i], TOLERANCE) for i in scored]
        expects = mean(
            shuffle_expectation(len(problems[i].ratios), int(near_optimal(problems[i].ratios, TOLERANCE).sum()))
            for i in scored
        )
        print(
            f"{args.arch} {args.kind} {split} ({len(scored)} problems): heuristic {median(near):.1f} / "
            f"{mean(near):.2f}, shuffle expects {expects:.2f}; median / mean position within 5 %"
        )
        for seed in map(int, args.seeds.split(",")):
            for learner in LEARNERS:
                started = time.perf_counter()
                orders = learner_orders(problems, folds, learner, seed)
                alone = [first_near_optimal(problems[i].ratios, orders[i], TOLERANCE) for i in scored]
                shared = {
                    share: [
                        first_near_optimal(
                            problems[i].ratios, interleaved_order(orders[i], heuristic[i], share), TOLERANCE
                        )
                        for i in scored
                    ]
                    for share in SHARES
                }
                print(
                    f"  seed {seed} {learner:<14} alone {median(alone):4.1f} / {mean(alone):6.2f}  "
                    + "  ".join(
                        f"share {share:.1f}: {median(found):4.1f} / {mean(found):6.2f}"
                        for share, found in shared.items()
                    )
                    + f"  ({time.perf_counter() - started:.0f} s)",
                    flush=True,
                )


if __name__ == "__main__":
    main()
