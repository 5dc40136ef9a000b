"""The picture of one run: did the ranker help? Three panels per run, one line or colour per tuned problem:
the best speedup found so far against the benchmarks spent, every candidate's speedup in the order it was
measured, and the ranker's order (its predicted rank) against the rank the measurement gave."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
from scipy.stats import spearmanr

from mltune.runs.past import MeasuredCandidate


def _by_problem(candidates: Sequence[MeasuredCandidate]) -> dict[str, list[MeasuredCandidate]]:
    grouped: dict[str, list[MeasuredCandidate]] = {}
    for candidate in candidates:
        grouped.setdefault(candidate.problem, []).append(candidate)
    return grouped


def rank_agreement(measured: Sequence[MeasuredCandidate]) -> tuple[np.ndarray, np.ndarray, float]:
    """The ranker's order and the measured rank (1: fastest) of the measured candidates, and their Spearman
    correlation (1: the ranker ordered them exactly as they measured; nan for fewer than 3)."""
    ok = [c for c in measured if c.speedup is not None]
    order = np.argsort(np.argsort([c.position for c in ok])) + 1
    rank = np.argsort(np.argsort([-c.speedup for c in ok])) + 1  # type: ignore[operator]
    rho = float(spearmanr(order, rank).statistic) if len(ok) >= 3 else float("nan")
    return order, rank, rho


def plot_run(candidates: Sequence[MeasuredCandidate], title: str, path: Path) -> Path:
    """Write the run's three panels to `path` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    figure, (best_axis, each_axis, rank_axis) = plt.subplots(1, 3, figsize=(16, 4.8))
    for index, (problem, measured) in enumerate(_by_problem(candidates).items()):
        colour = f"C{index % 10}"
        label = problem if len(problem) <= 40 else problem[:37] + "..."
        speedups = [c.speedup for c in measured if c.speedup is not None]
        if not speedups:
            continue
        spent = np.arange(1, len(speedups) + 1)
        best_axis.step(spent, np.maximum.accumulate(speedups), where="post", color=colour, label=label)
        each_axis.plot(spent, speedups, "o", color=colour, markersize=4, label=label)
        order, rank, rho = rank_agreement(measured)
        rank_axis.plot(order, rank, "o", color=colour, markersize=4, label=f"{label}: Spearman {rho:.2f}")
    for axis in (best_axis, each_axis, rank_axis):
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))  # counts of benchmarks and ranks
    rank_axis.yaxis.set_major_locator(MaxNLocator(integer=True))
    for axis in (best_axis, each_axis):
        axis.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
        axis.set_xlabel("benchmarks spent")
    best_axis.set_ylabel("best screening speedup so far over IREE's default")
    best_axis.set_title("best so far (screening: the result is in the title)")
    each_axis.set_ylabel("screening speedup over IREE's default")
    each_axis.set_title("every candidate, in measured order")
    rank_axis.set_xlabel("ranker's order (its predicted rank among those measured)")
    rank_axis.set_ylabel("measured rank (1: fastest)")
    rank_axis.set_title("predicted vs measured rank")
    rank_axis.legend(fontsize=7, loc="best")
    best_axis.legend(fontsize=7, loc="lower right")
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
