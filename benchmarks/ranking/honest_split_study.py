"""Which learned-ranker variants hold on shapes no training problem came near? Replayed on the honest split.

For each arch's op kinds with at least 2 groups of neighbours (`mltune.learn.neighbourhood`), forests are trained
per honest fold (whole neighbourhoods held out) in several variants, and every variant's order of each held-out
problem's measured candidates is scored (position of the first within 5 % of the best, median / mean), beside the
heuristic's; then with the largest quarter of the problems (by FLOPs) held out of a forest trained on the smaller
rest (the
failure seen on the H100: shapes larger than any it learned from), and on the dataset's held-out problems
(`holdout.json`) with forests trained on all the others. Variants:
- `forest`: the shipped features and label, log(time / IREE default);
- `forest-relative`: without the problem's absolute sizes (log2 M/N/K/batch/FLOPs), so that splits must use the
  tiles' sizes relative to the problem and the target (waves, padding, shared memory, ...), and on GPU targets with
  the heuristic's time estimate as a fraction of the problem's ideal (`estimate_efficiency`);
- `forest-rank`: the shipped features, each problem's candidates labelled by rank (0 best, 1 worst);
- `borda`: the forest's and the heuristic's positions summed (`mltune.rankers.blend.blended_order`);
- `interleave`: the heuristic's and the forest's orders taken in turn (`mltune.rankers.blend.interleaved_order`);
- `interleave-weighted`: the same, with the forest's share set from the other folds' held-out positions
  (`mltune.learn.share.forest_share`, capped at 4/5 as shipped); `interleave-cap-2/3` and `interleave-cap-9/10`
  with the share capped lower (as before 2026-11-28) and higher.

    python benchmarks/ranking/honest_split_study.py [--archs emeraldrapids,znver3,sm_90] [--dataset-dir datasets]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from statistics import mean, median
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sklearn.model_selection import GroupKFold  # noqa: E402

from mltune.features import FeatureMatrix  # noqa: E402
from mltune.features.gpu_throughput import MMA_MACS_PER_CYCLE, contraction_estimate  # noqa: E402
from mltune.learn.forest import TrainedModel, fit_forest  # noqa: E402
from mltune.learn.labels import Label, log_ratio, rank_fraction  # noqa: E402
from mltune.learn.neighbourhood import honest_groups  # noqa: E402
from mltune.learn.samples import ProblemSamples, load_dataset  # noqa: E402
from mltune.learn.scoring import first_near_optimal  # noqa: E402
from mltune.learn.share import MAX_SHARE, forest_share  # noqa: E402
from mltune.learn.train import MAX_FOLDS, by_kind  # noqa: E402
from mltune.rankers.blend import blended_order, interleaved_order  # noqa: E402
from mltune.rankers.heuristic import Heuristic, promote_data_tiled  # noqa: E402

TOLERANCE = 0.05
ABSOLUTE = ("log2_m", "log2_n", "log2_k", "log2_batch", "log2_flops")


def relative_features(p: ProblemSamples) -> FeatureMatrix:
    """The shipped features less the absolute sizes, plus (GPU contractions and convolutions) the estimate's
    efficiency: the ideal cycles (MACs over every SM's MMA rate) over the estimated ones (MMA contractions only:
    SIMT candidates have theirs among the shipped features)."""
    f = p.features()
    keep = [i for i, name in enumerate(f.names) if name not in ABSOLUTE]
    names, values = tuple(f.names[i] for i in keep), f.values[:, keep]
    if p.target.kind != "cpu" and p.model_kind == "contraction":
        macs = float(np.prod(p.problem.bounds, dtype=np.float64))
        cycles = contraction_estimate(p.problem, p.target, p.candidates).cycles
        efficiency = macs / (MMA_MACS_PER_CYCLE * p.target.cores) / cycles
        names, values = names + ("estimate_efficiency",), np.column_stack([values, efficiency])
    return FeatureMatrix(names, values)


FEATURES: dict[str, Callable[[ProblemSamples], FeatureMatrix]] = {
    "forest": ProblemSamples.features,
    "forest-relative": relative_features,
    "forest-rank": ProblemSamples.features,
}
LABELS: dict[str, Label] = {"forest": log_ratio, "forest-relative": log_ratio, "forest-rank": rank_fraction}


def forest_order(model: TrainedModel, p: ProblemSamples, features: FeatureMatrix) -> np.ndarray:
    """As `RandomForest.ranked` orders (seeded ties, data-tiled promotion on CPUs)."""
    predicted = model.predict(features.names, features.values)
    order = np.lexsort((np.random.default_rng(0).random(len(predicted)), predicted))
    return promote_data_tiled(order, p.features())


def fold_orders(
    problems: list[ProblemSamples],
    train: list[int],
    test: list[int],
    variant: str,
    matrices: dict[str, list[FeatureMatrix]],
) -> dict[int, np.ndarray]:
    mats = matrices[variant]
    values = np.concatenate([mats[i].values for i in train])
    labels = np.concatenate([LABELS[variant](problems[i].ratios) for i in train])
    model = TrainedModel(fit_forest(values, labels, 0), mats[0].names)
    return {i: forest_order(model, problems[i], mats[i]) for i in test}


def positions(problems: list[ProblemSamples], orders: dict[int, np.ndarray]) -> dict[int, int]:
    return {i: first_near_optimal(problems[i].ratios, order, TOLERANCE) for i, order in orders.items()}


def splits(
    problems: list[ProblemSamples], holdout: list[ProblemSamples]
) -> dict[str, list[tuple[list[int], list[int]]]]:
    """(train, test) index lists into problems + holdout: the honest folds; the largest quarter by FLOPs held out
    of a model trained on the smaller rest (can it extrapolate?); the held-out problems, trained on everything."""
    groups = honest_groups([p.problem for p in problems])
    honest = [
        (list(map(int, train)), list(map(int, test)))
        for train, test in GroupKFold(n_splits=min(MAX_FOLDS, len(set(groups)))).split(
            np.zeros(len(problems)), groups=groups
        )
    ]
    by_size = sorted(range(len(problems)), key=lambda i: np.prod(problems[i].problem.bounds, dtype=np.float64))
    cut = len(problems) - max(1, len(problems) // 4)
    result = {"honest": honest, "larger": [(by_size[:cut], by_size[cut:])]}
    if holdout:
        result["holdout"] = [(list(range(len(problems))), list(range(len(problems), len(problems) + len(holdout))))]
    return result


SHARE_CAPS = {"interleave-weighted": MAX_SHARE, "interleave-cap-2/3": 2 / 3, "interleave-cap-9/10": 9 / 10}


def study(problems: list[ProblemSamples], holdout: list[ProblemSamples]) -> dict[str, dict[str, list[int]]]:
    """Per split, per ranker, the positions of the scored problems."""
    everything = problems + holdout
    matrices = {variant: [extract(p) for p in everything] for variant, extract in FEATURES.items()}
    heuristic = {i: Heuristic(0).order(p.ranking_input()) for i, p in enumerate(everything)}
    heuristic_pos = positions(everything, heuristic)
    result, honest_forest = {}, {}
    for split, folds in splits(problems, holdout).items():
        orders: dict[str, dict[int, np.ndarray]] = {variant: {} for variant in FEATURES}
        fold_of = {}
        for f, (train, test) in enumerate(folds):
            fold_of.update({i: f for i in test})
            for variant in FEATURES:
                orders[variant].update(fold_orders(everything, train, test, variant, matrices))
        scored = sorted(fold_of)
        if split == "honest":
            honest_forest = positions(everything, orders["forest"])
        out = {"heuristic": [heuristic_pos[i] for i in scored]}
        for variant in FEATURES:
            out[variant] = [positions(everything, {i: orders[variant][i]})[i] for i in scored]
        out["borda"] = [
            first_near_optimal(everything[i].ratios, blended_order(orders["forest"][i], heuristic[i]), TOLERANCE)
            for i in scored
        ]
        out["interleave"] = [
            first_near_optimal(
                everything[i].ratios, interleaved_order(orders["forest"][i], heuristic[i], 0.5), TOLERANCE
            )
            for i in scored
        ]
        outside = {}  # per scored problem, the honest positions of the problems outside its fold
        for i in scored:
            others = [j for j in honest_forest if fold_of.get(j) != fold_of[i]]
            outside[i] = ([honest_forest[j] for j in others], [heuristic_pos[j] for j in others])
        for name, cap in SHARE_CAPS.items():
            out[name] = [
                first_near_optimal(
                    everything[i].ratios,
                    interleaved_order(orders["forest"][i], heuristic[i], forest_share(*outside[i], cap)),
                    TOLERANCE,
                )
                for i in scored
            ]
        result[split] = out
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archs", default="emeraldrapids,znver3,sm_90")
    parser.add_argument("--dataset-dir", type=Path, default=ROOT / "datasets")
    args = parser.parse_args()
    for arch in args.archs.split(","):
        dataset = load_dataset(args.dataset_dir, arch)
        for kind, indices in by_kind(dataset.problems).items():
            problems = [dataset.problems[i] for i in indices]
            if len(set(honest_groups([p.problem for p in problems]))) < 2:
                print(f"{arch} {kind}: fewer than 2 groups of neighbours, not scored")
                continue
            holdout = [p for p in dataset.holdout if p.problem.op_kind == kind]
            result = study(problems, holdout)
            for split, by_ranker in result.items():
                if not next(iter(by_ranker.values())):
                    continue
                print(
                    f"{arch} {kind} {split} ({len(next(iter(by_ranker.values())))} problems), median / mean / max "
                    "position within 5 %:"
                )
                for name, found in by_ranker.items():
                    print(f"  {name:<22} {median(found):6.1f} / {mean(found):6.2f} / {max(found):4d}   {found}")


if __name__ == "__main__":
    main()
