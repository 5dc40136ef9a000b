"""What a learned ranker would try first on shapes no dataset holds, before anything is measured: for each shape of a
`gpu_heuristic_unseen.py` group, the candidates of its one-op model (`mltune.api.problems`, compiled for the target,
nothing run) in the order `random-forest` gives them with each `--model-dir`, and the heuristic's, summarised by the
knobs that decide a SIMT GEMM's speed: the thread tile (th_m x th_n), the workgroup tile, operand promotion.

    python benchmarks/ranking/first_picks.py --shapes unseen-f32-b [--model-dir M ...] [--first 10] [--target sm_90]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks" / "ranking"))

from gpu_heuristic_unseen import SHAPE_GROUPS  # noqa: E402

from mltune import api  # noqa: E402
from mltune.frontend.one_op_model import contraction_model  # noqa: E402


def describe(knobs: dict[str, int]) -> str:
    thread = f"{knobs['th_m']}x{knobs['th_n']}" if "th_m" in knobs else "?"
    tile = f"{knobs.get('wg_m', '?')}x{knobs.get('wg_n', '?')}"
    return f"t{thread} w{tile} k{knobs.get('red_k', '?')}{' p' if knobs.get('promote') else ''}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", choices=tuple(SHAPE_GROUPS), required=True)
    parser.add_argument("--model-dir", type=Path, action="append", default=[])
    parser.add_argument("--first", type=int, default=10)
    parser.add_argument("--target", default="sm_90")
    args = parser.parse_args()
    rankers = [("heuristic", "heuristic", None)] + [(f"random-forest {d}", "random-forest", d) for d in args.model_dir]
    with tempfile.TemporaryDirectory(prefix="mltune-first-picks-") as scratch:
        for shape in SHAPE_GROUPS[args.shapes]:
            model = Path(scratch) / f"{shape.name}.mlir"
            model.write_text(contraction_model(shape))
            for problem in api.problems(model, target=args.target):
                print(f"{shape.name}: {len(problem.candidates)} candidates")
                names = problem.candidates.names
                for label, ranker, model_dir in rankers:
                    order = api.rank(problem, ranker, model_dir=model_dir)[: args.first]
                    picks = [describe(dict(zip(names, map(int, problem.candidates.values[i])))) for i in order]
                    threads = Counter(p.split()[0] for p in picks)
                    print(f"  {label}: thread tiles {dict(threads)}\n    " + ", ".join(picks))


if __name__ == "__main__":
    main()
