"""Picks near IREE's default config, replayed: what each share costs or gains each ranker, per CPU arch.

For each arch and share, `mltune evaluate --near-default SHARE` (with `--leave-arch-out`): every ranker replayed on
the arch's records as it is and beside its twin with that share of its picks near IREE's default, the default read
from each problem's one-op model built for the records' CPU. Printed per arch and ranker: the mean 1-based position
of the first candidate within 5 % of the best alone and with each share: on the honest split (whole neighbourhoods
held out), and for the models trained on the family's other archs only (a CPU no model saw), on every problem.
The pool of a replay is the measured candidates: the default's nearest neighbours are the nearest measured ones,
farther than a live run's on a sparse sample.

    python benchmarks/ranking/near_default_shares.py [--archs znver3,znver4,emeraldrapids] [--shares 0.1,0.25]
        [--learner boosted-trees] [--dataset-dir datasets]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mltune.api import evaluate  # noqa: E402
from mltune.learn.learner_names import BOOSTED, LEARNER_NAMES  # noqa: E402
from mltune.learn.replay_near import NEAR_SUFFIX  # noqa: E402
from mltune.learn.scoring import Summary  # noqa: E402

TOLERANCE = 0.05
LEAVE_ARCH_OUT = " (leave-arch-out)"


def mean(summaries: dict[str, dict[str, Summary]], ranker: str) -> str:
    split = "per-problem" if ranker.endswith(LEAVE_ARCH_OUT) or ranker.endswith(LEAVE_ARCH_OUT + NEAR_SUFFIX) \
        else "honest"
    summary = summaries[split].get(ranker)
    return "-" if summary is None else f"{summary.mean_position[TOLERANCE]:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archs", default="znver3,znver4,emeraldrapids")
    parser.add_argument("--shares", default="0.1,0.25")
    parser.add_argument("--learner", choices=LEARNER_NAMES, default=BOOSTED)
    parser.add_argument("--dataset-dir", type=Path, default=ROOT / "datasets")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    shares = [float(share) for share in args.shares.split(",")]
    print(f"mean position within {TOLERANCE:.0%} of the best; learned rankers fitted as {args.learner}; honest split, "
          "leave-arch-out rows on every problem")
    print("| arch | ranker | alone | " + " | ".join(f"near {share:g}" for share in shares) + " |")
    print("|" + " --- |" * (3 + len(shares)))
    for arch in args.archs.split(","):
        by_share = {}
        for share in shares:
            with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()):
                by_share[share] = evaluate(arch, dataset_dir=args.dataset_dir, out=out, seed=args.seed,
                                           leave_arch_out=True, learner=args.learner, near_default=share)
        first = by_share[shares[0]]
        rankers = [name for name in first["per-problem"] if not name.endswith(NEAR_SUFFIX)]
        for ranker in rankers:
            twins = [mean(by_share[share], ranker + NEAR_SUFFIX) for share in shares]
            print(f"| {arch} | {ranker} | {mean(first, ranker)} | " + " | ".join(twins) + " |", flush=True)
        expected = first["honest"]["shuffle"].mean_shuffle_expected[TOLERANCE]
        print(f"| {arch} | shuffle expects | {expected:.2f} |" + " |" * len(shares), flush=True)


if __name__ == "__main__":
    main()
