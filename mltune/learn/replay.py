"""`mltune evaluate`: replay recorded measurements through every ranker and score the orders (`docs/learned-ranking.md`).

For each problem the measured candidates form the pool. Every ranker runs through the
`Ranker` protocol exactly as in the tuning loop (asked in batches, told the recorded ratios),
so static rankers give their order restricted to the pool and TPE learns from the recorded
results. The random forest is scored only on problems held out of its training fold (one model
per op kind, as `mltune train` fits them), twice: folds by problem, and the honest folds by neighbourhood
(`mltune.learn.neighbourhood`: no problem within 2x of the scored one in training). The dataset's held-out problems
(`holdout.json`) are scored apart, by models trained on all the other problems. Installed ranker plugins
(`mltune.rankers.registry`) are scored beside mltune's own; one that learns from records (its factory takes
`records`) is made once per fold of the split being scored (or per op kind for the held-out problems), from the
records of that fold's training problems only, so it too is scored on problems it never saw.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Sequence

from mltune.errors import UserError
from mltune.learn.forest import TrainedModel
from mltune.learn.learner_names import FOREST
from mltune.learn.neighbourhood import HOLDOUT, HONEST, PER_PROBLEM
from mltune.learn.pooled import arch_family, family_archs, load_pooled
from mltune.learn.replay_near import NearDefaultReplay
from mltune.learn.replay_report import best_rounds_line, plot_solved, print_splits, print_summaries
from mltune.learn.samples import ProblemSamples, load_dataset
from mltune.learn.scoring import (
    ProblemScore,
    Summary,
    first_near_optimal,
    score_order,
    summarise,
)
from mltune.learn.share import fold_shares, forest_share
from mltune.learn.train import (
    CV_TOLERANCE,
    by_kind,
    cross_validatable,
    feature_table,
    fit_model,
    kind_fold_models,
    kind_folds,
)
from mltune.rankers import make_ranker, plugin_names
from mltune.rankers.base import Ranker, for_one_problem
from mltune.rankers.forest import RandomForest
from mltune.rankers.heuristic import Heuristic
from mltune.rankers.refit import RefittedForest
from mltune.rankers.registry import learns_from_records

STATIC_AND_ADAPTIVE = ("none", "shuffle", "heuristic", "tpe")
FOREST_ALONE = "random-forest-alone"  # not interleaved with the heuristic: what the shipped ranker was before
LEAVE_ARCH_OUT_SUFFIX = " (leave-arch-out)"


def replay(ranker: Ranker, samples: ProblemSamples, batch: int) -> list[int]:
    """The order in which `ranker` would have measured the pool, told each recorded ratio as it goes."""
    ranker.start(samples.ranking_input())
    order: list[int] = []
    while picked := ranker.ask(batch):
        order.extend(picked)
        for index in picked:
            ranker.tell(index, float(samples.ratios[index]))
    return order


def scoreable(problems: Sequence[ProblemSamples]) -> list[ProblemSamples]:
    """The problems of op kinds with 2 problems that are not neighbours: the forest of a kind can hold one out
    honestly only then. The others are left out for every ranker, so that all rankers are scored on the same
    problems."""
    kept: list[int] = []
    for kind, indices in by_kind(problems).items():
        if not cross_validatable([problems[i] for i in indices]):
            print(
                f"left out: {len(indices)} {kind} problem(s), each within 2x of every other (a forest needs 2 "
                "problems of a kind that are not neighbours to hold one out)"
            )
        else:
            kept += indices
    if not kept:
        raise UserError("no op kind has 2 problems: the forest cannot be scored on a problem it was not trained on")
    return [problems[i] for i in sorted(kept)]


def _forest_makers(
    models: dict[int, TrainedModel],
    seed: int,
    suffix: str = "",
    blend: bool = False,
    shares: dict[int, float] | None = None,
) -> dict[str, Callable[[int], Ranker]]:
    """The static and the refitted forest over each problem's own model (by problem index), each interleaved with
    the heuristic in its problem's share as `tune` ranks with a shipped model, and the static forest alone; or with
    `blend`, as `tune` ranks with a model that never saw the arch."""
    if blend:
        return {
            f"random-forest{suffix}": lambda i: RandomForest(seed, model=models[i], blend=True),
            f"random-forest-refit{suffix}": lambda i: RefittedForest(seed, model=models[i], blend=True),
        }
    share = (shares or {}).get
    return {
        f"random-forest{suffix}": lambda i: RandomForest(seed, model=models[i], share=share(i, 1.0)),
        f"random-forest-refit{suffix}": lambda i: RefittedForest(seed, model=models[i], share=share(i, 1.0)),
        f"{FOREST_ALONE}{suffix}": lambda i: RandomForest(seed, model=models[i]),
    }


def fold_positions(
    problems: Sequence[ProblemSamples], folds: Sequence[tuple[list[int], TrainedModel]], seed: int
) -> tuple[dict[int, float], dict[str, float]]:
    """Per held-out problem, the forest's share of the picks set from the other folds of its op kind
    (`mltune.learn.share.fold_shares`); per op kind, the share over all its problems (as `train` stores it)."""
    forest, heuristic, fold_of = {}, {}, {}
    for fold, (held_out, model) in enumerate(folds):
        for i in held_out:
            p = problems[i]
            forest[i] = first_near_optimal(
                p.ratios, RandomForest(seed, model=model).order(p.ranking_input()), CV_TOLERANCE
            )
            heuristic[i] = first_near_optimal(p.ratios, Heuristic(seed).order(p.ranking_input()), CV_TOLERANCE)
            fold_of[i] = fold
    shares, kind_shares = {}, {}
    for kind, indices in by_kind(problems).items():
        shares.update(fold_shares({i: fold_of[i] for i in indices}, forest, heuristic))
        kind_shares[kind] = forest_share([forest[i] for i in indices], [heuristic[i] for i in indices])
    return shares, kind_shares


def leave_arch_out_models(
    dataset_dir: Path, arch: str, problems: Sequence[ProblemSamples], seed: int, learner: str = FOREST
) -> dict[int, TrainedModel]:
    """Per problem, the model of its op kind trained on every other arch of its family (none of `arch`)."""
    family = arch_family(arch)
    pooled = load_pooled(dataset_dir, family, family_archs(dataset_dir, family, exclude=arch))
    print(
        f"leave-arch-out: forests trained on {', '.join(pooled.archs)} ({len(pooled.problems)} problems), "
        f"never on {arch}"
    )
    others = by_kind(pooled.problems)
    models = {}
    for kind, indices in by_kind(problems).items():
        if kind not in others:
            raise UserError(f"--leave-arch-out: no other {family} arch has {kind} records")
        kind_problems = [pooled.problems[j] for j in others[kind]]
        model = fit_model(feature_table(kind_problems), slice(None), seed, learner)
        models.update({i: model for i in indices})
    return models


def _replay_all(
    makers: dict[str, Callable[[int], Ranker]],
    problems: Sequence[ProblemSamples],
    batch: int,
    near: NearDefaultReplay | None = None,
) -> dict[str, list[ProblemScore]]:
    """Every maker's ranker replayed on every problem; with `near`, each beside its twin with picks near IREE's
    default."""
    if near is not None:
        makers = near.makers(makers, problems)
    return {
        name: [score_order(p.key, p.ratios, replay(make(i), p, batch)) for i, p in enumerate(problems)]
        for name, make in makers.items()
    }


def _static_makers(seed: int) -> dict[str, Callable[[int], Ranker]]:
    """mltune's rankers that learn nothing across problems, and the installed plugins that do not learn from
    records: scored once, the same on every split."""
    names = (*STATIC_AND_ADAPTIVE, *(name for name in plugin_names() if not learns_from_records(name)))
    return {name: lambda i, name=name: make_ranker(name, seed) for name in names}


def _learner_makers(
    folds: Sequence[tuple[list[int], Sequence[ProblemSamples]]], seed: int
) -> dict[str, Callable[[int], Ranker]]:
    """Every installed plugin that learns from records, made once per fold (held-out problem indices, the problems
    trained on) from the records of the fold's training problems only; each problem of the fold gets a copy of it,
    as `tune` gives each problem a copy of the one it made."""
    learners = [name for name in plugin_names() if learns_from_records(name)]
    if not learners:
        return {}
    from mltune.records.frame import samples_frame  # pandas: only for a plugin that learns

    frames = [(held_out, samples_frame(trained_on)) for held_out, trained_on in folds]
    makers: dict[str, Callable[[int], Ranker]] = {}
    for name in learners:
        fold_rankers: dict[int, Ranker] = {}
        for held_out, records in frames:
            fold_rankers.update(dict.fromkeys(held_out, make_ranker(name, seed, records=records)))
        makers[name] = lambda i, rankers=fold_rankers: for_one_problem(rankers[i])
    return makers


def score_rankers(
    problems: Sequence[ProblemSamples],
    seed: int,
    batch: int,
    transfer: dict[int, TrainedModel] | None = None,
    learner: str = FOREST,
    near: NearDefaultReplay | None = None,
) -> tuple[dict[str, dict[str, list[ProblemScore]]], dict[str, float]]:
    """Per split (`PER_PROBLEM`, `HONEST`), every ranker's score on every problem: the forests' and the learning
    plugins' from the fold of that split of its op kind that held it out, the others' (which learn nothing across
    problems) shared; with `transfer` (per problem, a model trained on other archs) the transferred forests' too,
    beside the per-problem split; with `near`, each one's twin with picks near IREE's default. Also, per op kind,
    the forest's share of the picks the honest split gives a model trained on all."""
    static = _replay_all(_static_makers(seed), problems, batch, near)
    splits, kind_shares = {}, {}
    for split in (PER_PROBLEM, HONEST):
        folds = kind_fold_models(problems, seed, split=split, learner=learner)
        models = {i: model for held_out, model in folds for i in held_out}
        shares, kind_shares[split] = fold_positions(problems, folds, seed)
        learners = _learner_makers(
            [(held_out, [problems[j] for j in trained_on]) for held_out, trained_on in kind_folds(problems, split)],
            seed,
        )
        splits[split] = {
            **static,
            **_replay_all({**_forest_makers(models, seed, shares=shares), **learners}, problems, batch, near),
        }
    if transfer is not None:
        splits[PER_PROBLEM].update(
            _replay_all(_forest_makers(transfer, seed, LEAVE_ARCH_OUT_SUFFIX, blend=True), problems, batch, near)
        )
    return splits, kind_shares[HONEST]


