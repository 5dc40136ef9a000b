"""IREE's default, mltune's tuned result and numpy's BLAS on the same contraction shapes, threads and run.

For every shape (the CPU examples' contractions and layers of real models, f32, f16 and bf16): a one-op
model is tuned with `mltune tune --budget N` (the repository's datasets are copied into WORK first, so the
tuner starts from what they know and writes nothing into the repository); then plain `iree-compile` builds
IREE's default and the tuned model (the exact command mltune wrote in `compile_command.txt`, so a tuned
result that chose other compile flags, e.g. data tiling, is built with them), and `iree-benchmark-module`
(`local-task`, one worker per core) times both, interleaved with numpy's `matmul` on the same shape in
each round, BLAS pinned to the same number of threads with threadpoolctl. BLAS has no bf16 or f16 GEMM: such
shapes are compared with f32 BLAS (sgemm) on inputs upcast before timing (marked `f32 BLAS` in the table);
an N x K weight is passed transposed (no copy). Each tool's time is the fastest of 5 repetitions of
>= 0.1 s of calls (as `benchmarks/whole_models/tune_examples.py`); the table gives the median over rounds, GFLOP/s from
it and the medians of the per-round ratios. Every shape holds `--lock` while it tunes and measures.

    python benchmarks/cpu/blas_comparison.py [--budget 16] [--rounds 5] [--lock /tmp/mltune-cpu.lock]
        [--only NAME ...] [--json OUT.json] [--iree-flag=--some-flag ...]
    python benchmarks/cpu/blas_comparison.py --show OUT.json [MORE.json ...]  # the table of saved rows
    python benchmarks/cpu/blas_comparison.py --earlier-src OLD_CHECKOUT [...]   # adds that mltune's tuned build
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
import timeit
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from measure_lock import held
from threadpoolctl import threadpool_limits
from whole_models.tune_examples import CPU_FLAGS, benchmark_ms, run

from mltune.frontend.one_op_model import ContractionShape, contraction_model

ROOT = Path(__file__).resolve().parents[2]
S = ContractionShape
T = dict(transpose_rhs=True)

# (shape, where it comes from): the CPU examples' contractions first, then layers of real models
SHAPES: list[tuple[ContractionShape, str]] = [
    (S(100, 1000, 300), "examples/matmul_f32.mlir"),
    (S(128, 128, 64, batch=12), "examples/batch_matmul_f32.mlir"),
    (S(128, 3072, 768, in_type="f16", **T), "examples/matmul_nt_f16.mlir"),
    (S(8, 4096, 1024), "examples/matmul_decode_f32.mlir"),
    (S(3136, 64, 576), "examples/matmul_conv3x3_f32.mlir"),
    (S(128, 3072, 768), "BERT-base MLP up, seq 128"),
    (S(197, 2304, 768), "ViT-B/16 fused QKV projection"),
    (S(64, 2048, 2048, **T), "Llama-3.2-1B query/output projection, prefill 64"),
    (S(784, 128, 1152), "ResNet-50 stage 2 3x3 conv, im2col"),
    (S(1, 3072, 768), "BERT/GPT-2 decode step, MLP up"),
    (S(256, 3072, 768, in_type="bf16"), "BERT-base MLP up in bf16, seq 256"),
    (S(32, 2048, 2048, in_type="bf16", **T), "Llama-3.2-1B query projection in bf16, prefill 32"),
    (S(128, 768, 768, in_type="bf16"), "BERT-base attention output in bf16, seq 128"),
]


@dataclass
class Row:
    name: str
    source: str
    gflop: float
    blas: str  # what BLAS computed: "sgemm", or "f32 BLAS" on upcast inputs
    default_ms: float
    tuned_ms: float
    blas_ms: float
    default_over_tuned: float  # median of per-round ratios: > 1 means tuned is faster
    blas_over_tuned: float  # > 1 means tuned is faster than BLAS; the target is >= 0.9
    tuned_command: str
    mltune_said: str
    load_before: str
    earlier_ms: float | None = None  # --earlier-src: the earlier mltune's tuned build, in the same rounds
    blas_over_earlier: float | None = None
    earlier_command: str | None = None


def blas_operands(shape: ContractionShape, seed: int = 0):
    """f32 operands of the shape (upcast inputs for narrower types), and the callable BLAS times."""
    rng = np.random.default_rng(seed)
    lead = (shape.batch,) if shape.batch else ()
    lhs = rng.standard_normal(lead + (shape.m, shape.k), dtype=np.float32)
    rhs = rng.standard_normal(
        lead + ((shape.n, shape.k) if shape.transpose_rhs else (shape.k, shape.n)), dtype=np.float32
    )
    out = np.empty(lead + (shape.m, shape.n), dtype=np.float32)
    right = np.swapaxes(rhs, -1, -2) if shape.transpose_rhs else rhs
    return lambda: np.matmul(lhs, right, out=out)


def blas_ms(call, threads: int) -> float:
    """Fastest of 5 repetitions of >= 0.1 s of calls, in ms, with BLAS on `threads` threads."""
    with threadpool_limits(limits=threads, user_api="blas"):
        call()
        timer = timeit.Timer(call)
        number, _ = timer.autorange()  # calls per repetition: >= 0.2 s
        number = max(1, number // 2)
        return 1e3 * min(timer.repeat(repeat=5, number=number)) / number


def tune(
    shape: ContractionShape, work: Path, budget: int, iree_flags: list[str], src: Path | None = None
) -> tuple[Path, Path, str, str]:
    """Tune the one-op model with the mltune in `src` (None: this one) into WORK/NAME, unless a finished run is
    there already; the tuned build command (empty when mltune kept nothing: IREE's default build)."""
    run_dir = work / shape.name
    source = work / f"{shape.name}.mlir"
    said = "(tuned by an earlier run of this script)"
    if not (run_dir / "summary.json").is_file():
        source.write_text(contraction_model(shape))
        flags = [f"--iree-flag={flag}" for flag in iree_flags]
        env = {**os.environ, "PYTHONPATH": str(src)} if src else None
        tuned = subprocess.run(
            [
                sys.executable,
                "-m",
                "mltune.cli",
                "tune",
                str(source),
                "--budget",
                str(budget),
                "--run-dir",
                str(run_dir),
                "-o",
                str(run_dir / "best_spec.mlir"),
                "--dataset-dir",
                str(work / "datasets"),
                *flags,
            ],
            capture_output=True,
            text=True,
            env=env,
            cwd=src,
        )
        if tuned.returncode != 0:
            raise RuntimeError(f"mltune tune {shape.name} failed: {tuned.stderr.strip()[-400:]}")
        said = tuned.stdout.strip().splitlines()[-1] if tuned.stdout.strip() else ""
    command_file = run_dir / "compile_command.txt"
    command = command_file.read_text().strip() if command_file.is_file() else ""
    return source, run_dir, command, said


def tuned_build(command: str, out: Path) -> list[str]:
    """mltune's printed command, writing `out` (its `-o` replaced)."""
    args = shlex.split(command)
    return [*args[: args.index("-o")], "-o", str(out)]


def measure(shape: ContractionShape, source: str, work: Path, args: argparse.Namespace) -> Row:
    load = os.getloadavg()
    model, run_dir, command, said = tune(shape, work, args.budget, args.iree_flag)
    earlier_command = ""
    if args.earlier_src:
        earlier_command = tune(shape, args.earlier_work, args.budget, args.iree_flag, args.earlier_src)[2]
    inputs = run_dir / "inputs" / "flags.txt"
    default_vmfb, tuned_vmfb = run_dir / "plain_default.vmfb", run_dir / "plain_tuned.vmfb"
    earlier_vmfb = run_dir / "plain_earlier.vmfb"
    run(["iree-compile", str(model), *CPU_FLAGS, *args.iree_flag, "-o", str(default_vmfb)])
    for built, vmfb in ((command, tuned_vmfb), (earlier_command, earlier_vmfb)):
        if built:
            run(tuned_build(built, vmfb))
    call = blas_operands(shape)
    threads = os.cpu_count() or 1
    default, tuned, earlier, blas = [], [], [], []
    for _ in range(args.rounds):
        default.append(benchmark_ms(default_vmfb, inputs))
        # no command: the user keeps IREE's default module
        tuned.append(benchmark_ms(tuned_vmfb, inputs) if command else default[-1])
        if args.earlier_src:
            earlier.append(benchmark_ms(earlier_vmfb, inputs) if earlier_command else default[-1])
        blas.append(blas_ms(call, threads))
    batch = shape.batch or 1
    return Row(
        shape.name,
        source,
        2e-9 * batch * shape.m * shape.n * shape.k,
        "sgemm" if shape.in_type == "f32" else "f32 BLAS",
        statistics.median(default),
        statistics.median(tuned),
        statistics.median(blas),
        statistics.median(d / t for d, t in zip(default, tuned)),
        statistics.median(b / t for b, t in zip(blas, tuned)),
        command or "(IREE default)",
        said,
        " ".join(f"{x:.2f}" for x in load),
        statistics.median(earlier) if earlier else None,
        statistics.median(b / t for b, t in zip(blas, earlier)) if earlier else None,
        (earlier_command or "(IREE default)") if args.earlier_src else None,
    )


def build_label(command: str) -> str:
    """What the tuned build is: IREE's default, a spec, and the flags mltune added (data tiling and its knobs)."""
    if command == "(IREE default)":
        return "IREE default"
    args = shlex.split(command)
    added = [a for a in args if a.startswith(("--iree-opt", "--iree-llvmcpu-")) and "target-cpu" not in a]
    return " ".join(["spec"] * any(a.startswith("--iree-codegen-tuning-spec-path") for a in args) + added)


def print_table(rows: list[Row], args: argparse.Namespace) -> None:
    earlier = any(r.earlier_ms is not None for r in rows)
    print(
        f"\nbudget {args.budget}, {args.rounds} interleaved rounds, {os.cpu_count()} threads for IREE and BLAS; "
        "ms = median over rounds of each tool's fastest repetition; ratios = median of per-round ratios"
    )
    head = ["shape", "source", "IREE default ms (GFLOP/s)"]
    head += ["earlier mltune ms (GFLOP/s)", "BLAS / earlier"] if earlier else []
    head += [
        "tuned ms (GFLOP/s)",
        "BLAS ms (GFLOP/s)",
        "BLAS",
        "default / tuned",
        "BLAS / tuned",
        "tuned build",
        "load before",
    ]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))

    def timed(ms: float, gflop: float) -> str:
        return f"{ms:.3f} ({gflop / ms * 1e3:.0f})"

    for r in rows:
        cells = [r.name, r.source, timed(r.default_ms, r.gflop)]
        if earlier:
            cells += [timed(r.earlier_ms, r.gflop), f"{r.blas_over_earlier:.2f}x"] if r.earlier_ms else ["-", "-"]
        cells += [
            timed(r.tuned_ms, r.gflop),
            timed(r.blas_ms, r.gflop),
            r.blas,
            f"{r.default_over_tuned:.2f}x",
            f"{r.blas_over_tuned:.2f}x",
            build_label(r.tuned_command),
            r.load_before,
        ]
        print("| " + " | ".join(cells) + " |")
    within = sum(r.blas_over_tuned >= 0.9 for r in rows)
    slower = sum(r.default_over_tuned < 1.0 for r in rows)
    print(
        f"tuned within 0.9x of BLAS on {within}/{len(rows)} shapes; tuned slower than IREE's default "
        f"(median ratio < 1) on {slower}/{len(rows)}"
    )
    if earlier:
        print(
            f"earlier mltune within 0.9x of BLAS on {sum((r.blas_over_earlier or 0) >= 0.9 for r in rows)}"
            f"/{len(rows)} shapes"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lock", type=Path, default=None, help="flock(1) lock held while each shape is measured")
    parser.add_argument("--work", type=Path, default=ROOT / "mltune-runs" / f"blas-{time.strftime('%Y%m%d-%H%M%S')}")
    parser.add_argument("--only", nargs="*", default=None, help="shape names (e.g. mm_100x1000x300_f32f32_nn)")
    parser.add_argument("--json", type=Path, default=None, help="write the rows here too")
    parser.add_argument("--iree-flag", action="append", default=[], help="an iree-compile flag for every build")
    parser.add_argument(
        "--earlier-src",
        type=Path,
        default=None,
        help="a checkout of an earlier mltune: its tuned build is measured in the same rounds too",
    )
    parser.add_argument(
        "--earlier-work",
        type=Path,
        default=None,
        help="where the earlier mltune tunes (a finished run there is reused); default WORK/earlier",
    )
    parser.add_argument(
        "--show",
        nargs="+",
        type=Path,
        default=None,
        help="print the table of rows saved by --json (files in order), measuring nothing",
    )
    args = parser.parse_args()
    if args.show:
        print_table([Row(**row) for path in args.show for row in json.loads(path.read_text())], args)
        return 0
    if args.earlier_src and args.earlier_work is None:
        args.earlier_work = args.work / "earlier"
    shapes = [(s, src) for s, src in SHAPES if args.only is None or s.name in args.only]
    args.work.mkdir(parents=True, exist_ok=True)
    for work in (args.work, args.earlier_work):
        if work is not None and not (work / "datasets").exists():  # the tuner's priors, not written back
            shutil.copytree(ROOT / "datasets", work / "datasets")
    rows = []
    for shape, source in shapes:
        with held(args.lock):
            rows.append(measure(shape, source, args.work, args))
        print(json.dumps(asdict(rows[-1])), flush=True)
        if args.json:
            args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1))
    print_table(rows, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
