"""What `mltune train` prints: per op kind, the cross-validation per held-out problem, the verdict against the
heuristic (and the family model) and where the model went, or why it was not written."""

from __future__ import annotations

import sys
from typing import Any


def _print_cv(cv: dict[str, Any], title: str) -> None:
    rho = "n/a" if cv["mean_spearman"] is None else f"{cv['mean_spearman']:.3f}"
    print(
        f"  {title}: iterations to within 5 %: median {cv['median_iterations']:.1f}, "
        f"mean {cv['mean_iterations']:.2f} "
        f"(forest alone {cv['forest_median_iterations']:.1f} / {cv['forest_mean_iterations']:.2f}, heuristic "
        f"{cv['heuristic_median_iterations']:.1f} / {cv['heuristic_mean_iterations']:.2f}; shuffle expects "
        f"{cv['mean_shuffle_expected']:.2f}); mean Spearman {rho}"
    )


def _print_kind(kind: str, report: dict[str, Any]) -> None:
    cv = report["cv"]
    print(f"{kind}: {report['samples']} candidates of {len(report['problems'])} problems")
    for target in report["targets"]:
        print(f"features for {target['facts']['arch']}: {target['summary']} ({target['origin']})")
    print(
        f"cross-validation ({cv['folds']} folds grouped by neighbourhood: every problem within 2x of a held-out one "
        "is held out with it), per held-out problem; iters@5% is the forest interleaved with the heuristic, as it "
        "ranks once shipped:"
    )
    print(f"  {'problem':<56} {'spearman':>8} {'iters@5%':>8} {'forest':>6} {'heur.':>6} {'shuffle':>8}")
    for key, row in cv["problems"].items():
        rho = "n/a" if row["spearman"] is None else f"{row['spearman']:.3f}"
        print(
            f"  {key:<56} {rho:>8} {row['iterations']:>8} {row['forest_iterations']:>6} "
            f"{row['heuristic_iterations']:>6} {row['shuffle_expected']:>8.1f}"
        )
    _print_cv(cv, "honest split")
    _print_cv(report["cv_per_problem"], "per-problem split")
    learners = ", ".join(
        f"{name} {row['median_iterations']:.1f} / {row['mean_iterations']:.2f}"
        for name, row in report["learners"].items()
    )
    print(f"  fitted as {report['learner']}: the honest split's median / mean by learner: {learners}")
    print(f"  the forest takes {report['forest_share']:.0%} of the picks beside the heuristic")
    quality = report["quality"]
    if report["folder"] is None:
        print(
            f"mltune: {kind} model not written: it {quality['verdict']}; the {quality['better']} stays in use "
            "(--force writes it anyway)",
            file=sys.stderr,
        )
        print(f"model: not written ({quality['better']} ranks better)")
    else:
        forced = " (written with --force)" if quality["forced"] else ""
        print(f"verdict: it {quality['verdict']}{forced}")
        print(f"model: {report['folder']}")


def print_training(report: dict[str, Any]) -> None:
    if "archs" in report:
        print(f"{report['name']}: pooled from {', '.join(report['archs'])}")
    print(f"{report['failed_records_ignored']} failed records ignored")
    for kind, why in report["skipped"].items():
        print(f"{kind}: skipped, {why}")
    for kind, kind_report in report["kinds"].items():
        _print_kind(kind, kind_report)
    written = sum(1 for kind_report in report["kinds"].values() if kind_report["folder"] is not None)
    print(f"{written} model(s) written in {report['seconds']:.1f} s")


def all_refused(report: dict[str, Any]) -> bool:
    """Whether no kind's model was written (train then exits 1)."""
    return all(kind_report["folder"] is None for kind_report in report["kinds"].values())
