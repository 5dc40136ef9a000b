"""Which training target and which ranking transfer best to a CPU the model never saw?

For every CPU arch under `datasets/`, forests are trained on the family's *other* archs only (leave-arch-out)
and, separately, on the arch's own other problems (held out by problem, 5 folds). Each forest is trained with
each label of `mltune.learn.labels` and scored alone and blended with the heuristic's order
(`mltune.rankers.blend`). The table gives, per arch and variant, the median / mean 1-based position of the
first candidate within 5 % of the best, beside the heuristic's and a uniform shuffle's expectation.

    python benchmarks/studies/ranking/transfer_study.py [--dataset-dir datasets] [--archs emeraldrapids znver3]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from statistics import mean, median

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from mltune.learn.labels import LABELS  # noqa: E402
from mltune.learn.neighbourhood import PER_PROBLEM  # noqa: E402
from mltune.learn.pooled import family_archs, load_pooled  # noqa: E402
from mltune.learn.replay import replay  # noqa: E402
from mltune.learn.samples import ProblemSamples, load_dataset  # noqa: E402
from mltune.learn.scoring import first_near_optimal, near_optimal, shuffle_expectation  # noqa: E402
from mltune.learn.train import feature_table, fit_model, kind_fold_models  # noqa: E402
from mltune.rankers.blend import blended_order  # noqa: E402
from mltune.rankers.heuristic import Heuristic  # noqa: E402
from mltune.rankers.refit import RefittedForest  # noqa: E402
from mltune.search.settings import LoopSettings  # noqa: E402

TOLERANCE = 0.05
BATCH = LoopSettings.batch_size  # the refitted forest learns after each batch, as in a run


def forest_order(model, samples: ProblemSamples) -> np.ndarray:
    features = samples.features()
    predicted = model.predict(features.names, features.values)
    ties = np.random.default_rng(0).random(len(predicted))
    return np.lexsort((ties, predicted))


def positions(orders: list[np.ndarray], problems: list[ProblemSamples]) -> list[int]:
    return [first_near_optimal(p.ratios, order, TOLERANCE) for order, p in zip(orders, problems)]


def cell(values: list[int] | list[float]) -> str:
    return f"{median(values):5.1f} / {mean(values):5.2f}"


def study(dataset_dir: Path, arch: str) -> list[tuple[str, str]]:
    problems = [p for p in load_dataset(dataset_dir, arch).problems if p.problem.op_kind == "contraction"]
    others = family_archs(dataset_dir, "cpu", exclude=arch)
    pooled = [p for p in load_pooled(dataset_dir, "cpu", others).problems if p.problem.op_kind == "contraction"]
    heuristic = [Heuristic(0).order(p.ranking_input()) for p in problems]
    expected = [shuffle_expectation(len(p.ratios), int(near_optimal(p.ratios, TOLERANCE).sum())) for p in problems]
    rows = [("shuffle (expected)", cell(expected)), ("heuristic", cell(positions(heuristic, problems)))]
    for label_name, label in LABELS.items():
        transfer = fit_model(feature_table(pooled, label), slice(None), 0)
        lao = [forest_order(transfer, p) for p in problems]
        in_arch_models = {i: m for held, m in kind_fold_models(problems, 0, label, PER_PROBLEM) for i in held}
        in_arch = [forest_order(in_arch_models[i], p) for i, p in enumerate(problems)]
        for scope, orders, models in (
            ("leave-arch-out", lao, {i: transfer for i in range(len(problems))}),
            ("in-arch", in_arch, in_arch_models),
        ):
            rows.append((f"forest [{label_name}], {scope}", cell(positions(orders, problems))))
            blended = [blended_order(o, h) for o, h in zip(orders, heuristic)]
            rows.append((f"forest [{label_name}] + heuristic, {scope}", cell(positions(blended, problems))))
            refitted = [replay(RefittedForest(0, model=models[i]), p, BATCH) for i, p in enumerate(problems)]
            rows.append((f"forest [{label_name}] refitted, {scope}", cell(positions(refitted, problems))))
    print(
        f"{arch}: {len(problems)} problems; trained for leave-arch-out on {', '.join(others)} ({len(pooled)} problems)",
        flush=True,
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset-dir", type=Path, default=ROOT / "datasets")
    parser.add_argument("--archs", nargs="*", default=None, help="default: every CPU arch folder")
    args = parser.parse_args()
    archs = args.archs or family_archs(args.dataset_dir, "cpu")
    tables = {arch: dict(study(args.dataset_dir, arch)) for arch in archs}
    names = list(next(iter(tables.values())))
    print(f"\nmedian / mean position of the first candidate within {TOLERANCE:.0%} of the best")
    print(f"{'ranker':<52}" + "".join(f"{arch:>18}" for arch in archs))
    for name in names:
        print(f"{name:<52}" + "".join(f"{tables[arch][name]:>18}" for arch in archs))


if __name__ == "__main__":
    main()
