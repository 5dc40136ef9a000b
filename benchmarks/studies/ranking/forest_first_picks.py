"""The first picks of the learned rankers on GPU matmul shapes no dataset holds: whole spaces, no measurement.

Replaying records scores a ranker on the few hundred candidates measured per problem; `tune` ranks the whole space
(thousands). This enumerates each shape's sm_90 space and prints the workgroup tile (M x N) and K tile (in MMA K
steps) of the first `--first` candidates of the heuristic and of `--ranker` with the models of each `--model-dir`
(as `tune --ranker random-forest --model-dir DIR` ranks): the picks that were measured on the H100 on these shapes
were the heuristic's and the forest's of the model directory before `docs/evaluation/honest-split.md`.

    python benchmarks/studies/ranking/forest_first_picks.py --model-dir OLD_MODELS --model-dir models [--first 8]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the model sources the test suite uses

from iree_helpers import matmul_source  # noqa: E402

from mltune.frontend.mlir import new_context  # noqa: E402
from mltune.frontend.problem import Problem  # noqa: E402
from mltune.input.tuning_input import prepare_input  # noqa: E402
from mltune.rankers import make_ranker  # noqa: E402
from mltune.rankers.base import RankingInput  # noqa: E402
from mltune.targets import parse_target  # noqa: E402
from mltune.input.dispatches import read_dispatches  # noqa: E402
from mltune.tuning.prepare import configurators  # noqa: E402

SHAPES = ((8192, 8192, 8192), (2560, 7680, 2560), (2048, 5120, 1280))  # M, N, K; f16 x f16 -> f32, RHS N x K


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, action="append", default=[])
    parser.add_argument("--ranker", default="random-forest")
    parser.add_argument("--first", type=int, default=8)
    parser.add_argument("--target", default="sm_90")
    parser.add_argument("--work", type=Path, default=ROOT / "mltune-runs" / "forest-first-picks")
    args = parser.parse_args()
    context, target = new_context(), parse_target(args.target)
    for m, n, k in SHAPES:
        work = args.work / f"{m}x{n}x{k}"
        work.mkdir(parents=True, exist_ok=True)
        source = work / "mm.mlir"
        source.write_text(matmul_source(m, k, n, "f16", "f32", True))
        tuning_input = prepare_input(source, target, work, context)
        dispatches = [d for d in read_dispatches(tuning_input, context) if isinstance(d.problem, Problem)]
        for dispatch, configurator in configurators(dispatches, context, work / "spaces"):
            candidates = configurator.candidates()
            ranking_input = RankingInput(dispatch.problem, dispatch.facts, candidates)
            print(f"{m}x{n}x{k}: {len(candidates)} candidates")
            rankers = {"heuristic": make_ranker("heuristic", 0)}
            rankers.update({f"{args.ranker} ({d})": make_ranker(args.ranker, 0, model_dir=d) for d in args.model_dir})
            for name, ranker in rankers.items():
                ranker.start(ranking_input)
                picks = [candidates.knobs(i) for i in ranker.ask(args.first)]
                tiles = ", ".join(f"{p['wg_m']}x{p['wg_n']}/{p['red_k']}" for p in picks)
                print(f"  {name:<60} {tiles}")


if __name__ == "__main__":
    main()
