"""Per problem, where each ranker put its first candidate within 5 % of the best measured one, read from an
`mltune evaluate` output (`evaluation.json`): the summary table `evaluate` prints pools the problems, a kind's docs
page wants them one by one.

    python benchmarks/ranking/evaluation_positions.py docs/evaluation/rocketlake/attention/evaluation.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

RANKERS = ("heuristic", "shuffle", "random-forest")
TOLERANCE = "0.05"


def positions(evaluation: dict, section: str, ranker: str) -> dict[str, int]:
    return {p["problem"]: p["positions"][TOLERANCE] for p in evaluation[section][ranker]["problems"]}


def main() -> int:
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_file():
        print("usage: evaluation_positions.py EVALUATION_JSON", file=sys.stderr)
        return 2
    evaluation = json.loads(Path(sys.argv[1]).read_text())
    problems = evaluation["rankers"]["heuristic"]["problems"]
    # heuristic and shuffle learn nothing, so both splits give them the same positions; the forest's is the honest
    # one where the evaluation has it (older outputs hold only the per-problem split)
    forest_split = "honest" if "honest" in evaluation else "rankers"
    found = {ranker: positions(evaluation, forest_split if ranker.startswith("random") else "rankers", ranker)
             for ranker in RANKERS}
    print("| problem | candidates | within 5 % of the best | shuffle's expectation | "
          + " | ".join(RANKERS) + f" ({'honest' if forest_split == 'honest' else 'per-problem'} split) |")
    print("| --- | --- | --- | --- | " + " | ".join("---" for _ in RANKERS) + " |")
    for problem in problems:
        name = problem["problem"]
        places = " | ".join(str(found[ranker][name]) for ranker in RANKERS)
        print(f"| {name} | {problem['candidates']} | {problem['near_optimal'][TOLERANCE]} | "
              f"{problem['shuffle_expected'][TOLERANCE]:.1f} | {places} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
