"""Coverage of the SHARK tuner's tilings by mltune's gfx942 contraction space (enumeration only: nothing is compiled).

For each dispatch, the SHARK tuner's solutions of both pipelines come from `sharktuner_tilings.py`, run with the
interpreter of an environment holding `amdsharktuner` (`--sharktuner-python`; its output is kept in the work folder
and reused). mltune's space of the same dispatch is enumerated (timed), and each SHARK tiling is looked up in it:
TileAndFuse by intrinsic, workgroup tiles, MMA tiles per subgroup and K tile; VectorDistribute by intrinsic,
workgroup tiles, K tile in elements and subgroup counts (VectorDistribute has no subgroup tile list). Pipeline
options (prefetch, bank-conflict padding, waves per EU) are left out: they are not tilings. A tiling mltune
misses is put down to the first knob whose value its space never takes (the intrinsic, a subgroup tile, the K
tile), else to a rule of the space.

`--mltune DIR` measures another checkout of mltune (e.g. an older commit, to compare before and after).

    python benchmarks/gpu/sharktuner_coverage.py --sharktuner-python ST/bin/python [--target gfx942] [--only NAMES]
        [--limit 3000] [--seconds 150] [--mltune DIR] [--work DIR]
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
# name: (batch, M, N, K), f16 inputs and an f32 result, the RHS N x K for a matmul (gpu_compile_fraction.py's shapes)
SHAPES = {
    "mm_nt_2048x1280x5120_f16": (0, 2048, 1280, 5120),
    "mm_nt_4096x4096x4096_f16": (0, 4096, 4096, 4096),
    "mm_nt_128x1280x2048_f16": (0, 128, 1280, 2048),
    "mm_nt_2048x10240x1280_f16": (0, 2048, 10240, 1280),
    "bmm_64x512x512x64_f16": (64, 512, 512, 64),
    "bmm_32x1024x1024x128_f16": (32, 1024, 1024, 128),
}
DEFAULT_DISPATCHES = "mm_nt_2048x1280x5120_f16,mm_nt_4096x4096x4096_f16,mm_nt_128x1280x2048_f16,bmm_64x512x512x64_f16"


def shark_tilings(python: str, source: Path, target: str, limit: int, seconds: float) -> list[dict]:
    """The SHARK tuner's solutions and summary lines for `source`, computed once and kept beside it."""
    out = source.with_suffix(f".sharktuner-{target}.jsonl")
    if not out.exists():
        result = subprocess.run(
            [
                python,
                str(ROOT / "benchmarks" / "sharktuner_tilings.py"),
                str(source),
                "--target",
                target,
                "--limit",
                str(limit),
                "--seconds",
                str(seconds),
            ],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise SystemExit(f"sharktuner_tilings.py failed on {source}: {result.stderr[-2000:]}")
        out.write_text(result.stdout)
    return [json.loads(line) for line in out.read_text().splitlines() if line.strip()]


def mltune_tilings(configurator, candidates) -> tuple[set, dict[str, set]]:
    """mltune's tilings in the coverage keys, and the values each knob of its space takes."""
    problem = configurator.problem
    (mi,), (ni,) = problem.m[-1:], problem.n[-1:]
    c = {name: candidates.column(name).tolist() for name in candidates.names}
    names = [x.name for x in configurator.mmas]
    keys = set()
    for row in range(len(candidates)):
        mma, wg_m, wg_n, sg_m, sg_n, red_k = (c[n][row] for n in ("mma", "wg_m", "wg_n", "sg_m", "sg_n", "red_k"))
        if c["vector_distribute"][row]:  # subgroup counts: wg = sg * count * MMA size
            keys.add(
                (
                    "VectorDistribute",
                    names[mma],
                    wg_m,
                    wg_n,
                    red_k * c["mma_k"][row],
                    wg_m // (sg_m * c["mma_m"][row]),
                    wg_n // (sg_n * c["mma_n"][row]),
                )
            )
        else:
            keys.add(("TileAndFuse", names[mma], wg_m, wg_n, sg_m, sg_n, red_k))
    domains = {knob.name: set(knob.domain) for knob in configurator.space.knobs}
    domains["mma"] = {x.name for x in configurator.mmas}
    return keys, domains | {"mi": mi, "ni": ni}


def shark_key(tiling: dict, mi: int, ni: int, ki: int) -> tuple:
    wg, mma = tiling["workgroup"], tiling["mma"]
    if tiling["pipeline"] == "VectorDistribute":
        counts = tiling["subgroup_basis"][0]
        return ("VectorDistribute", mma, wg[mi], wg[ni], tiling["reduction"][ki], counts[mi], counts[ni])
    return ("TileAndFuse", mma, wg[mi], wg[ni], tiling["subgroup"][mi], tiling["subgroup"][ni], tiling["reduction"][ki])


def intrinsic_k(name: str) -> int:
    """An MMA intrinsic's K from its name (e.g. 32 for VMFMA_F32_16x16x32_F16)."""
    return int(name.split("_")[2].split("x")[2])


def why_missing(keys: list[tuple], configurator, domains: dict) -> collections.Counter:
    """For each missed tiling, the first knob value the space never takes, else the first of its rules the tiling
    breaks (printed, cut short), with the pipeline options at values the space offers (prefetch 2 or 0, no waves per
    EU, bank padding on). The rules are evaluated once over all the missed tilings."""
    from mltune.spaces.space import evaluate  # the measured checkout's (`--mltune`)

    reasons, points = collections.Counter(), []
    for key in keys:
        pipeline, mma = key[0], key[1]
        if mma not in domains["mma"]:
            reasons[f"intrinsic {mma}"] += 1
            continue
        shape = next(x for x in configurator.mmas if x.name == mma)
        if pipeline == "TileAndFuse":
            sg_m, sg_n, red_k = key[4], key[5], key[6]
        else:
            sg_m, sg_n, red_k = key[2] // (key[5] * shape.m), key[3] // (key[6] * shape.n), key[4] // intrinsic_k(mma)
        point = {
            "mma": configurator.mmas.index(shape),
            "wg_m": key[2],
            "wg_n": key[3],
            "sg_m": sg_m,
            "sg_n": sg_n,
            "red_k": red_k,
            "sg_size": min(domains["sg_size"]),
            "prefetch": 2 if pipeline == "TileAndFuse" else 0,
            "no_bank_fix": 0,
            "waves_per_eu": 0,
            "vector_distribute": int(pipeline == "VectorDistribute"),
        }
        outside = [name for name, value in point.items() if name != "mma" and value not in domains[name]]
        if outside:
            reasons[f"{outside[0]} {point[outside[0]]} not in its domain"] += 1
        else:
            points.append(point)
    if points:
        columns = {name: np.array([p[name] for p in points]) for name in points[0]}
        broken = np.zeros(len(points), dtype=bool)
        for constraint in configurator.space.constraints:
            fails = ~np.broadcast_to(evaluate(constraint, columns), broken.shape) & ~broken
            if fails.any():
                reasons[" ".join(str(constraint).split())[:90]] += int(fails.sum())
            broken |= fails
        reasons["in the space (another key)"] += int((~broken).sum())
    return reasons


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sharktuner-python", required=True)
    parser.add_argument("--target", default="gfx942")
    parser.add_argument("--only", default=DEFAULT_DISPATCHES)
    parser.add_argument("--limit", type=int, default=3000)
    parser.add_argument("--seconds", type=float, default=150)
    parser.add_argument("--mltune", type=Path, default=ROOT, help="the mltune checkout to measure")
    parser.add_argument("--work", type=Path, default=ROOT / "mltune-runs" / "sharktuner-coverage")
    args = parser.parse_args()
    # the measured checkout's mltune and test sources, before anything imports either
    sys.path[:0] = [str(args.mltune.resolve()), str(args.mltune.resolve() / "tests")]
    from iree_helpers import batch_matmul_source, matmul_source

    from mltune.frontend.mlir import new_context
    from mltune.frontend.problem import Problem, Untunable
    from mltune.input.tuning_input import prepare_input
    from mltune.targets import parse_target
    from mltune.input.dispatches import read_dispatches
    from mltune.tuning.prepare import configurators

    context, target = new_context(), parse_target(args.target, probe=False)
    print(
        "| dispatch | pipeline | SHARK tilings (complete?) | SHARK s | mltune points | mltune s | covered | missed: why |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---|")
    totals: collections.Counter = collections.Counter()
    for name in args.only.split(","):
        folder = args.work / name
        folder.mkdir(parents=True, exist_ok=True)
        source = folder / f"{name}.mlir"
        batch, m, n, k = SHAPES[name]
        source.write_text(
            batch_matmul_source(batch, m, k, n, "f16", "f32")
            if batch
            else matmul_source(m, k, n, "f16", "f32", transpose_rhs=True)
        )
        lines = shark_tilings(args.sharktuner_python, source, args.target, args.limit, args.seconds)
        summaries = {line["pipeline"]: line for line in lines if "solutions" in line}
        tuning_input = prepare_input(source, target, folder / args.mltune.name, context)
        tunable = [d for d in read_dispatches(tuning_input, context) if isinstance(d.problem, Problem)]
        for _, configurator in configurators(tunable, context, folder / args.mltune.name / "spaces"):
            if isinstance(configurator, Untunable):
                continue
            started = time.perf_counter()
            candidates = configurator.candidates()
            seconds = time.perf_counter() - started
            ours, domains = mltune_tilings(configurator, candidates)
            ki = configurator.problem.k[-1]
            for pipeline, summary in summaries.items():
                theirs = {
                    shark_key(t, domains["mi"], domains["ni"], ki)
                    for t in lines
                    if t.get("pipeline") == pipeline and "mma" in t
                }
                missed = why_missing(sorted(theirs - ours), configurator, domains)
                covered = len(theirs & ours)
                totals[(pipeline, "covered")] += covered
                totals[(pipeline, "all")] += len(theirs)
                mine = sum(1 for key in ours if key[0] == pipeline)
                print(
                    f"| {name} | {pipeline} | {len(theirs)} ({'yes' if summary['complete'] else 'no'}) | "
                    f"{summary['seconds']} | {mine} | {seconds:.2f} | {covered}/{len(theirs)} "
                    f"({100 * covered / max(1, len(theirs)):.1f} %) | "
                    f"{'; '.join(f'{why} {n}' for why, n in missed.most_common())} |",
                    flush=True,
                )
    for pipeline in ("TileAndFuse", "VectorDistribute"):
        if totals[(pipeline, "all")]:
            print(
                f"| all | {pipeline} | {totals[(pipeline, 'all')]} | | | | {totals[(pipeline, 'covered')]}/"
                f"{totals[(pipeline, 'all')]} ({100 * totals[(pipeline, 'covered')] / totals[(pipeline, 'all')]:.1f} %) | |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
