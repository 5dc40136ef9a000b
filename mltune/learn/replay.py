"""`mltune evaluate`: replay recorded measurements through every ranker and score the orders (DESIGN section 5).

For each problem the measured candidates form the pool. Every ranker runs through the
`Ranker` protocol exactly as in the tuning loop (asked in batches, told the recorded ratios),
so static rankers give their order restricted to the pool and TPE learns from the recorded
results. The random forest is scored only on problems held out of its training fold (one model
per op kind, as `mltune train` fits them). Installed ranker plugins (`mltune.rankers.registry`) are scored
beside mltune's own; one that learns from records (its factory takes `records`) is made once per fold of the
forest's, from the records of that fold's training problems only, so it too is scored on problems it never saw.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Sequence

from mltune.errors import UserError
from mltune.evaluate import (
    TOLERANCES,
    TOP_K,
    ProblemScore,
    Summary,
    score_order,
    shuffle_solved_fraction,
    solved_fraction,
    summarise,
)
from mltune.learn.forest import TrainedModel
from mltune.learn.pooled import arch_family, family_archs, load_pooled
from mltune.learn.samples import ProblemSamples, load_dataset
from mltune.learn.train import by_kind, feature_table, fit_model, kind_fold_models, kind_folds
from mltune.rankers import make_ranker, plugin_names
from mltune.rankers.base import Ranker, for_one_problem
from mltune.rankers.forest import RandomForest
from mltune.rankers.refit import RefittedForest
from mltune.rankers.registry import learns_from_records
from mltune.search.loop import LoopSettings

STATIC_AND_ADAPTIVE = ("none", "shuffle", "heuristic", "tpe")
LEAVE_ARCH_OUT_SUFFIX = " (leave-arch-out)"
PLOT_TOLERANCE = 0.05


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
    """The problems of op kinds with at least 2 of them: the forest of a kind can hold one out only then.
    The others are left out for every ranker, so that all rankers are scored on the same problems."""
    kept: list[int] = []
    for kind, indices in by_kind(problems).items():
        if len(indices) < 2:
            print(f"left out: {len(indices)} {kind} problem (a forest needs 2 problems of a kind to hold one out)")
        else:
            kept += indices
    if not kept:
        raise UserError("no op kind has 2 problems: the forest cannot be scored on a problem it was not trained on")
    return [problems[i] for i in sorted(kept)]


def _forest_makers(models: dict[int, TrainedModel], seed: int, suffix: str = "",
                   blend: bool = False) -> dict[str, Callable[[int], Ranker]]:
    """The static and the refitted forest over each problem's own model (by problem index); `blend` as `tune` ranks
    with a model that never saw the arch."""
    return {f"random-forest{suffix}": lambda i: RandomForest(seed, model=models[i], blend=blend),
            f"random-forest-refit{suffix}": lambda i: RefittedForest(seed, model=models[i], blend=blend)}


def leave_arch_out_models(dataset_dir: Path, arch: str, problems: Sequence[ProblemSamples],
                          seed: int) -> dict[int, TrainedModel]:
    """Per problem, the model of its op kind trained on every other arch of its family (none of `arch`)."""
    family = arch_family(arch)
    pooled = load_pooled(dataset_dir, family, family_archs(dataset_dir, family, exclude=arch))
    print(f"leave-arch-out: forests trained on {', '.join(pooled.archs)} ({len(pooled.problems)} problems), "
          f"never on {arch}")
    others = by_kind(pooled.problems)
    models = {}
    for kind, indices in by_kind(problems).items():
        if kind not in others:
            raise UserError(f"--leave-arch-out: no other {family} arch has {kind} records")
        kind_problems = [pooled.problems[j] for j in others[kind]]
        model = fit_model(feature_table(kind_problems), slice(None), seed)
        models.update({i: model for i in indices})
    return models


def _plugin_makers(problems: Sequence[ProblemSamples], seed: int) -> dict[str, Callable[[int], Ranker]]:
    """Every installed plugin; one that learns from records is made once per fold, from the records of the fold's
    training problems (`kind_folds`, the forest's folds), and each problem of the fold gets a copy of it, as `tune`
    gives each problem a copy of the one it made."""
    learners = [name for name in plugin_names() if learns_from_records(name)]
    makers: dict[str, Callable[[int], Ranker]] = {name: lambda i, name=name: make_ranker(name, seed)
                                                  for name in plugin_names() if name not in learners}
    if learners:
        from mltune.records import samples_frame  # pandas: only for a plugin that learns

        for name in learners:
            fold_rankers = {}
            for held_out, trained_on in kind_folds(problems):
                records = samples_frame([problems[i] for i in trained_on])
                fold_rankers.update(dict.fromkeys(held_out, make_ranker(name, seed, records=records)))
            makers[name] = lambda i, rankers=fold_rankers: for_one_problem(rankers[i])
    return makers


def score_rankers(problems: Sequence[ProblemSamples], seed: int, batch: int,
                  transfer: dict[int, TrainedModel] | None = None) -> dict[str, list[ProblemScore]]:
    """Every ranker's score on every problem; the forests' from the fold of its op kind that held it out, and with
    `transfer` (per problem, a model trained on other archs) those of the transferred forests too; then the installed
    plugins'."""
    in_arch = {i: model for held_out, model in kind_fold_models(problems, seed) for i in held_out}
    makers: dict[str, Callable[[int], Ranker]] = {name: lambda i, name=name: make_ranker(name, seed)
                                                  for name in STATIC_AND_ADAPTIVE}
    makers.update(_forest_makers(in_arch, seed))
    if transfer is not None:
        makers.update(_forest_makers(transfer, seed, LEAVE_ARCH_OUT_SUFFIX, blend=True))
    makers.update(_plugin_makers(problems, seed))
    scores: dict[str, list[ProblemScore]] = {name: [] for name in makers}
    for i, samples in enumerate(problems):
        for name, make in makers.items():
            scores[name].append(score_order(samples.key, samples.ratios, replay(make(i), samples, batch)))
    return scores


def print_summaries(summaries: dict[str, Summary], problems: int) -> None:
    print(f"{problems} problems; iterations = 1-based position of the first candidate within tol of the best; "
          "x shuffle = shuffle's expected (n+1)/(k+1) / the ranker's (mean over problems)")
    tols = "".join(f"{f'{tol:.0%} med/mean':>17}{'x shuf':>7}" for tol in TOLERANCES)
    print(f"{'ranker':<38}{tols}" + "".join(f"{f'top{k}':>7}" for k in TOP_K))
    for name, s in summaries.items():
        cells = "".join(f"{s.median_position[t]:>9.1f}/{s.mean_position[t]:<7.2f}{s.shuffle_ratio[t]:>7.2f}"
                        for t in TOLERANCES)
        print(f"{name:<38}{cells}" + "".join(f"{s.mean_top_k[k]:>7.3f}" for k in TOP_K))
    expected = next(iter(summaries.values())).mean_shuffle_expected
    print("shuffle expectation (mean over problems): "
          + ", ".join(f"{tol:.0%}: {expected[tol]:.2f}" for tol in TOLERANCES))


def plot_solved(scores: dict[str, list[ProblemScore]], path: Path, title: str = "") -> None:
    """Fraction of problems with a candidate within 5 % of the best vs benchmarks spent, one curve per ranker;
    `title` says what was replayed (arch, op kind, problem count)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    budgets = list(range(1, max(s.candidates for s in next(iter(scores.values()))) + 1))
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for name, ranker_scores in scores.items():
        positions = [s.positions[PLOT_TOLERANCE] for s in ranker_scores]
        axes.step(budgets, solved_fraction(positions, budgets), where="post", label=name)
    any_scores = next(iter(scores.values()))
    axes.plot(budgets, shuffle_solved_fraction(any_scores, PLOT_TOLERANCE, budgets), "k:", label="shuffle (exact)")
    axes.set_xlabel("candidates benchmarked")
    axes.set_ylabel(f"fraction of problems within {PLOT_TOLERANCE:.0%} of the best")
    axes.set_ylim(0, 1.02)
    axes.legend(loc="lower right")
    axes.set_title(title)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def _jsonable(scores: dict[str, list[ProblemScore]], summaries: dict[str, Summary]) -> dict[str, Any]:
    return {name: {"summary": asdict(summaries[name]), "problems": [asdict(s) for s in ranker_scores]}
            for name, ranker_scores in scores.items()}


def evaluate(dataset_dir: Path, arch: str, out_dir: Path, seed: int = 0,
             batch: int = LoopSettings.batch_size, kind: str | None = None,
             leave_arch_out: bool = False) -> dict[str, Summary]:
    """Replay `dataset_dir/arch` (only its problems of op kind `kind`, if given), print the table, write
    `evaluation.json` and the PNG under `out_dir`; with `leave_arch_out`, forests trained only on the family's
    other archs are scored beside those held out by problem."""
    dataset = load_dataset(dataset_dir, arch)
    problems = [p for p in dataset.problems if kind is None or p.problem.op_kind == kind]
    if not problems:
        raise UserError(f"--kind {kind}: the {arch} dataset has no {kind} problem")
    problems = scoreable(problems)
    transfer = leave_arch_out_models(dataset_dir, arch, problems, seed) if leave_arch_out else None
    scores = score_rankers(problems, seed, batch, transfer)
    summaries = {name: summarise(ranker_scores) for name, ranker_scores in scores.items()}
    print_summaries(summaries, len(problems))
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        report = {"arch": arch, "kind": kind, "seed": seed, "batch": batch, "data_sha256": dataset.data_sha256,
                  "leave_arch_out": leave_arch_out, "rankers": _jsonable(scores, summaries)}
        (out_dir / "evaluation.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        kinds = kind or ", ".join(sorted({p.problem.op_kind for p in problems}))
        plot_solved(scores, out_dir / "solved_within_5pct.png", f"{arch}: {len(problems)} {kinds} problems, replayed")
    except OSError as err:
        raise UserError(f"cannot write the evaluation to {out_dir}: {err.strerror or err}") from None
    print(f"wrote {out_dir / 'evaluation.json'} and {out_dir / 'solved_within_5pct.png'}")
    return summaries
