"""How much one replayed number moves with the seed: `mltune evaluate`'s rankers on the honest split, once per seed.

A seed sets the rankers' tie-breaks (the heuristics order many candidates alike and break ties at random; trees
predict leaf means, so a model's ties too), shuffle's order and the models' fits. One problem's position can move
from 1 to 11 with the order its candidates are read in (a SIMT convolution on sm_90, 2026-11-28), so a single seed's
mean is one draw. This prints, per ranker, the honest split's mean position within 5 % of the best at each seed,
their median and range, and shuffle's expected mean (which no seed changes) over it.

    python benchmarks/ranking/seed_spread.py --arch sm_90 [--kind simt_gemm] [--seeds 0,1,2]
        [--learner boosted-trees] [--dataset-dir datasets]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mltune.learn.learner_names import LEARNER_NAMES  # noqa: E402
from mltune.learn.neighbourhood import HONEST  # noqa: E402
from mltune.learn.replay import score_rankers, scoreable  # noqa: E402
from mltune.learn.samples import load_dataset  # noqa: E402
from mltune.learn.scoring import summarise  # noqa: E402
from mltune.learn.train import CV_TOLERANCE  # noqa: E402
from mltune.search.defaults import BATCH_SIZE  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arch", required=True)
    parser.add_argument("--kind", default=None, help="an op kind or model kind (default: all)")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--learner", choices=LEARNER_NAMES, default="boosted-trees")
    parser.add_argument("--dataset-dir", type=Path, default=Path("datasets"))
    args = parser.parse_args()
    dataset = load_dataset(args.dataset_dir, args.arch)
    problems = scoreable([p for p in dataset.problems if args.kind in (None, p.problem.op_kind, p.model_kind)])
    means: dict[str, list[float]] = {}
    expected = 0.0
    for seed in (int(s) for s in args.seeds.split(",")):
        splits, _ = score_rankers(problems, seed, BATCH_SIZE, learner=args.learner)
        for name, scores in splits[HONEST].items():
            summary = summarise(scores)
            means.setdefault(name, []).append(summary.mean_position[CV_TOLERANCE])
            expected = summary.mean_shuffle_expected[CV_TOLERANCE]
    print(
        f"{args.arch} {args.kind or 'every kind'}: {len(problems)} problems, honest split, learned rankers fitted "
        f"as {args.learner}; mean position of the first candidate within {CV_TOLERANCE:.0%} of the best, per seed "
        f"({args.seeds}); shuffle expects {expected:.2f}"
    )
    print(f"{'ranker':<28} {'per seed':<36} {'median':>7} {'range':>14} {'x shuffle':>10}")
    for name, values in means.items():
        middle = statistics.median(values)
        print(
            f"{name:<28} {' '.join(f'{v:.2f}' for v in values):<36} {middle:>7.2f} "
            f"{min(values):>6.2f}-{max(values):<7.2f} {expected / middle:>9.1f}x"
        )


if __name__ == "__main__":
    main()
