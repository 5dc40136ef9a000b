"""Replay the repository's recorded datasets through the TPE ranker (and the heuristic, for reference), as
`mltune evaluate` does, and print each ranker's summary and the replay's wall time.

    python benchmarks/ranking/tpe_replay.py [--arch znver3 emeraldrapids sm_90] [--ranker tpe heuristic]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from mltune.learn.replay import replay
from mltune.learn.replay_report import print_summaries
from mltune.learn.samples import load_dataset
from mltune.learn.scoring import score_order, summarise
from mltune.rankers import make_ranker
from mltune.search.settings import LoopSettings

DATASETS = Path(__file__).resolve().parents[2] / "datasets"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", nargs="+", default=["znver3", "emeraldrapids", "sm_90"])
    parser.add_argument("--ranker", nargs="+", default=["tpe", "heuristic"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for arch in args.arch:
        problems = load_dataset(DATASETS, arch).problems
        summaries = {}
        for name in args.ranker:
            start = time.perf_counter()
            scores = [
                score_order(p.key, p.ratios, replay(make_ranker(name, args.seed), p, LoopSettings.batch_size))
                for p in problems
            ]
            print(
                f"{arch} {name}: {len(problems)} problems, {sum(len(p.ratios) for p in problems)} candidates, "
                f"replayed in {time.perf_counter() - start:.1f} s"
            )
            summaries[name] = summarise(scores)
        print_summaries(summaries, len(problems))


if __name__ == "__main__":
    main()
