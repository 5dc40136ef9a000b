"""`mltune train`: fit the tree-ensemble cost models of one arch (or of every arch of a family, pooled), one per
op kind, cross-validated on problems the model never saw, and ship only those that rank better than the heuristic.
Each kind's model is a random forest or gradient-boosted trees (`mltune.learn.learners`), whichever ranks the
held-out problems better.

Op kinds have different feature columns, so a dataset of matmuls and convolutions gives two
models; a kind with fewer than 2 problems cannot be cross-validated and is skipped. Folds are grouped
(`GroupKFold`) by problem and, for the verdict, by neighbourhood (`mltune.learn.neighbourhood`: a problem goes out
with every problem within 2x of it), so the CV number that decides is measured as the model will be used, on a new
shape. The same held-out problems judge the model against the heuristic (and an arch's model against its
family's), `mltune.learn.quality`. The problems of the dataset's `holdout.json` are never trained on.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from statistics import mean, median
from typing import Any, Sequence

import numpy as np
from scipy.stats import spearmanr
from sklearn.model_selection import GroupKFold

from mltune.errors import UserError
from mltune.features import TRAINED_WITHOUT, target_family
from mltune.learn.forest import TrainedModel, save_model
from mltune.learn.model_files import family_name
from mltune.learn.learner_names import FOREST, LEARNER_NAMES
from mltune.learn.learners import LEARNERS, SETTINGS
from mltune.learn.labels import Label, log_ratio
from mltune.learn.neighbourhood import HONEST, PER_PROBLEM, SPLITS, can_hold_out, neighbours_of
from mltune.learn.pooled import arch_family, family_archs, load_pooled
from mltune.learn.quality import family_on, family_scores, judge
from mltune.learn.samples import Dataset, ProblemSamples, load_dataset
from mltune.learn.scoring import first_near_optimal, score_order
from mltune.learn.share import fold_shares, forest_share
from mltune.rankers.blend import interleaved_order
from mltune.rankers.forest import RandomForest
from mltune.rankers.heuristic import Heuristic
from mltune.targets.stored import facts_to_record

MAX_FOLDS = 5
CV_TOLERANCE = 0.05


@dataclass(frozen=True)
class FeatureTable:
    """All problems' candidates stacked: features, labels log(time / baseline) and each row's problem (its index)."""

    names: tuple[str, ...]
    values: np.ndarray
    labels: np.ndarray
    problem_of_row: np.ndarray


def feature_table(problems: Sequence[ProblemSamples], label: Label = log_ratio) -> FeatureTable:
    """The problems' candidates stacked, less the columns of `TRAINED_WITHOUT` for their kind and target family."""
    matrices = [p.features() for p in problems]
    names = matrices[0].names
    if any(m.names != names for m in matrices):
        kinds = sorted({(p.problem.op_kind, p.target.kind) for p in problems})
        described = ", ".join(f"{kind} on {family}" for kind, family in kinds)
        raise UserError(
            f"the records mix problems whose features differ ({described}); one model learns one feature "
            "set: keep the others in another dataset directory"
        )
    left_out = TRAINED_WITHOUT.get((target_family(problems[0].target), problems[0].problem.op_kind), ())
    kept = [i for i, name in enumerate(names) if name not in left_out]
    return FeatureTable(
        names=tuple(names[i] for i in kept),
        values=np.concatenate([m.values[:, kept] for m in matrices]),
        labels=np.concatenate([label(p.ratios) for p in problems]),
        problem_of_row=np.concatenate([np.full(len(p.ratios), i) for i, p in enumerate(problems)]),
    )


def fit_model(table: FeatureTable, rows: np.ndarray | slice, seed: int, learner: str = FOREST) -> TrainedModel:
    return TrainedModel(
        LEARNERS[learner](table.values[rows], table.labels[rows], table.problem_of_row[rows], seed), table.names
    )


