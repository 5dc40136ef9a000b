"""Picks near IREE's default config, replayed: what each share costs or gains each ranker, per CPU arch.

For each arch and share, `mltune evaluate --near-default SHARE` (with `--leave-arch-out`): every ranker replayed on
the arch's records as it is and beside its twin with that share of its picks near IREE's default, the default read
from each problem's one-op model built for the records' CPU. Printed per arch and ranker: the mean 1-based position
of the first candidate within 5 % of the best alone and with each share: on the honest split (whole neighbourhoods
held out), and for the models trained on the family's other archs only (a CPU no model saw), on every problem.
The pool of a replay is the measured candidates: the default's nearest neighbours are the nearest measured ones,
farther than a live run's on a sparse sample.
`--leave-out` drops the problems whose names hold any of the given strings from every mean (problems this machine
times bimodally, say); they are still replayed.

    python benchmarks/studies/ranking/near_default_shares.py [--archs znver3,znver4,emeraldrapids] [--shares 0.1,0.25]
        [--learner boosted-trees] [--dataset-dir datasets] [--leave-out 64x2048x8192,32x896x4864]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from mltune.api import evaluate  # noqa: E402
from mltune.learn.learner_names import BOOSTED, LEARNER_NAMES  # noqa: E402
from mltune.learn.replay import LEAVE_ARCH_OUT_SUFFIX  # noqa: E402
from mltune.learn.replay_near import NEAR_SUFFIX  # noqa: E402

TOLERANCE = 0.05


def kept(problems: list[dict], leave_out: list[str]) -> list[dict]:
    """The problems of a ranker's scores in `evaluation.json` whose names hold none of `leave_out`."""
    return [p for p in problems if not any(part in p["problem"] for part in leave_out)]


def mean(report: dict, ranker: str, leave_out: list[str]) -> str:
    """The ranker's mean position over the problems not left out, from `evaluation.json`."""
    split = "rankers" if LEAVE_ARCH_OUT_SUFFIX in ranker else "honest"  # scored on the per-problem split only
    scores = report[split].get(ranker)
    if scores is None:
        return "-"
    return f"{statistics.mean(p['positions'][str(TOLERANCE)] for p in kept(scores['problems'], leave_out)):.2f}"


def shuffle_expects(report: dict, leave_out: list[str]) -> float:
    problems = kept(report["honest"]["shuffle"]["problems"], leave_out)
    return statistics.mean(p["shuffle_expected"][str(TOLERANCE)] for p in problems)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archs", default="znver3,znver4,emeraldrapids")
    parser.add_argument("--shares", default="0.1,0.25")
    parser.add_argument("--learner", choices=LEARNER_NAMES, default=BOOSTED)
    parser.add_argument("--dataset-dir", type=Path, default=ROOT / "datasets")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--leave-out", default="", help="problem name parts to leave out of the means (comma-separated)"
    )
    args = parser.parse_args()
    shares = [float(share) for share in args.shares.split(",")]
    leave_out = [part for part in args.leave_out.split(",") if part]
    print(
        f"mean position within {TOLERANCE:.0%} of the best; learned rankers fitted as {args.learner}; honest split, "
        "leave-arch-out rows on every problem"
    )
    print("| arch | ranker | alone | " + " | ".join(f"near {share:g}" for share in shares) + " |")
    print("|" + " --- |" * (3 + len(shares)))
    for arch in args.archs.split(","):
        by_share = {}
        for share in shares:
            with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()):
                evaluate(
                    arch,
                    dataset_dir=args.dataset_dir,
                    out=out,
                    seed=args.seed,
                    leave_arch_out=True,
                    learner=args.learner,
                    near_default=share,
                )
                by_share[share] = json.loads((Path(out) / "evaluation.json").read_text())
        first = by_share[shares[0]]
        rankers = [name for name in first["rankers"] if not name.endswith(NEAR_SUFFIX)]
        for ranker in rankers:
            twins = [mean(by_share[share], ranker + NEAR_SUFFIX, leave_out) for share in shares]
            print(f"| {arch} | {ranker} | {mean(first, ranker, leave_out)} | " + " | ".join(twins) + " |", flush=True)
        print(
            f"| {arch} | shuffle expects | {shuffle_expects(first, leave_out):.2f} |" + " |" * len(shares), flush=True
        )


if __name__ == "__main__":
    main()
