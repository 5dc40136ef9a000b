"""What measured SIMT candidates (f32 contractions on sm_90) say about the SIMT estimate, from the rows that
`gpu_heuristic_unseen.py --shapes f32-models --out ROWS` wrote: each run's proposal order is rebuilt here (the same
one-op model dumped for the target, the same space, ranker and seed 0), so each measured ratio gets its
candidate's knobs. Prints, per shape, the estimate's rank correlation with the measured ratios, the best candidate,
and the ratios grouped by promotion and K tile. Compile-only (one dump per shape): run it anywhere, under the lock.

    python benchmarks/ranking/simt_recorded_orders.py ROWS.json [ROWS.json ...] [--target sm_90]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_heuristic_unseen import SHAPE_GROUPS  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from iree.compiler import ir  # noqa: E402
from iree.compiler.dialects import iree_codegen  # noqa: E402

from mltune.features.gpu_simt import simt_estimate  # noqa: E402
from mltune.frontend.mlir import parse_module_file  # noqa: E402
from mltune.frontend.one_op_model import contraction_model  # noqa: E402
from mltune.frontend.problem import Problem, read_root_ops  # noqa: E402
from mltune.input.model import prepare_input  # noqa: E402
from mltune.rankers import RankingInput, make_ranker  # noqa: E402
from mltune.spaces.gpu_simt_contraction import GpuSimtContraction  # noqa: E402
from mltune.targets import facts_from_executable_target, parse_target  # noqa: E402


def problem_and_facts(text: str, target_name: str, work: Path, context: ir.Context):
    """The one tunable root op of a one-op model dumped for the target, and the target's facts."""
    (work / "model.mlir").write_text(text)
    tuning_input = prepare_input(work / "model.mlir", parse_target(target_name, probe=False), work, context)
    for bench in tuning_input.dispatch_files:
        module = parse_module_file(bench, context)
        with context:
            problems = [p for p in read_root_ops(module) if isinstance(p, Problem)]
            if problems:
                return problems[0], facts_from_executable_target(
                    iree_codegen.get_executable_variant_ops(module)[0].attributes["target"])
    raise SystemExit(f"no tunable dispatch in {work}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, nargs="+")
    parser.add_argument("--target", default="sm_90")
    args = parser.parse_args()
    rows = [row for path in args.rows for row in json.loads(path.read_text())["rows"]]
    shapes = {shape.name: shape for shape in SHAPE_GROUPS["f32-models"]}
    context = ir.Context()
    with tempfile.TemporaryDirectory(prefix="mltune-simt-orders-") as scratch:
        for name in dict.fromkeys(row["shape"] for row in rows):
            work = Path(scratch) / name
            work.mkdir()
            problem, facts = problem_and_facts(contraction_model(shapes[name]), args.target, work, context)
            candidates = GpuSimtContraction(problem, facts, context).candidates()
            measured: list[tuple[int, float]] = []
            for row in (r for r in rows if r["shape"] == name):
                ranker = make_ranker(row["run"], seed=0)
                ranker.start(RankingInput(problem, facts, candidates))
                proposed = ranker.ask(len(row["ratios"]))
                measured += [(i, r) for i, r in zip(proposed, row["ratios"]) if r is not None]
            indices = np.array([i for i, _ in measured])
            ratios = np.array([r for _, r in measured])
            cycles = simt_estimate(problem, facts, candidates).cycles[indices]
            best = int(np.argmin(ratios))
            print(f"{name}: {len(ratios)} measured, estimate vs ratio rank correlation "
                  f"{spearmanr(cycles, ratios).correlation:.2f}; best {ratios[best]:.3f} "
                  f"{candidates.knobs(int(indices[best]))}")
            groups: dict[tuple[int, int], list[float]] = defaultdict(list)
            for index, ratio in measured:
                knobs = candidates.knobs(index)
                groups[(knobs["promote"], knobs["red_k"])].append(ratio)
            for (promote, red_k), values in sorted(groups.items()):
                print(f"  promote {promote} K tile {red_k:>2}: {len(values):>2} measured, ratio median "
                      f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