def problem_folds(problems: Sequence[ProblemSamples], split: str = HONEST) -> list[tuple[list[int], list[int]]]:
    """The `GroupKFold` folds over the problems' rows, grouped as `split` says (`mltune.learn.neighbourhood.SPLITS`):
    per fold, (indices of the held-out problems, of the problems trained on: the others, less the held-out ones'
    neighbours where the split says so). Every learned ranker is scored on the same folds. A fold left with nothing
    to learn from (every problem a neighbour of a held-out one) is a one-line error."""
    shapes = [p.problem for p in problems]
    group_of_problem = np.array(SPLITS[split].groups(shapes))
    distinct = len(set(group_of_problem.tolist()))
    if distinct < 2:
        raise UserError(f"cross-validation needs at least 2 problems, the dataset has {distinct}")
    problem_of_row = np.concatenate([np.full(len(p.ratios), i) for i, p in enumerate(problems)])
    groups = group_of_problem[problem_of_row]
    folds = []
    for _, test in GroupKFold(n_splits=min(MAX_FOLDS, distinct)).split(groups, groups=groups):
        held_out = sorted(set(problem_of_row[test].tolist()))
        left_out = neighbours_of(shapes, held_out) if SPLITS[split].without_neighbours else set(held_out)
        trained_on = [i for i in range(len(problems)) if i not in left_out]
        if not trained_on:
            raise UserError(
                f"cross-validation ({split} split): every problem is within 2x of "
                f"{', '.join(problems[i].key for i in held_out)}; nothing is left to learn from"
            )
        folds.append((held_out, trained_on))
    return folds


def fold_models(
    problems: Sequence[ProblemSamples],
    seed: int = 0,
    label: Label = log_ratio,
    split: str = HONEST,
    learner: str = FOREST,
) -> list[tuple[list[int], TrainedModel]]:
    """One model per fold of `problem_folds`: (indices of the held-out problems, the model `learner` fits on the
    fold's training problems)."""
    folds = problem_folds(problems, split)
    table = feature_table(problems, label)
    return [
        (held_out, fit_model(table, np.isin(table.problem_of_row, trained_on), seed, learner))
        for held_out, trained_on in folds
    ]


def by_kind(problems: Sequence[ProblemSamples]) -> dict[str, list[int]]:
    """Indices of the problems of each model kind (the op kind, `KIND_simt` for SIMT GPU candidates), in dataset
    order: each kind has its own model."""
    kinds: dict[str, list[int]] = {}
    for i, p in enumerate(problems):
        kinds.setdefault(p.model_kind, []).append(i)
    return kinds


def _check_kind_sizes(problems: Sequence[ProblemSamples]) -> dict[str, list[int]]:
    kinds = by_kind(problems)
    for kind, indices in kinds.items():
        if len(indices) < 2:
            raise UserError(
                f"cross-validation needs at least 2 problems of each op kind; the dataset has {len(indices)} {kind}"
            )
    return kinds


def kind_folds(problems: Sequence[ProblemSamples], split: str = HONEST) -> list[tuple[list[int], list[int]]]:
    """`problem_folds` of `split` within each op kind, as indices into `problems`: (held out, trained on) per fold,
    the problems trained on being those of the held-out problems' kind that the split leaves in, as
    `kind_fold_models` trains them."""
    folds = []
    for indices in _check_kind_sizes(problems).values():
        for held_out, trained_on in problem_folds([problems[i] for i in indices], split):
            folds.append(([indices[i] for i in held_out], [indices[i] for i in trained_on]))
    return folds


def kind_fold_models(
    problems: Sequence[ProblemSamples],
    seed: int = 0,
    label: Label = log_ratio,
    split: str = HONEST,
    learner: str = FOREST,
) -> list[tuple[list[int], TrainedModel]]:
    """`fold_models` of each op kind, held-out indices into `problems`: every problem gets a model of its kind
    trained without it."""
    folds = []
    for indices in _check_kind_sizes(problems).values():
        folds += [
            ([indices[i] for i in held_out], model)
            for held_out, model in fold_models([problems[i] for i in indices], seed, label, split, learner)
        ]
    return folds


