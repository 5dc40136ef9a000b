"""One table over every arch: each ranker's position of the first candidate within 5 % of the best on the honest
split, as `tune` ranks a dispatch, read from the `evaluation.json` that `mltune evaluate` wrote per arch.

"As `tune` ranks" means: where the evaluation scored picks near IREE's default (`--near-default`, CPU archs), the
`NAME+near-default` twin, which is what `tune` runs by default on a CPU; elsewhere the ranker alone. *learned* is
`random-forest` as shipped (the model's order interleaved with the heuristic's at the share its held-out quality
earned), *model alone* the model's own order, *refit* `random-forest-refit`. Cells are median / mean over the arch's
problems; *x shuffle* is shuffle's expectation over the learned ranker's mean. `evaluate` fits a model of every kind
per fold, where `mltune train` ships only the kinds whose model beat the heuristic: `--heuristic-kinds` names the
kinds no shipped model ranks on these archs (problem keys start with the kind), whose learned positions are then the
heuristic's, as `tune` ranks them.

    python benchmarks/ranking/honest_table.py EVAL_DIR/znver4/evaluation.json EVAL_DIR/sm_90/evaluation.json ...
    python benchmarks/ranking/honest_table.py EVAL_DIR/rocketlake/evaluation.json \
        --heuristic-kinds attention,convolution,depthwise
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

# this folder is the script's first on sys.path
from evaluation_positions import TOLERANCE, positions

from mltune.learn.replay_near import NEAR_SUFFIX as NEAR

COLUMNS = {
    "shuffle": "shuffle",
    "heuristic": "heuristic",
    "learned": "random-forest",
    "model alone": "random-forest-alone",
    "refit": "random-forest-refit",
}


def as_tune_ranks(split: dict, ranker: str) -> str | None:
    """The ranker's name with picks near IREE's default where the evaluation has them (shuffle never has), else its
    own; None where the evaluation did not score it."""
    return next((name for name in (ranker + NEAR, ranker) if name in split), None)


def row(evaluation: dict, heuristic_kinds: tuple[str, ...]) -> str:
    split = evaluation["honest"]
    heuristic = positions(evaluation, "honest", as_tune_ranks(split, "heuristic"))
    cells, learned_mean = [], None
    for column, ranker in COLUMNS.items():
        name = as_tune_ranks(split, ranker)
        if name is None:
            cells.append("-")
            continue
        found = positions(evaluation, "honest", name)
        if column != "shuffle":
            found.update({p: heuristic[p] for p in found if p.startswith(heuristic_kinds)})
        median, mean = statistics.median(found.values()), statistics.mean(found.values())
        learned_mean = mean if column == "learned" else learned_mean
        cells.append(f"{median:.1f} / {mean:.2f}")
    problems = split["heuristic"]["problems"]
    expected = statistics.mean(p["shuffle_expected"][TOLERANCE] for p in problems)
    ratio = f"{expected / learned_mean:.1f}x" if learned_mean else "-"
    near = "yes" if any(name.endswith(NEAR) for name in split) else "no"
    lead = f"| {evaluation['arch']} | {len(problems)} | {near} | {expected:.2f} | "
    return lead + " | ".join(cells) + f" | {ratio} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("evaluations", type=Path, nargs="+")
    parser.add_argument(
        "--heuristic-kinds",
        default="",
        metavar="KIND,KIND",
        help="kinds no shipped model ranks: the learned rankers' positions are the heuristic's",
    )
    args = parser.parse_args()
    heuristic_kinds = tuple(kind for kind in args.heuristic_kinds.split(",") if kind)
    missing = [str(path) for path in args.evaluations if not path.is_file()]
    if missing:
        print(f"honest_table.py: no file {', '.join(missing)}", file=sys.stderr)
        return 2
    print("| arch | problems | near the default | shuffle expects | " + " | ".join(COLUMNS) + " | x shuffle |")
    print("| --- " * (len(COLUMNS) + 5) + "|")
    for path in args.evaluations:
        evaluation = json.loads(path.read_text())
        print(row(evaluation, heuristic_kinds))
        learner = evaluation.get("learner", "?")
        print(
            f"{path}: learner {learner}, seed {evaluation.get('seed')}, data {evaluation.get('data_sha256', '')[:12]}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
