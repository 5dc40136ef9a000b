"""`mltune train`: fit the random-forest cost models of one arch, one per op kind, cross-validated by problem.

Op kinds have different feature columns, so a dataset of matmuls and convolutions gives two
models; a kind with fewer than 2 problems cannot be cross-validated and is skipped. Folds are grouped by problem (`GroupKFold`), so every CV number is measured on problems the
model never saw: that is how it will be used, on a new dispatch.
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
from mltune.evaluate import score_order
from mltune.learn.forest import TrainedModel, fit_forest, save_model
from mltune.learn.samples import Dataset, ProblemSamples, load_dataset
from mltune.rankers.forest import RandomForest
from mltune.targets.stored import facts_to_record

MAX_FOLDS = 5
CV_TOLERANCE = 0.05


@dataclass(frozen=True)
class FeatureTable:
    """All problems' candidates stacked: features, labels log(time / baseline), and each row's problem."""

    names: tuple[str, ...]
    values: np.ndarray
    labels: np.ndarray
    groups: np.ndarray


def feature_table(problems: Sequence[ProblemSamples]) -> FeatureTable:
    matrices = [p.features() for p in problems]
    names = matrices[0].names
    if any(m.names != names for m in matrices):
        kinds = sorted({(p.problem.op_kind, p.target.kind) for p in problems})
        described = ", ".join(f"{kind} on {family}" for kind, family in kinds)
        raise UserError(f"the records mix problems whose features differ ({described}); one model learns one feature "
                        "set: keep the others in another dataset directory")
    return FeatureTable(
        names=names,
        values=np.concatenate([m.values for m in matrices]),
        labels=np.concatenate([np.log(p.ratios) for p in problems]),
        groups=np.concatenate([np.full(len(p.ratios), i) for i, p in enumerate(problems)]),
    )


def fit_model(table: FeatureTable, rows: np.ndarray | slice, seed: int) -> TrainedModel:
    return TrainedModel(fit_forest(table.values[rows], table.labels[rows], seed), table.names)


def fold_models(problems: Sequence[ProblemSamples], seed: int = 0) -> list[tuple[list[int], TrainedModel]]:
    """One model per `GroupKFold` fold: (indices of the held-out problems, the model trained on the others)."""
    if len(problems) < 2:
        raise UserError(f"cross-validation needs at least 2 problems, the dataset has {len(problems)}")
    table = feature_table(problems)
    folds = GroupKFold(n_splits=min(MAX_FOLDS, len(problems)))
    return [(sorted(set(table.groups[test].tolist())), fit_model(table, train, seed))
            for train, test in folds.split(table.values, table.labels, table.groups)]


def by_kind(problems: Sequence[ProblemSamples]) -> dict[str, list[int]]:
    """Indices of the problems of each op kind, in dataset order: each kind has its own model."""
    kinds: dict[str, list[int]] = {}
    for i, p in enumerate(problems):
        kinds.setdefault(p.problem.op_kind, []).append(i)
    return kinds


def kind_fold_models(problems: Sequence[ProblemSamples], seed: int = 0) -> list[tuple[list[int], TrainedModel]]:
    """`fold_models` of each op kind, held-out indices into `problems`: every problem gets a model of its kind
    trained without it."""
    folds = []
    for kind, indices in by_kind(problems).items():
        if len(indices) < 2:
            raise UserError(f"cross-validation needs at least 2 problems of each op kind; the dataset has "
                            f"{len(indices)} {kind}")
        folds += [([indices[i] for i in held_out], model)
                  for held_out, model in fold_models([problems[i] for i in indices], seed)]
    return folds


def cross_validate(problems: Sequence[ProblemSamples], seed: int = 0) -> dict[str, Any]:
    """Per held-out problem: Spearman rank correlation of predicted vs measured, and iterations to within 5 %."""
    per_problem = {}
    for held_out, model in fold_models(problems, seed):
        for i in held_out:
            p = problems[i]
            features = p.features()
            with warnings.catch_warnings():  # constant predictions: no correlation, reported as n/a
                warnings.simplefilter("ignore")
                rho = spearmanr(model.predict(features.names, features.values), p.ratios).statistic
            order = RandomForest(seed, model=model).order(p.ranking_input())
            score = score_order(p.key, p.ratios, order)
            per_problem[p.key] = {"spearman": None if math.isnan(rho) else float(rho),
                                  "iterations": score.positions[CV_TOLERANCE],
                                  "shuffle_expected": score.shuffle_expected[CV_TOLERANCE]}
    rhos = [v["spearman"] for v in per_problem.values() if v["spearman"] is not None]
    iterations = [v["iterations"] for v in per_problem.values()]
    return {"folds": min(MAX_FOLDS, len(problems)), "tolerance": CV_TOLERANCE, "problems": per_problem,
            "median_iterations": float(median(iterations)), "mean_iterations": mean(iterations),
            "mean_shuffle_expected": mean(v["shuffle_expected"] for v in per_problem.values()),
            "mean_spearman": mean(rhos) if rhos else None}


def _train_kind(dataset: Dataset, problems: Sequence[ProblemSamples], arch: str, op_kind: str, model_dir: Path,
                seed: int) -> dict[str, Any]:
    """Cross-validate and fit one op kind's model, write it to `model_dir/arch/op_kind/`; returns its sidecar's
    metadata and folder."""
    cv = cross_validate(problems, seed)
    table = feature_table(problems)
    model = fit_model(table, slice(None), seed)
    targets = {p.target: p.target_origin for p in problems}
    metadata = {"targets": [{"facts": facts_to_record(facts), "origin": origin, "summary": facts.describe()}
                            for facts, origin in targets.items()],
                "pipelines": sorted({name for p in problems for name in p.pipelines}),
                "training_data_sha256": dataset.data_sha256, "compilers": list(dataset.compilers),
                "problems": [p.key for p in problems],
                "samples": int(len(table.labels)), "failed_records_ignored": dataset.failed_records,
                "label": "log(candidate time / baseline time), median over rounds and records", "seed": seed,
                "cv": cv}
    return {"folder": save_model(model_dir, arch, op_kind, model, metadata), **metadata}


def train(dataset_dir: Path, arch: str, model_dir: Path, seed: int = 0) -> dict[str, Any]:
    """Train a model per op kind of `dataset_dir/arch` with at least 2 problems; returns each kind's metadata,
    the kinds skipped (and why) and the timing."""
    started = time.perf_counter()
    dataset: Dataset = load_dataset(dataset_dir, arch)
    groups = {kind: [dataset.problems[i] for i in indices] for kind, indices in by_kind(dataset.problems).items()}
    skipped = {kind: f"{len(problems)} problem; cross-validation needs at least 2"
               for kind, problems in groups.items() if len(problems) < 2}
    if len(skipped) == len(groups):
        raise UserError("cross-validation needs at least 2 problems of one op kind; the dataset has "
                        + ", ".join(f"{len(problems)} {kind}" for kind, problems in groups.items()))
    kinds = {kind: _train_kind(dataset, problems, arch, kind, model_dir, seed)
             for kind, problems in groups.items() if kind not in skipped}
    return {"arch": arch, "kinds": kinds, "skipped": skipped, "failed_records_ignored": dataset.failed_records,
            "seconds": time.perf_counter() - started}


def _print_kind(kind: str, report: dict[str, Any]) -> None:
    cv = report["cv"]
    print(f"{kind}: {report['samples']} candidates of {len(report['problems'])} problems")
    for target in report["targets"]:
        print(f"features for {target['facts']['arch']}: {target['summary']} ({target['origin']})")
    print(f"cross-validation ({cv['folds']} folds grouped by problem), per held-out problem:")
    print(f"  {'problem':<44} {'spearman':>8} {'iters@5%':>8} {'shuffle':>8}")
    for key, row in cv["problems"].items():
        rho = "n/a" if row["spearman"] is None else f"{row['spearman']:.3f}"
        print(f"  {key:<44} {rho:>8} {row['iterations']:>8} {row['shuffle_expected']:>8.1f}")
    rho = "n/a" if cv["mean_spearman"] is None else f"{cv['mean_spearman']:.3f}"
    print(f"  iterations to within 5 %: median {cv['median_iterations']:.1f}, mean {cv['mean_iterations']:.2f} "
          f"(shuffle expects {cv['mean_shuffle_expected']:.2f}); mean Spearman {rho}")
    print(f"model: {report['folder']}")


def print_training(report: dict[str, Any]) -> None:
    print(f"{report['failed_records_ignored']} failed records ignored")
    for kind, why in report["skipped"].items():
        print(f"{kind}: skipped, {why}")
    for kind, kind_report in report["kinds"].items():
        _print_kind(kind, kind_report)
    print(f"{len(report['kinds'])} model(s) in {report['seconds']:.1f} s")
