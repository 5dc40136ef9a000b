"""Rankers on matmul shapes no dataset holds, or on dumped dispatches of other op kinds, measured: this checkout's
rankers (and optionally another checkout's heuristic, e.g. the one before a change), run after one another shape by
shape on one GPU (or on this machine's CPU).

For each shape a one-op model (with `--dispatches`, each dumped dispatch benchmark as it is) is tuned with
`mltune tune --ranker R --budget N` for each ranker of `--rankers`
(this tree's `mltune` first on PYTHONPATH; with `--other-src`, also the other tree's heuristic). From each run's
records: the best speedup over IREE's default within the budget, how many of the candidates ran more than 4x
slower than the default, and the position of the first candidate within 5 % of the best any run on that shape
found (the screening ratios, each against the default measured beside it; a candidate that failed to compile
keeps its position). All runs of a shape use the same seed, budget, flags and GPU. With several `--devices`,
shapes run side by side, each on its own GPU (its runs after one another): positions compare runs on one GPU.
With `--target host --devices local-task`, the shapes of a CPU problem set of
`benchmarks/collection/collect_dataset.py` (`--shapes cpu3`) run on this machine's CPU, each run holding `--lock`.
`--model-dir` gives the learned rankers a models folder of their own (e.g. one trained without this CPU's records).

    python benchmarks/ranking/gpu_heuristic_unseen.py [--rankers heuristic,random-forest,shuffle] [--other-src OLD]
        [--budget 30] [--target sm_90] [--devices cuda://0,cuda://1,...]
        [--shapes unseen-f16|f32-models|unseen-f32|unseen-f32-b|unseen-f32-c|unseen-f32-d]
        [--dispatches BENCH.mlir,...] [--only NAME,...] [--out rows.json] [--keep DIR]
        [--iree-flag=--iree-cuda-use-ptxas ...] [--model-dir MODELS] [--lock /tmp/mltune-cpu.lock]
    python benchmarks/ranking/gpu_heuristic_unseen.py --target host --devices local-task --shapes cpu3 ...
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from measure_lock import held
from source_tree import python_path_first

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from collection.collect_dataset import CPU_PROBLEM_SETS  # noqa: E402

from mltune.execution.build import NOT_APPLIED  # noqa: E402
from mltune.frontend.one_op_model import ContractionShape, contraction_model  # noqa: E402
from mltune.records.dataset import record_ratio  # noqa: E402

# in no dataset of the project (datasets/sm_90) and not held out there: LLM and vision layers, f16 x f16 -> f32
SHAPES = [
    ContractionShape(8192, 8192, 8192, in_type="f16", transpose_rhs=True),
    ContractionShape(2560, 7680, 2560, in_type="f16", transpose_rhs=True),
    ContractionShape(2048, 5120, 1280, in_type="f16", transpose_rhs=True),
    ContractionShape(4096, 14336, 4096, in_type="f16", transpose_rhs=True),  # Llama-3-8B MLP up, 4096 tokens
]
# f32 layers of the full-size exports (`examples/export/export_models.py --preset full`) as IREE dispatches them
# (unit-batch batch matmuls): sm_90 has no MMA intrinsic for f32, so these get the SIMT space (`gpu_simt_contraction`)
F32_MODEL_SHAPES = [
    ContractionShape(128, 50257, 768, batch=1),  # GPT-2 LM head, 128 tokens
    ContractionShape(128, 3072, 768, batch=1),  # BERT-base / GPT-2 MLP up, 128 tokens
    ContractionShape(197, 3072, 768, batch=1),  # ViT-B/16 MLP up, 197 tokens
    ContractionShape(128, 768, 3072, batch=1),  # BERT-base MLP down
    # not in the measurements the SIMT heuristic's rules were checked against (benchmarks/results/sm_90/simt_f32/)
    ContractionShape(128, 768, 768, batch=1),  # BERT-base attention output
    ContractionShape(128, 2304, 768, batch=1),  # GPT-2 fused QKV projection
    ContractionShape(197, 2304, 768, batch=1),  # ViT-B/16 fused QKV projection: 197 rows, partial tiles
    ContractionShape(197, 768, 3072, batch=1),  # ViT-B/16 MLP down
]


def batch1_f32(*sizes: tuple[int, int, int]) -> list[ContractionShape]:
    """f32 matmuls of the given (M, N, K) as IREE dispatches a model's layers: unit-batch batch matmuls."""
    return [ContractionShape(m, n, k, batch=1) for m, n, k in sizes]


