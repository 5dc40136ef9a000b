"""Does the random-forest ranker fit its budget? Train time, model size, and the time to rank 10,000 candidates.

Budget: training <= 60 s on 2 cores, model file <= 5 MB, ranking 10,000 candidates <= 1 s.
Trains on `DATASET_DIR/ARCH` (or, with `--family cpu`, on every CPU arch there, pooled; cross-validation
included, as `mltune train` does) into a temporary folder, then ranks 10,000 candidates of the
largest CPU contraction space among the data with the contraction model just trained,
and times one TPE rescoring of the same candidates. A fit on random rows the size of a
40-problem x 150-candidate dataset checks how training scales beyond the dataset at hand.

    python benchmarks/ranking/forest_budget.py --arch znver4 [--dataset-dir datasets]
    python benchmarks/ranking/forest_budget.py --family cpu [--dataset-dir datasets]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from mltune.learn.forest import fit_forest, load_model
from mltune.learn.model_files import MODEL_FILE, family_name
from mltune.learn.pooled import family_archs, load_pooled
from mltune.learn.samples import load_dataset
from mltune.learn.train import train, train_family
from mltune.rankers import RankingInput
from mltune.rankers.forest import RandomForest
from mltune.rankers.tpe import Tpe
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.cpu_contraction import CpuContraction

CANDIDATES = 10_000
SCALE_ROWS = 40 * 150
KIND = "contraction"  # the CPU contraction space is what is ranked below


def ten_thousand_candidates(problems) -> RankingInput:
    """10,000 candidates (a seeded sample) of the largest space among the contraction problems."""
    spaces = [
        (p, CpuContraction(p.problem, p.target, None).candidates()) for p in problems if p.problem.op_kind == KIND
    ]
    samples, space = max(spaces, key=lambda pair: len(pair[1]))
    rows = np.random.default_rng(0).choice(len(space), min(CANDIDATES, len(space)), replace=False)
    return RankingInput(samples.problem, samples.target, CandidateSet(space.names, space.values[np.sort(rows)]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--arch")
    which.add_argument("--family", choices=["cpu"])
    parser.add_argument("--dataset-dir", type=Path, default=Path("datasets"))
    args = parser.parse_args()
    name = args.arch or family_name(args.family)
    with tempfile.TemporaryDirectory() as models:
        if args.family:  # pooled: the quality gate does not decide what is measured here
            report = train_family(args.dataset_dir, args.family, Path(models), force=True)
        else:
            report = train(args.dataset_dir, args.arch, Path(models), force=True)
        size = (Path(models) / name / KIND / MODEL_FILE).stat().st_size
        model = load_model(Path(models), name, KIND).model
    contraction = report["kinds"][KIND]
    print(
        f"train (with {contraction['cv']['folds']}-fold CV) on {contraction['samples']} contraction candidates "
        f"({len(report['kinds'])} model(s)): {report['seconds']:.1f} s"
    )
    print(f"model file: {size / 1024:.0f} KiB")

    problems = (
        load_pooled(args.dataset_dir, args.family, family_archs(args.dataset_dir, args.family)).problems
        if args.family
        else load_dataset(args.dataset_dir, args.arch).problems
    )
    ranking_input = ten_thousand_candidates(problems)
    ranker = RandomForest(model=model)
    started = time.perf_counter()
    ranker.start(ranking_input)
    print(
        f"rank {len(ranking_input.candidates)} candidates ({ranking_input.problem.key}): "
        f"{time.perf_counter() - started:.3f} s (features + prediction + sort)"
    )

    tpe = Tpe()
    tpe.start(ranking_input)
    for index in tpe.ask(50):
        tpe.tell(index, float(np.random.default_rng(index).uniform(0.5, 2.0)))
    started = time.perf_counter()
    tpe.ask(8)
    print(
        f"TPE: rescore {len(ranking_input.candidates) - 50} candidates after 50 results: "
        f"{time.perf_counter() - started:.3f} s"
    )

    rng = np.random.default_rng(0)
    started = time.perf_counter()
    forest = fit_forest(rng.random((SCALE_ROWS, len(model.feature_names))), rng.random(SCALE_ROWS))
    seconds = time.perf_counter() - started
    size = len(forest.to_bytes())
    print(
        f"one fit on {SCALE_ROWS} random rows x {len(model.feature_names)} features: {seconds:.1f} s "
        f"(train fits folds + 1 times), {size / 1024:.0f} KiB"
    )


if __name__ == "__main__":
    main()
