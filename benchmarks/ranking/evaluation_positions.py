"""Per problem, where each ranker put its first candidate within 5 % of the best measured one, read from an
`mltune evaluate` output (`evaluation.json`): the summary table `evaluate` prints pools the problems, a kind's docs
page wants them one by one.

    python benchmarks/ranking/evaluation_positions.py benchmarks/results/rocketlake/attention/evaluation.json
    python benchmarks/ranking/evaluation_positions.py EVALUATION_JSON heuristic "random-forest (leave-arch-out)"

Further arguments name the rankers (default: heuristic, shuffle, random-forest); a learned one's positions are its
honest split's where it has one. `--only TEXT` keeps the problems whose key contains TEXT (repeatable).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

RANKERS = ("heuristic", "shuffle", "random-forest")
TOLERANCE = "0.05"


def positions(evaluation: dict, section: str, ranker: str) -> dict[str, int]:
    return {p["problem"]: p["positions"][TOLERANCE] for p in evaluation[section][ranker]["problems"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("evaluation", type=Path)
    parser.add_argument("rankers", nargs="*", default=list(RANKERS))
    parser.add_argument("--only", action="append", default=None, metavar="TEXT")
    args = parser.parse_args()
    if not args.evaluation.is_file():
        print(f"evaluation_positions.py: no file {args.evaluation}", file=sys.stderr)
        return 2
    evaluation = json.loads(args.evaluation.read_text())
    problems = [
        p
        for p in evaluation["rankers"]["heuristic"]["problems"]
        if args.only is None or any(text in p["problem"] for text in args.only)
    ]
    # heuristic and shuffle learn nothing, so both splits give them the same positions; the forest's is the honest
    # one where the evaluation has it (older outputs hold only the per-problem split)
    forest_split = "honest" if "honest" in evaluation else "rankers"
    found = {
        ranker: positions(evaluation, forest_split if ranker in evaluation.get(forest_split, {}) else "rankers", ranker)
        for ranker in args.rankers
    }
    print(
        "| problem | candidates | within 5 % of the best | shuffle's expectation | "
        + " | ".join(args.rankers)
        + f" ({'honest' if forest_split == 'honest' else 'per-problem'} split) |"
    )
    print("| --- | --- | --- | --- | " + " | ".join("---" for _ in args.rankers) + " |")
    for problem in problems:
        name = problem["problem"]
        places = " | ".join(str(found[ranker][name]) for ranker in args.rankers)
        print(
            f"| {name} | {problem['candidates']} | {problem['near_optimal'][TOLERANCE]} | "
            f"{problem['shuffle_expected'][TOLERANCE]:.1f} | {places} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