# f32 layers at more tokens than any SIMT problem of datasets/sm_90 holds, none within 2x of one in every role (nor of
# a 1x1 convolution's GEMM): GPT-2 medium's MLP at 512 tokens, BERT-base's attention output at 16 x 128 tokens, GPT-2's
# fused QKV projection at 1024 tokens
F32_UNSEEN_SHAPES = batch1_f32((512, 4096, 1024), (512, 1024, 4096), (2048, 768, 768), (1024, 2304, 768))
# four more, chosen on 2026-11-29 when the SIMT model became a ranking one (`ranking-trees`), none within 2x of a
# SIMT problem of datasets/sm_90 in every role then: BERT-base's MLP up at 384 tokens, a square matmul, a 64-token
# projection with 5120-wide K and N, and a 4096-token 512-wide one
F32_UNSEEN_SHAPES_B = batch1_f32((384, 3072, 768), (1536, 1536, 1536), (64, 5120, 5120), (4096, 512, 512))
# four more, chosen on 2026-11-29 to be measured with a shuffle (no ranker's picks): none within 2x in every role of a
# SIMT problem of datasets/sm_90 or of the groups above: GPT-2's LM head at 32 tokens (50257 columns, a partial tile),
# Llama-2-7B's attention output at 256 tokens, Whisper-base's encoder MLP down at 1500 frames and Swin-T's stage-1
# MLP up at 56x56 tokens
F32_UNSEEN_SHAPES_C = batch1_f32((32, 50257, 768), (256, 4096, 4096), (1500, 512, 2048), (3136, 384, 96))
# four more, chosen after the three groups above joined datasets/sm_90 (2026-11-29), none within 2x of a SIMT
# problem there in every role: Llama-2-7B's attention output decoding 16 sequences, TinyLlama's LM head at 64
# tokens, ViT-S/16's MLP up at 8192 tokens and Llama-3.2-1B's MLP up at 2048 tokens
F32_UNSEEN_SHAPES_D = batch1_f32((16, 4096, 4096), (64, 32000, 2048), (8192, 1536, 384), (2048, 8192, 2048))
SHAPE_GROUPS = {
    "unseen-f16": SHAPES,
    "f32-models": F32_MODEL_SHAPES,
    "unseen-f32": F32_UNSEEN_SHAPES,
    "unseen-f32-b": F32_UNSEEN_SHAPES_B,
    "unseen-f32-c": F32_UNSEEN_SHAPES_C,
    "unseen-f32-d": F32_UNSEEN_SHAPES_D,
    **{name: [shape for shape, _ in problems] for name, problems in CPU_PROBLEM_SETS.items()},
}
NEAR = 1.05
SLOW = 4.0


def ratios_in_order(records: list[dict]) -> list[float]:
    """Each record's time / default time (inf: failed), in the order the run measured them; a candidate that built
    to IREE's default module is left out (it was not timed, and the budget does not count it)."""
    return [
        record_ratio(r) if r["status"] == "ok" else float("inf")
        for r in sorted(records, key=lambda r: r["position"])
        if r["status"] != NOT_APPLIED
    ]


def tune(
    source_tree: Path, ranker: str, model: Path, run_dir: Path, device: str, args: argparse.Namespace
) -> list[float]:
    """Each candidate's time / default time (inf: failed), in the order the ranker proposed them."""
    env = {**os.environ, "PYTHONPATH": python_path_first(source_tree)}
    command = [
        sys.executable,
        "-m",
        "mltune.cli",
        "tune",
        str(model),
        "--ranker",
        ranker,
        "--budget",
        str(args.budget),
        "--target",
        args.target,
        "--devices",
        device,
        "--run-dir",
        str(run_dir),
        "--dataset-dir",
        str(run_dir.parent / f"datasets-{run_dir.name}"),
        "-o",
        str(run_dir / "out.mlir"),
        "--seed",
        "0",
        "-q",
        *(f"--iree-flag={flag}" for flag in args.iree_flag),
    ]
    if args.model_dir is not None:
        command += ["--model-dir", str(args.model_dir.resolve())]
    if args.near_default is not None:
        command += ["--near-default", str(args.near_default)]
    with held(args.lock):
        result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=run_dir.parent)
    if result.returncode != 0:
        sys.exit(f"{run_dir.name}: mltune tune failed:\n{result.stderr[-3000:]}")
    records = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines() if line.strip()]
    ratios = ratios_in_order(records)
    print(
        f"{run_dir.parent.name} {run_dir.name} on {device}: ratios in proposal order "
        f"{' '.join(f'{r:.3f}' for r in ratios)}",
        flush=True,
    )  # kept if a later run does not finish
    return ratios


def first_within(ratios: list[float | None], best: float) -> int | None:
    """1-based position of the first ratio within 5 % of `best`, None if none is; a failed candidate (inf, or None
    as stored) keeps its position."""
    return next((i + 1 for i, r in enumerate(ratios) if r is not None and r <= best * NEAR), None)


