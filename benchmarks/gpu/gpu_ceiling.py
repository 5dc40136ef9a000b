"""How close tuned IREE matmuls get to cuBLAS on one CUDA GPU: one table row per shape, all measured in one run.

For each f16 matmul (N x K weight, f32 accumulation: `collect_dataset.py`'s GPU problems) it measures
- cuBLAS through `torch.matmul` (f16 operands, f32 accumulation: reduced-precision reductions are turned off),
  both with an f16 result and, where torch has `out_dtype`, an f32 result as IREE's;
- mltune's best of `--budget` candidates for each `--variant LABEL=ROOT`: `mltune tune` run from the mltune
  checkout ROOT (e.g. the code before and after a change to the space), same ranker and budget;
- IREE's default build and each variant's tuned build (`compile_command.txt`), all made with
  `--iree-hal-benchmark-dispatch-repeat-count=R` (R from the first variant's calibration), timed with plain
  `iree-benchmark-module` over `--rounds` rounds, the order rotating each round; a kernel's time is the
  call's time over R.
Each shape's row is appended to `--out` (JSON Lines) as soon as it is measured; a shape already there is
skipped, so a run cut short resumes. The variants' records go to `WORK/datasets/LABEL/`.

    python benchmarks/gpu/gpu_ceiling.py --shapes 2048x1280x5120 1024x1024x1024 --budget 40 --rounds 6 \\
        --variant before=/path/to/old/checkout --variant after=. --out ceiling.jsonl --work DIR \\
        --iree-flag=--iree-cuda-use-ptxas --iree-flag=--iree-cuda-use-ptxas-from=/usr/local/cuda/bin/ptxas
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from whole_models.tune_examples import benchmark_ms, run
from whole_models.tune_model import default_build_args, matmul_model, repeated, tuned_build_args

from mltune.targets import parse_target

CUBLAS_CALLS = 50


def cublas_tflops(m: int, n: int, k: int) -> dict[str, float]:
    """TFLOP/s of `torch.matmul` on an M x K by (N x K)^T f16 product: median of 7 timings of 50 calls each."""
    try:
        import torch
    except ImportError:
        return {}
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    a = torch.randn(m, k, dtype=torch.float16, device="cuda")
    b = torch.randn(n, k, dtype=torch.float16, device="cuda")
    products = {"f16_out": lambda: torch.matmul(a, b.t())}
    try:
        torch.mm(a, b.t(), out_dtype=torch.float32)
        products["f32_out"] = lambda: torch.mm(a, b.t(), out_dtype=torch.float32)
    except (TypeError, RuntimeError):
        pass
    result = {}
    for name, product in products.items():
        for _ in range(10):
            product()
        times = []
        for _ in range(7):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(CUBLAS_CALLS):
                product()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / 1e3 / CUBLAS_CALLS)
        result[name] = 2 * m * n * k / statistics.median(times) / 1e12
    return result


def tune(label: str, root: Path, model: Path, args: argparse.Namespace) -> Path:
    """`mltune tune` from the checkout `root`; returns its run folder."""
    run_dir = args.work / label / model.stem
    command = [
        sys.executable,
        "-m",
        "mltune.cli",
        "tune",
        str(model),
        "--target",
        args.target,
        "--devices",
        args.device,
        "--budget",
        str(args.budget),
        "--run-dir",
        str(run_dir),
        "--dataset-dir",
        str(args.work / "datasets" / label),
        "-o",
        str(run_dir / "annotated.mlir"),
    ]
    command += ["--ranker", args.ranker] if args.ranker else []
    command += [f"--iree-flag={flag}" for flag in args.iree_flags]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    print(f"[{label}] $", shlex.join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=root)
    (args.work / label).mkdir(parents=True, exist_ok=True)
    (args.work / label / f"{model.stem}.log").write_text(done.stdout + done.stderr)
    print("\n".join((done.stdout + done.stderr).strip().splitlines()[-4:]), flush=True)
    return run_dir


def measure_shape(shape: str, args: argparse.Namespace) -> dict:
    m, n, k = (int(x) for x in shape.split("x"))
    row: dict = {"shape": shape, "cublas_tflops": cublas_tflops(m, n, k), "variants": {}}
    model = matmul_model(shape, args.work / "models")
    runs = {label: tune(label, root, model, args) for label, root in args.variants}
    summaries = {
        label: json.loads((d / "summary.json").read_text())
        for label, d in runs.items()
        if (d / "summary.json").is_file()
    }
    first = next(iter(summaries.values()), None)
    repeat = (first or {}).get("kernel_timing", {}).get("repeat", 1)
    builds = {
        "iree_default": repeated(
            default_build_args(
                model,
                parse_target(args.target),
                args.iree_flags,
                args.work / "default" / model.stem,
                args.work / "x.vmfb",
            ),
            repeat,
            args.work / "default" / model.stem / "default.vmfb",
        )
    }
    for label, run_dir in runs.items():
        tuned = tuned_build_args(run_dir, run_dir / "x.vmfb")
        row["variants"][label] = {
            "summary_speedup": ((summaries.get(label, {}).get("end_to_end") or {}).get("recommended") or {}).get(
                "speedup"
            ),
            "kept": tuned is not None,
        }
        if tuned is not None:
            builds[label] = repeated(tuned, repeat, run_dir / "tuned_repeated.vmfb")
    vmfbs = {}
    for name, command in builds.items():
        run(command)
        vmfbs[name] = Path(command[command.index("-o") + 1])
    flags = next(d / "inputs" / "flags.txt" for d in runs.values() if (d / "inputs" / "flags.txt").is_file())
    times: dict[str, list[float]] = {name: [] for name in vmfbs}
    names = list(vmfbs)
    for round_index in range(args.rounds):
        order = names[round_index % len(names) :] + names[: round_index % len(names)]
        for name in order:
            times[name].append(benchmark_ms(vmfbs[name], flags, args.device) * 1e3 / repeat)
    row["repeat"], row["rounds"] = repeat, args.rounds
    row["kernel_us"] = {
        name: {"median": statistics.median(t), "min": min(t), "max": max(t)} for name, t in times.items()
    }
    row["tflops"] = {name: 2 * m * n * k / (statistics.median(t) * 1e-6) / 1e12 for name, t in times.items()}
    row["speedup_over_default"] = {
        name: statistics.median(d / t for d, t in zip(times["iree_default"], times[name])) for name in times
    }
    row["load_average"] = os.getloadavg()[0]
    return row


def variant(text: str) -> tuple[str, Path]:
    label, _, root = text.partition("=")
    if not label or not root or not Path(root, "mltune").is_dir():
        raise argparse.ArgumentTypeError(f"expected LABEL=ROOT with ROOT an mltune checkout, got {text!r}")
    return label, Path(root).resolve()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", default=["2048x1280x5120", "1024x1024x1024"])
    parser.add_argument("--variant", type=variant, action="append", dest="variants", required=True)
    parser.add_argument("--target", default="sm_90")
    parser.add_argument("--device", default="cuda://0")
    parser.add_argument("--budget", type=int, default=40)
    parser.add_argument("--ranker", default=None)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--iree-flag", action="append", default=[], dest="iree_flags")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    args = parser.parse_args()
    done = {json.loads(line)["shape"] for line in args.out.read_text().splitlines()} if args.out.is_file() else set()
    for shape in args.shapes:
        if shape in done:
            continue
        row = measure_shape(shape, args)
        with args.out.open("a") as out:
            out.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
