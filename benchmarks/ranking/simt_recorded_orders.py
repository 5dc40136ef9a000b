"""What measured SIMT candidates (f32 contractions on sm_90) say about the SIMT estimate and heuristic, from the rows
that `gpu_heuristic_unseen.py --shapes f32-models --out ROWS` wrote: each run's proposal order is rebuilt here with
the rankers of `--recorded-src` (the checkout that made the records: the same one-op model dumped for the target,
the same space and seed 0), so each measured ratio gets its candidate's knobs. Prints, per shape, this tree's
estimate's rank correlation with the measured ratios, the best candidate, and the ratios grouped by promotion and K
tile; then a replay: the whole space ranked by the heuristic of `--other-src` (default: the recorded one) and by this
tree's, and in each order the position among the measured candidates of the first within 5 % of the best measured.
The replay sees only the measured candidates: a candidate a heuristic would rank above them was never timed.
Compile-only (one dump per shape): run it anywhere, under the lock.

    python benchmarks/ranking/simt_recorded_orders.py ROWS.json [ROWS.json ...] --recorded-src TREE
        [--other-src TREE] [--target sm_90]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers
from gpu_heuristic_unseen import NEAR, SHAPE_GROUPS  # noqa: E402
from source_tree import python_path_first  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from iree.compiler import ir  # noqa: E402
from iree.compiler.dialects import iree_codegen  # noqa: E402

from mltune.features.gpu_simt import simt_estimate  # noqa: E402
from mltune.frontend.mlir import parse_module_file  # noqa: E402
from mltune.frontend.one_op_model import contraction_model  # noqa: E402
from mltune.frontend.problem import Problem  # noqa: E402
from mltune.frontend.root_ops import read_root_ops  # noqa: E402
from mltune.input.tuning_input import prepare_input  # noqa: E402
from mltune.spaces.candidate import CandidateSet  # noqa: E402
from mltune.spaces.gpu_simt_contraction import GpuSimtContraction  # noqa: E402
from mltune.targets import facts_from_executable_target, parse_target  # noqa: E402

# run in another checkout (`python -c` puts the working folder first on the path), its root first on PYTHONPATH
# too: that checkout's ranker orders the candidates it reads from stdin
# (public APIs only, which every checkout since the SIMT space has)
_RANK = """
import json, sys
import numpy as np
from mltune.frontend.problem import Problem
from mltune.rankers import RankingInput, make_ranker
from mltune.spaces.candidate import CandidateSet
from mltune.targets.gpu import GpuInfo
d = json.load(sys.stdin)
ranker = make_ranker(d["ranker"], seed=0)
ranker.start(RankingInput(Problem.from_record(d["problem"]), GpuInfo.from_dict(d["gpu"]),
                          CandidateSet(tuple(d["names"]), np.array(d["values"]))))
print(json.dumps([int(i) for i in ranker.ask(d["count"])]))
"""


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
                    iree_codegen.get_executable_variant_ops(module)[0].attributes["target"]
                )
    raise SystemExit(f"no tunable dispatch in {work}")


def ranked(tree: Path, ranker: str, problem: Problem, facts, candidates: CandidateSet, count: int) -> list[int]:
    """The first `count` candidates in the order that `tree`'s ranker gives them."""
    request = {
        "ranker": ranker,
        "count": count,
        "problem": problem.to_record(),
        "gpu": dataclasses.asdict(facts),
        "names": list(candidates.names),
        "values": candidates.values.tolist(),
    }
    result = subprocess.run(
        [sys.executable, "-c", _RANK],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": python_path_first(tree)},
        cwd=tree,
    )
    if result.returncode != 0:
        sys.exit(f"ranking with {tree} failed:\n{result.stderr[-2000:]}")
    return json.loads(result.stdout)


def replayed(order: list[int], ratios: dict[int, float]) -> tuple[int, float]:
    """Among the measured candidates in `order`: the position of the first within `NEAR` of the best measured, and
    the first one's ratio."""
    measured = [i for i in order if i in ratios]
    best = min(ratios.values())
    return next(p + 1 for p, i in enumerate(measured) if ratios[i] <= best * NEAR), ratios[measured[0]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, nargs="+")
    parser.add_argument("--recorded-src", type=Path, required=True, help="the checkout whose rankers made the rows")
    parser.add_argument("--other-src", type=Path, default=None, help="the heuristic to replay beside this tree's")
    parser.add_argument("--target", default="sm_90")
    args = parser.parse_args()
    other = (args.other_src or args.recorded_src).resolve()
    rows = [row for path in args.rows for row in json.loads(path.read_text())["rows"]]
    shapes = {shape.name: shape for shape in SHAPE_GROUPS["f32-models"]}
    context = ir.Context()
    replay = []
    with tempfile.TemporaryDirectory(prefix="mltune-simt-orders-") as scratch:
        for name in dict.fromkeys(row["shape"] for row in rows):
            work = Path(scratch) / name
            work.mkdir()
            problem, facts = problem_and_facts(contraction_model(shapes[name]), args.target, work, context)
            candidates = GpuSimtContraction(problem, facts, context).candidates()
            measured: dict[int, list[float]] = defaultdict(list)
            for row in (r for r in rows if r["shape"] == name):
                proposed = ranked(args.recorded_src, row["run"], problem, facts, candidates, len(row["ratios"]))
                for index, ratio in zip(proposed, row["ratios"]):
                    if ratio is not None:
                        measured[index].append(ratio)
            ratios = {i: statistics.median(values) for i, values in measured.items()}
            indices = np.array(list(ratios))
            values = np.array(list(ratios.values()))
            cycles = simt_estimate(problem, facts, candidates).cycles[indices]
            best = int(np.argmin(values))
            print(
                f"{name}: {len(values)} candidates measured, this tree's estimate vs ratio rank correlation "
                f"{spearmanr(cycles, values).correlation:.2f}; best {values[best]:.3f} "
                f"{candidates.knobs(int(indices[best]))}"
            )
            groups: dict[tuple[int, int], list[float]] = defaultdict(list)
            for index, ratio in ratios.items():
                knobs = candidates.knobs(index)
                groups[(knobs["promote"], knobs["red_k"])].append(ratio)
            for (promote, red_k), group in sorted(groups.items()):
                print(
                    f"  promote {promote} K tile {red_k:>2}: {len(group):>2} measured, ratio median "
                    f"{statistics.median(group):.3f} ({min(group):.3f}-{max(group):.3f})"
                )
            replay.append(
                (
                    name,
                    len(ratios),
                    values.min(),
                    *(
                        replayed(ranked(tree, "heuristic", problem, facts, candidates, len(candidates)), ratios)
                        for tree in (other, ROOT)
                    ),
                )
            )
    print(
        f"\nreplay: among the measured candidates in each heuristic's order of the whole space, the position of the "
        f"first within {NEAR - 1:.0%} of the best measured, and the first one's ratio\n  old: {other}\n  new: {ROOT}"
    )
    print(f"{'shape':<32} {'measured':>8} {'best':>6} {'old':>5} {'first':>6} {'new':>5} {'first':>6}")
    for name, count, best, (old, old_first), (new, new_first) in replay:
        print(f"{name:<32} {count:>8} {best:>6.3f} {old:>5} {old_first:>6.3f} {new:>5} {new_first:>6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
