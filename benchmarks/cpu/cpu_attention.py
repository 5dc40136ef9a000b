"""Attention on llvm-cpu: what tuning wins over IREE's default, and how soon the heuristic finds it against a shuffle.

Each shape becomes a one-op model (`mltune.frontend.one_op_model.attention_model`: one `iree_linalg_ext.attention`, as a
PyTorch scaled dot-product attention without mask reaches IREE) and is tuned twice with `mltune tune --budget N`,
once with `--ranker heuristic` and once with `--ranker shuffle`, each run writing its records to a dataset folder of
its own. The best candidate of both runs together is the reference: a ranker's position is the first measured
position (1-based) whose speedup over IREE's default is within 5 % of it. The best run's spec is then re-measured
with plain tools: `iree-compile` with `--iree-codegen-tuning-spec-path` and without, both builds timed with
`iree-benchmark-module` (`local-task`, fastest of 5 repetitions of >= 0.1 s, splat inputs), interleaved for
`--rounds` rounds; the table gives the median over rounds, the spread (min-max) and the median per-round ratio to
IREE's default (> 1: faster). The load average is printed before and after each shape. Holds `--lock` (exclusive)
for each tuning run and each re-measurement.

    python benchmarks/cpu/cpu_attention.py [--budget 30] [--rounds 7] [--lock /tmp/mltune-cpu.lock] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from cpu.cpu_ukernel_variants import build, interleaved_ms
from measure_lock import held

from mltune.frontend.one_op_model import AttentionShape, attention_model
from mltune.records.dataset import read_records

SHAPES = {  # name: (shape, where it comes from)
    "bert_base_s128_f32": (AttentionShape(12, 128, 64, 128, 64, "f32"), "BERT-base, 12 heads of 64, 128 tokens"),
    "vit_b16_s197_f32": (AttentionShape(12, 197, 64, 197, 64, "f32"), "ViT-B/16, 12 heads of 64, 196 patches + class"),
    "bert_base_s512_f32": (AttentionShape(12, 512, 64, 512, 64, "f32"), "BERT-base, 12 heads of 64, 512 tokens"),
    "bert_base_s128_f16": (AttentionShape(12, 128, 64, 128, 64, "f16"), "BERT-base in f16, 128 tokens"),
}
RANKERS = ("heuristic", "shuffle")
WITHIN = 1.05  # a candidate counts as found once its speedup is within 5 % of the best


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def input_flags(shape: AttentionShape) -> str:
    return "".join(f"--input={'x'.join(map(str, dims))}x{shape.element}=1\n" for dims in shape.operands)


def tune(source: Path, ranker: str, work: Path, args: argparse.Namespace) -> list[dict]:
    """One `mltune tune` run; its measured records in measurement order (each with its `speedup`)."""
    run_dir = work / ranker
    command = [
        sys.executable,
        "-m",
        "mltune.cli",
        "tune",
        str(source),
        "--ranker",
        ranker,
        "--budget",
        str(args.budget),
        "--jobs",
        str(args.jobs),
        "--run-dir",
        str(run_dir),
        "--dataset-dir",
        str(run_dir / "dataset"),
        "-o",
        str(run_dir / "spec.mlir"),
        "-q",
    ]
    with held(args.lock):
        done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"mltune tune failed: {done.stderr[-2000:]}")
    records = [r for r in read_records(run_dir / "results.jsonl") if r["status"] == "ok"]  # its trials, no finals
    for record in records:
        record["speedup"] = statistics.median(record["baseline_us"]) / statistics.median(record["time_us"])
    return sorted(records, key=lambda r: r["position"])


def first_within(records: list[dict], best: float) -> str:
    """The 1-based measured position of the first record within `WITHIN` of `best`, or `-` if none is."""
    hits = [i + 1 for i, r in enumerate(records) if r["speedup"] * WITHIN >= best]
    return str(hits[0]) if hits else "-"


def compare(name: str, shape: AttentionShape, args: argparse.Namespace, work: Path) -> str:
    print(f"{name}: load before {load()}", file=sys.stderr, flush=True)
    source, flags = work / f"{name}.mlir", work / f"{name}.flags"
    source.write_text(attention_model(shape))
    flags.write_text(input_flags(shape))
    runs = {ranker: tune(source, ranker, work / name, args) for ranker in RANKERS}
    best_ranker = max(RANKERS, key=lambda ranker: max((r["speedup"] for r in runs[ranker]), default=0.0))
    best = max(runs[best_ranker], key=lambda r: r["speedup"])
    spec = work / name / best_ranker / "spec.mlir"
    builds = {}
    for label, extra in (("default", []), ("tuned", [f"--iree-codegen-tuning-spec-path={spec}"])):
        vmfb = work / name / f"{label}.vmfb"
        error = build(source, extra, vmfb)
        if error:
            raise SystemExit(f"{name} {label} does not compile: {error}")
        builds[label] = (vmfb, flags)
    with held(args.lock):
        times = interleaved_ms(builds, args.rounds)
    default, tuned = times["default"], times["tuned"]
    ratio = statistics.median(d / t for d, t in zip(default, tuned))
    knobs = " ".join(f"{k}={v}" for k, v in best["knobs"].items())
    positions = " | ".join(
        f"{first_within(runs[ranker], best['speedup'])} of {len(runs[ranker])}" for ranker in RANKERS
    )
    print(f"{name}: load after {load()}", file=sys.stderr, flush=True)
    return (
        f"| {name} | {statistics.median(default):.3f} ({min(default):.3f}-{max(default):.3f}) | "
        f"{statistics.median(tuned):.3f} ({min(tuned):.3f}-{max(tuned):.3f}) | {ratio:.2f}x | "
        f"{best['speedup']:.2f}x | {knobs} | {positions} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel compiles of each tuning run")
    parser.add_argument("--lock", type=Path, default=None, help="flock(1) lock held while tuning and measuring")
    parser.add_argument("--only", nargs="*", default=list(SHAPES), choices=list(SHAPES))
    args = parser.parse_args()
    rows = [
        "| shape | IREE default ms (min-max) | tuned ms (min-max) | default / tuned | best in mltune's records | "
        "best knobs | heuristic: first within 5 % | shuffle: first within 5 % |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    with tempfile.TemporaryDirectory(prefix="mltune-cpu-attention-") as work:
        for name in args.only:
            rows.append(compare(name, SHAPES[name][0], args, Path(work)))
            print(rows[-1], file=sys.stderr, flush=True)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