def _held_out_scores(
    problems: Sequence[ProblemSamples], seed: int, split: str, learner: str
) -> dict[str, dict[str, Any]]:
    """Per problem held out of its fold: the model's Spearman correlation, the iterations to within 5 % of the
    ranker as it ships (the forest interleaved with the heuristic, its share set from the other folds), of the
    forest alone and of the heuristic on the same problem (the baseline a model must beat to be shipped)."""
    rows, forest_orders, heuristic_orders, fold_of = {}, {}, {}, {}
    for fold, (held_out, model) in enumerate(fold_models(problems, seed, split=split, learner=learner)):
        for i in held_out:
            p = problems[i]
            features = p.features()
            with warnings.catch_warnings():  # constant predictions: no correlation, reported as n/a
                warnings.simplefilter("ignore")
                rho = spearmanr(model.predict(features.names, features.values), p.ratios).statistic
            forest_orders[i] = RandomForest(seed, model=model).order(p.ranking_input())
            heuristic_orders[i] = Heuristic(seed).order(p.ranking_input())
            fold_of[i] = fold
            rows[i] = {"spearman": None if math.isnan(rho) else float(rho)}
    forest = {i: first_near_optimal(problems[i].ratios, order, CV_TOLERANCE) for i, order in forest_orders.items()}
    heuristic = {
        i: first_near_optimal(problems[i].ratios, order, CV_TOLERANCE) for i, order in heuristic_orders.items()
    }
    shares = fold_shares(fold_of, forest, heuristic)
    per_problem = {}
    for i in sorted(rows):
        p = problems[i]
        score = score_order(p.key, p.ratios, interleaved_order(forest_orders[i], heuristic_orders[i], shares[i]))
        per_problem[p.key] = {
            **rows[i],
            "iterations": score.positions[CV_TOLERANCE],
            "share": shares[i],
            "forest_iterations": forest[i],
            "heuristic_iterations": heuristic[i],
            "shuffle_expected": score.shuffle_expected[CV_TOLERANCE],
        }
    return per_problem


def cross_validate(
    problems: Sequence[ProblemSamples], seed: int = 0, split: str = HONEST, learner: str = FOREST
) -> dict[str, Any]:
    """Per held-out problem of `split`: Spearman rank correlation of predicted vs measured, and iterations to within
    5 % (the model's alone and the heuristic's too), `learner` fitting the models; the model's share of the picks
    for the shipped ranker."""
    per_problem = _held_out_scores(problems, seed, split, learner)
    rhos = [v["spearman"] for v in per_problem.values() if v["spearman"] is not None]
    iterations = [v["iterations"] for v in per_problem.values()]
    forest = [v["forest_iterations"] for v in per_problem.values()]
    heuristic = [v["heuristic_iterations"] for v in per_problem.values()]
    groups = set(SPLITS[split].groups([p.problem for p in problems]))
    return {
        "split": split,
        "learner": learner,
        "folds": min(MAX_FOLDS, len(groups)),
        "tolerance": CV_TOLERANCE,
        "problems": per_problem,
        "median_iterations": float(median(iterations)),
        "mean_iterations": mean(iterations),
        "forest_median_iterations": float(median(forest)),
        "forest_mean_iterations": mean(forest),
        "heuristic_median_iterations": float(median(heuristic)),
        "heuristic_mean_iterations": mean(heuristic),
        "forest_share": forest_share(forest, heuristic),
        "mean_shuffle_expected": mean(v["shuffle_expected"] for v in per_problem.values()),
        "mean_spearman": mean(rhos) if rhos else None,
    }


@dataclass(frozen=True)
class Source:
    """What a model is trained from: the dataset(s) read, and the name of the model folder (arch or family)."""

    name: str
    data_sha256: Any
    compilers: tuple[str, ...]
    failed_records: int
    family_cv: dict[str, dict[str, int]] | None = None  # per kind, the family model's held-out iterations per problem


def _train_kind(
    source: Source,
    problems: Sequence[ProblemSamples],
    op_kind: str,
    model_dir: Path,
    seed: int,
    force: bool,
    learners: Sequence[str],
) -> dict[str, Any]:
    """Cross-validate `learners` and fit one op kind's model with the best; write it to `model_dir/NAME/op_kind/`
    unless it ranks worse than the heuristic or the family model (then only with `force`). Returns its metadata,
    folder (None if refused)."""
    by_learner = {learner: cross_validate(problems, seed, HONEST, learner) for learner in learners}
    learner = choose_learner(by_learner)
    cv = by_learner[learner]
    cv_per_problem = cross_validate(problems, seed, PER_PROBLEM, learner)
    verdict = judge(cv, family_on([p.key for p in problems], (source.family_cv or {}).get(op_kind)))
    targets = {p.target: p.target_origin for p in problems}
    metadata = {
        "targets": [
            {"facts": facts_to_record(facts), "origin": origin, "summary": facts.describe()}
            for facts, origin in targets.items()
        ],
        "pipelines": sorted({name for p in problems for name in p.pipelines}),
        "training_data_sha256": source.data_sha256,
        "compilers": list(source.compilers),
        "problems": [p.key for p in problems],
        "samples": int(sum(len(p.ratios) for p in problems)),
        "failed_records_ignored": source.failed_records,
        "label": "log(candidate time / baseline time), median over rounds and records",
        "seed": seed,
        "learner": learner,
        "learner_settings": SETTINGS[learner],
        "learners": {name: {key: value[key] for key in LEARNER_SUMMARY} for name, value in by_learner.items()},
        "forest_share": cv["forest_share"],
        "cv": cv,
        "cv_per_problem": cv_per_problem,
        "quality": {**verdict, "forced": force and not verdict["ok"]},
    }
    if not verdict["ok"] and not force:
        return {"folder": None, **metadata}
    model = fit_model(feature_table(problems), slice(None), seed, learner)
    return {"folder": save_model(model_dir, source.name, op_kind, model, metadata), **metadata}


