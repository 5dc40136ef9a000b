"""Random forest or gradient-boosted trees: which learner's models rank new shapes sooner? Replayed per arch.

For each arch, `mltune evaluate` once per learner (`mltune.learn.learners`): every learned ranker's models fitted
by that learner, on the same folds, records and seed. Printed per arch and learner: the median / mean 1-based
position of the first candidate within 5 % of the best, on the honest split (whole neighbourhoods held out) for
the ranker as it ships (interleaved with the heuristic), the model alone and the refit; on the problems held out
for good; and, for CPU archs with `--leave-arch-out`, the model trained on the family's other archs (blended with
the heuristic, as a CPU no model saw is ranked). The heuristic and shuffle's expectation beside them.

    python benchmarks/studies/ranking/learner_comparison.py [--archs emeraldrapids,znver3,znver4,sm_90] [--dataset-dir datasets]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from mltune.learn.learner_names import LEARNER_NAMES  # noqa: E402
from mltune.learn.pooled import arch_family  # noqa: E402
from mltune.learn.replay import evaluate  # noqa: E402
from mltune.learn.scoring import Summary  # noqa: E402

TOLERANCE = 0.05
COLUMNS = (
    ("honest", "random-forest"),
    ("honest", "random-forest-alone"),
    ("honest", "random-forest-refit"),
    ("holdout", "random-forest-alone"),
    ("per-problem", "random-forest (leave-arch-out)"),
)
HEADERS = ("as shipped", "alone", "refit", "held out for good, alone", "other archs only")


def cell(summaries: dict[str, dict[str, Summary]], split: str, ranker: str) -> str:
    summary = summaries.get(split, {}).get(ranker)
    if summary is None:
        return "-"
    return f"{summary.median_position[TOLERANCE]:.1f} / {summary.mean_position[TOLERANCE]:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archs", default="emeraldrapids,znver3,znver4,sm_90")
    parser.add_argument("--dataset-dir", type=Path, default=ROOT / "datasets")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"| arch | learner | {' | '.join(HEADERS)} | heuristic (honest) | shuffle expects |")
    print("|" + " --- |" * (len(HEADERS) + 4))
    for arch in args.archs.split(","):
        for learner in LEARNER_NAMES:
            with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()):
                summaries = evaluate(
                    args.dataset_dir,
                    arch,
                    Path(out),
                    args.seed,
                    8,
                    leave_arch_out=arch_family(arch) == "cpu",
                    learner=learner,
                )
            heuristic = cell(summaries, "honest", "heuristic")
            shuffle = summaries["honest"]["shuffle"].mean_shuffle_expected[TOLERANCE]
            cells = " | ".join(cell(summaries, split, ranker) for split, ranker in COLUMNS)
            print(f"| {arch} | {learner} | {cells} | {heuristic} | {shuffle:.2f} |", flush=True)


if __name__ == "__main__":
    main()