def one_shape(
    name: str, text: str, device: str, runs: dict[str, tuple[Path, str]], work: Path, args: argparse.Namespace
) -> list[dict]:
    """Every run of one shape (`text`, its model or dumped dispatch) on one GPU, and each run's row."""
    folder = work / name
    folder.mkdir()
    model = folder / f"{name}.mlir"
    model.write_text(text)
    ratios = {run: tune(tree, ranker, model, folder / run, device, args) for run, (tree, ranker) in runs.items()}
    best = min(min(r) for r in ratios.values())
    rows = []
    for run, measured in ratios.items():
        rows.append(
            {
                "shape": name,
                "run": run,
                "device": device,
                "best_speedup": 1 / min(measured),
                "slower_4x": sum(r > SLOW for r in measured),
                "tried": len(measured),
                "first_within_5pct": first_within(measured, best),
                "ratios": [r if r != float("inf") else None for r in measured],
            }
        )
    return rows


def write_rows(args: argparse.Namespace, rows: list[dict], load_before: float) -> None:
    if args.out is not None:
        args.out.write_text(
            json.dumps(
                {
                    "budget": args.budget,
                    "target": args.target,
                    "load_average": [load_before, os.getloadavg()[0]],
                    "rows": rows,
                },
                indent=2,
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rankers", default="heuristic,random-forest,shuffle")
    parser.add_argument("--other-src", type=Path, default=None, help="another checkout's root: its heuristic too")
    parser.add_argument("--budget", type=int, default=30)
    parser.add_argument("--target", default="sm_90")
    parser.add_argument("--devices", default="cuda://0", help="shapes run side by side, one per device")
    parser.add_argument("--shapes", choices=tuple(SHAPE_GROUPS), default="unseen-f16")
    parser.add_argument("--only", default="", help="shape names (comma-separated)")
    parser.add_argument(
        "--dispatches",
        default="",
        help="dumped dispatch benchmarks (comma-separated), tuned as "
        "they are instead of --shapes (a CUDA batch-1 convolution is tunable only so)",
    )
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--keep", type=Path, default=None, help="a new folder the runs are kept in (default: removed)")
    parser.add_argument("--iree-flag", action="append", default=[], metavar="FLAG")
    parser.add_argument("--model-dir", type=Path, default=None, help="passed on to `mltune tune --model-dir`")
    parser.add_argument(
        "--near-default",
        type=float,
        default=None,
        metavar="SHARE",
        help="passed on to `mltune tune --near-default` (0: the rankers' orders alone, as every run "
        "before the option existed)",
    )
    parser.add_argument("--lock", type=Path, default=None, help="a lock file each run holds (flock), e.g. on a CPU")
    args = parser.parse_args()
    runs = {ranker: (ROOT, ranker) for ranker in args.rankers.split(",") if ranker}
    if args.other_src is not None:
        runs["other-heuristic"] = (args.other_src.resolve(), "heuristic")
    if args.dispatches:
        benches = [Path(p) for p in args.dispatches.split(",")]
        shapes = [
            (b.stem.removeprefix("module_").removesuffix("_benchmark").replace("$", "_"), b.read_text())
            for b in benches
        ]
    else:
        shapes = [(s.name, contraction_model(s)) for s in SHAPE_GROUPS[args.shapes]]
    shapes = [(name, text) for name, text in shapes if not args.only or name in args.only.split(",")]
    devices = args.devices.split(",")
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="mltune-unseen-") as scratch, ThreadPoolExecutor(len(devices)) as pool:
        work = Path(scratch) if args.keep is None else args.keep
        work.mkdir(exist_ok=True)
        jobs = [
            pool.submit(one_shape, name, text, devices[i % len(devices)], runs, work, args)
            for i, (name, text) in enumerate(shapes)
        ]
        rows = []
        for job in jobs:  # written shape by shape, so that a run cut short keeps the shapes it finished
            rows += job.result()
            write_rows(args, rows, load_before)
    print(
        f"budget {args.budget}, target {args.target}; load average {load_before:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after"
    )
    width = max(28, *(len(row["shape"]) for row in rows))
    print(f"{'shape':<{width}} {'run':<16} {'device':<8} {'best':>6} {'>4x slower':>11} {'first within 5 %':>17}")
    for row in rows:
        first = row["first_within_5pct"]
        print(
            f"{row['shape']:<{width}} {row['run']:<16} {row['device']:<8} {row['best_speedup']:>5.2f}x "
            f"{row['slower_4x']:>5} of {row['tried']:<3} {first if first else 'none':>17}"
        )


if __name__ == "__main__":
    main()