def score_holdout(
    trained_on: Sequence[ProblemSamples],
    holdout: Sequence[ProblemSamples],
    seed: int,
    batch: int,
    kind_shares: dict[str, float],
    learner: str = FOREST,
    near: NearDefaultReplay | None = None,
) -> dict[str, list[ProblemScore]]:
    """Every ranker on the problems kept out of training for good, the forests (and the learning plugins) trained on
    all of `trained_on` (per op kind, as `mltune train` ships them, with the share of `kind_shares`); a held-out
    kind with no problem to learn from is left out."""
    kinds = by_kind(trained_on)
    scored = [p for p in holdout if p.model_kind in kinds]
    scored_kinds = {kind: [i for i, p in enumerate(scored) if p.model_kind == kind] for kind in kinds}
    training = {kind: [trained_on[i] for i in indices] for kind, indices in kinds.items() if scored_kinds[kind]}
    models = {
        kind: fit_model(feature_table(problems), slice(None), seed, learner) for kind, problems in training.items()
    }
    makers = {
        **_static_makers(seed),
        **_forest_makers(
            {i: models[p.model_kind] for i, p in enumerate(scored)},
            seed,
            shares={i: kind_shares[p.model_kind] for i, p in enumerate(scored)},
        ),
        **_learner_makers([(scored_kinds[kind], problems) for kind, problems in training.items()], seed),
    }
    return _replay_all(makers, scored, batch, near)


