"""What `mltune evaluate` prints and draws of a replay: each ranker's positions per tolerance, the splits side by
side, how firmly each problem's best is known, and the fraction of problems solved against benchmarks spent."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from mltune.learn.neighbourhood import HOLDOUT, HONEST, PER_PROBLEM
from mltune.learn.samples import SCREENING_ROUNDS, ProblemSamples
from mltune.learn.scoring import (
    TOLERANCES,
    TOP_K,
    ProblemScore,
    Summary,
    shuffle_solved_fraction,
    solved_fraction,
)
from mltune.learn.train import CV_TOLERANCE

PLOT_TOLERANCE = 0.05


def _name_width(summaries: dict[str, Summary]) -> int:
    return max(38, *(len(name) + 2 for name in summaries))


def best_rounds_line(problems: Sequence[ProblemSamples]) -> str:
    """How firmly each problem's best is known, the reading every ranker's position is measured against."""
    screened = sum(1 for p in problems if 0 < p.best_rounds <= SCREENING_ROUNDS)
    rounds = sorted(p.best_rounds for p in problems if p.best_rounds)
    middle = f"a median of {rounds[len(rounds) // 2]}" if rounds else "an unknown number of"
    return (
        f"best candidates: each problem's label pools {middle} rounds; on {screened} of {len(problems)} problems "
        f"it is one screening ({SCREENING_ROUNDS} rounds or fewer) that no re-measure checked"
    )


def print_summaries(summaries: dict[str, Summary], problems: int) -> None:
    print(
        f"{problems} problems; iterations = 1-based position of the first candidate within tol of the best; "
        "x shuffle = shuffle's expected (n+1)/(k+1) / the ranker's (mean over problems)"
    )
    tols = "".join(f"{f'{tol:.0%} med/mean':>17}{'x shuf':>7}" for tol in TOLERANCES)
    width = _name_width(summaries)
    print(f"{'ranker':<{width}}{tols}" + "".join(f"{f'top{k}':>7}" for k in TOP_K))
    for name, s in summaries.items():
        cells = "".join(
            f"{s.median_position[t]:>9.1f}/{s.mean_position[t]:<7.2f}{s.shuffle_ratio[t]:>7.2f}" for t in TOLERANCES
        )
        print(f"{name:<{width}}{cells}" + "".join(f"{s.mean_top_k[k]:>7.3f}" for k in TOP_K))
    expected = next(iter(summaries.values())).mean_shuffle_expected
    print(
        "shuffle expectation (mean over problems): "
        + ", ".join(f"{tol:.0%}: {expected[tol]:.2f}" for tol in TOLERANCES)
    )


def print_splits(summaries: dict[str, dict[str, Summary]], problems: dict[str, int]) -> None:
    """Median / mean position within 5 % per ranker, side by side: held out by problem, by neighbourhood (honest),
    and the problems kept out of training for good."""
    splits = [split for split in (PER_PROBLEM, HONEST, HOLDOUT) if split in summaries]
    titles = {PER_PROBLEM: "per-problem", HONEST: "honest (2x)", HOLDOUT: "held out for good"}
    print(
        f"within {CV_TOLERANCE:.0%} of the best, median / mean position: "
        + "; ".join(f"{titles[split]}: {problems[split]} problems" for split in splits)
    )
    width = _name_width(summaries[PER_PROBLEM])
    print(f"{'ranker':<{width}}" + "".join(f"{titles[split]:>20}" for split in splits))
    for name in summaries[PER_PROBLEM]:
        cells = [
            (
                f"{summaries[split][name].median_position[CV_TOLERANCE]:.1f} / "
                f"{summaries[split][name].mean_position[CV_TOLERANCE]:.2f}"
            )
            if name in summaries[split]
            else "-"
            for split in splits
        ]
        print(f"{name:<{width}}" + "".join(f"{cell:>20}" for cell in cells))


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
