"""The SIMT convolution heuristic, and with `--model-dir` the learned ranker, replayed on measured candidates: each
`results.jsonl` of a tuning run of a convolution or 1x1 convolution (e.g. the runs kept by
`gpu_heuristic_unseen.py --keep`, or unpacked from `benchmarks/results/sm_90/gpu_kinds/*records.tar.xz`), grouped by
problem; the measured candidates of all runs of a problem are ranked by this checkout's heuristic (and by
`random-forest` with the models of each `--model-dir`, as it ranks once shipped), and the position of the first
within 5 % of the best measured is printed, with each run's own first (in its proposal order). Positions count only
measured candidates: what a ranker puts above them was never timed, so a position here is not one a tuning run would
see.

    python benchmarks/ranking/simt_conv_replay.py RESULTS.jsonl ... [--model-dir MODELS ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mltune.frontend.problem import Problem  # noqa: E402
from mltune.rankers.base import RankingInput  # noqa: E402
from mltune.rankers.forest import RandomForest  # noqa: E402
from mltune.rankers.simt_heuristic import simt_heuristic_order  # noqa: E402
from mltune.records.dataset import record_ratio  # noqa: E402
from mltune.spaces.candidate import CandidateSet  # noqa: E402
from mltune.targets.stored import facts_from_record  # noqa: E402

NEAR = 1.05


def ratio(record: dict) -> float:
    if record["status"] != "ok":
        return float("inf")
    return record_ratio(record)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument(
        "--model-dir",
        type=Path,
        action="append",
        default=[],
        help="a models folder (e.g. the repository's models/ at some commit): random-forest with it",
    )
    args = parser.parse_args()
    forests = {f"forest {folder}": RandomForest(seed=0, model_dir=folder) for folder in args.model_dir}
    positions: dict[str, list[int]] = defaultdict(list)
    runs: dict[str, dict[str, list[dict]]] = defaultdict(dict)
    for path in args.results:
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        problem = Problem.from_record(records[0]["problem"])
        runs[problem.key][path.parent.name] = sorted(records, key=lambda r: r["position"])
    print(
        f"{'problem':<62} {'measured':>8} {'best':>6} {'shuffle expects':>15} {'heuristic':>9} "
        + "".join(f"{name:>{max(len(name), 6) + 1}}" for name in forests)
        + "  runs' own firsts"
    )
    for key, by_run in sorted(runs.items()):
        records = [r for run in by_run.values() for r in run]
        first = records[0]
        problem, target = Problem.from_record(first["problem"]), facts_from_record(first["target"])
        names = tuple(sorted(first["knobs"]))
        candidates = CandidateSet(names, np.array([[r["knobs"][n] for n in names] for r in records], dtype=np.int64))
        ratios = np.array([ratio(r) for r in records])
        best = ratios.min()
        ranking_input = RankingInput(problem, target, candidates)
        orders = {
            "heuristic": simt_heuristic_order(ranking_input, seed=0),
            **{name: forest.order(ranking_input) for name, forest in forests.items()},
        }
        replayed = {
            name: next(i + 1 for i, index in enumerate(order) if ratios[index] <= best * NEAR)
            for name, order in orders.items()
        }
        replayed = {"shuffle expects": (len(ratios) + 1) / (np.sum(ratios <= best * NEAR) + 1), **replayed}
        for name, position in replayed.items():
            positions[name].append(position)
        own = {
            run: next((i + 1 for i, r in enumerate(recs) if ratio(r) <= best * NEAR), None)
            for run, recs in by_run.items()
        }
        print(
            f"{key:<62} {len(records):>8} {1 / best:>5.2f}x {replayed['shuffle expects']:>15.1f} "
            f"{replayed['heuristic']:>9} "
            + "".join(f"{replayed[name]:>{max(len(name), 6) + 1}}" for name in forests)
            + "  "
            + ", ".join(f"{run} {pos or 'none'}" for run, pos in own.items())
        )
    print("mean: " + ", ".join(f"{name} {statistics.mean(values):.2f}" for name, values in positions.items()))


if __name__ == "__main__":
    main()