LEARNER_SUMMARY = ("median_iterations", "mean_iterations", "forest_median_iterations", "forest_mean_iterations")


def choose_learner(by_learner: dict[str, dict[str, Any]]) -> str:
    """The learner whose ranker, as it ships (interleaved with the heuristic), needed fewer benchmarks on the
    held-out problems: the lower mean, then the lower median; the first of `LEARNERS` on a tie."""
    order = list(LEARNERS)
    return min(
        by_learner,
        key=lambda name: (
            by_learner[name]["mean_iterations"],
            by_learner[name]["median_iterations"],
            order.index(name),
        ),
    )


def cross_validatable(problems: Sequence[ProblemSamples]) -> bool:
    """Whether a kind's problems can be cross-validated honestly: some problem has a non-neighbour to learn from."""
    return can_hold_out([p.problem for p in problems])


def _train_groups(
    source: Source, problems: Sequence[ProblemSamples], model_dir: Path, seed: int, force: bool, learners: Sequence[str]
) -> dict[str, Any]:
    """A model per op kind with at least 2 problems; returns each kind's metadata, the kinds skipped (and why)."""
    started = time.perf_counter()
    groups = {kind: [problems[i] for i in indices] for kind, indices in by_kind(problems).items()}
    skipped = {
        kind: f"{len(group)} problem(s), each within 2x of every other; cross-validation needs at least 2 "
        "problems that are not"
        for kind, group in groups.items()
        if not cross_validatable(group)
    }
    if len(skipped) == len(groups):
        raise UserError(
            "cross-validation needs at least 2 problems of one op kind that are not neighbours (within 2x "
            "in every dimension); the dataset has " + "; ".join(f"{kind}: {why}" for kind, why in skipped.items())
        )
    kinds = {
        kind: _train_kind(source, group, kind, model_dir, seed, force, learners)
        for kind, group in groups.items()
        if kind not in skipped
    }
    return {
        "name": source.name,
        "kinds": kinds,
        "skipped": skipped,
        "failed_records_ignored": source.failed_records,
        "seconds": time.perf_counter() - started,
    }


def train(
    dataset_dir: Path,
    arch: str,
    model_dir: Path,
    seed: int = 0,
    force: bool = False,
    learners: Sequence[str] = LEARNER_NAMES,
) -> dict[str, Any]:
    """Train a model per op kind of `dataset_dir/arch` with the best of `learners`, each judged against the heuristic
    and against the family's pooled model on the same problems when `model_dir` has one."""
    dataset: Dataset = load_dataset(dataset_dir, arch)
    family_cv = family_scores(model_dir, arch, arch_family(arch))
    source = Source(arch, dataset.data_sha256, dataset.compilers, dataset.failed_records, family_cv)
    return _train_groups(source, dataset.problems, model_dir, seed, force, learners)


def train_family(
    dataset_dir: Path,
    family: str,
    model_dir: Path,
    seed: int = 0,
    force: bool = False,
    learners: Sequence[str] = LEARNER_NAMES,
) -> dict[str, Any]:
    """Train the pooled models of a family (`family-cpu`, ...) on every arch folder of that family, each with the
    best of `learners`."""
    pooled = load_pooled(dataset_dir, family, family_archs(dataset_dir, family))
    source = Source(family_name(family), pooled.data_sha256, pooled.compilers, pooled.failed_records)
    return {**_train_groups(source, pooled.problems, model_dir, seed, force, learners), "archs": list(pooled.archs)}