def _jsonable(scores: dict[str, list[ProblemScore]], summaries: dict[str, Summary]) -> dict[str, Any]:
    return {
        name: {"summary": asdict(summaries[name]), "problems": [asdict(s) for s in ranker_scores]}
        for name, ranker_scores in scores.items()
    }


def _summaries(scores: dict[str, dict[str, list[ProblemScore]]]) -> dict[str, dict[str, Summary]]:
    return {
        split: {name: summarise(ranker_scores) for name, ranker_scores in by_ranker.items()}
        for split, by_ranker in scores.items()
        if all(by_ranker.values())
    }


def evaluate(
    dataset_dir: Path,
    arch: str,
    out_dir: Path,
    seed: int,
    batch: int,
    kind: str | None = None,
    leave_arch_out: bool = False,
    learner: str = FOREST,
    near: NearDefaultReplay | None = None,
) -> dict[str, dict[str, Summary]]:
    """Replay `dataset_dir/arch` (only its problems of op kind `kind`, if given), print the tables, write
    `evaluation.json` and the PNG (of the honest split) under `out_dir`; per split (per problem, honest, the
    held-out problems), each ranker's summary. With `leave_arch_out`, forests trained only on the family's other
    archs are scored beside those held out by problem. `learner` fits every model the learned rankers rank with
    (`mltune.learn.learners`). With `near`, every ranker but the reference orders is scored beside its twin with
    picks near IREE's default (`NAME+near-default`), as `tune` ranks a CPU dispatch."""
    dataset = load_dataset(dataset_dir, arch)
    problems = [p for p in dataset.problems if kind in (None, p.problem.op_kind, p.model_kind)]
    if not problems:
        raise UserError(f"--kind {kind}: the {arch} dataset has no {kind} problem")
    problems = scoreable(problems)
    transfer = leave_arch_out_models(dataset_dir, arch, problems, seed, learner) if leave_arch_out else None
    if near is not None and near.placed(problems):
        print(
            f"near-default: a share of {near.share:g} of the picks near IREE's default config, read for "
            f"{near.placed(problems)} of {len(problems)} problems (the others: their ranker's order alone)"
        )
    elif near is not None:
        print(
            "near-default: IREE's default config was read for no problem (GPU records, or CPU kinds without a "
            "one-op model): no ranker's twin is scored"
        )
    scores, kind_shares = score_rankers(problems, seed, batch, transfer, learner, near)
    holdout = [p for p in dataset.holdout if kind in (None, p.problem.op_kind, p.model_kind)]
    scores[HOLDOUT] = score_holdout(problems, holdout, seed, batch, kind_shares, learner, near)
    summaries = _summaries(scores)
    print(f"learned rankers: models fitted as {learner}")
    print(best_rounds_line(problems))
    print_summaries(summaries[PER_PROBLEM], len(problems))
    print_splits(summaries, {split: len(next(iter(by_ranker.values()))) for split, by_ranker in scores.items()})
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        report = {
            "arch": arch,
            "kind": kind,
            "seed": seed,
            "batch": batch,
            "learner": learner,
            "near_default": 0.0 if near is None else near.share,
            "data_sha256": dataset.data_sha256,
            "best_rounds": {p.key: p.best_rounds for p in problems},
            "leave_arch_out": leave_arch_out,
            "rankers": _jsonable(scores[PER_PROBLEM], summaries[PER_PROBLEM]),
            **{split: _jsonable(scores[split], summaries[split]) for split in (HONEST, HOLDOUT) if split in summaries},
        }
        (out_dir / "evaluation.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        kinds = kind or ", ".join(sorted({p.model_kind for p in problems}))
        plot_solved(
            scores[HONEST],
            out_dir / "solved_within_5pct.png",
            f"{arch}: {len(problems)} {kinds} problems, replayed (honest split)",
        )
    except OSError as err:
        raise UserError(f"cannot write the evaluation to {out_dir}: {err.strerror or err}") from None
    print(f"wrote {out_dir / 'evaluation.json'} and {out_dir / 'solved_within_5pct.png'}")
    return summaries
