"""Measure attention and convolution spaces on a GPU: realistic f16 shapes, each tuned with a random shuffle.

Every problem is a one-op model (the test suite's sources: `iree_linalg_ext.attention` as a torch-style scaled
dot-product attention reaches IREE, and unit-stride 3x3 `conv_2d_nhwc_hwcf`) run through
`mltune tune --ranker shuffle --budget N`, so every candidate is timed against IREE's default build in the same
process and appended to `DATASET_DIR/<arch>/` as it is measured: an unbiased sample of the space that
`mltune evaluate` replays to place the heuristic's and the forest's orders. A problem whose run folder under
`--work` holds a `summary.json` is skipped, so an interrupted collection resumes; `--stop-after` starts no
problem after that many seconds.

    python benchmarks/collection/gpu_kinds.py --target sm_90 --devices cuda://0 --budget 30 --dataset-dir datasets \\
        --work DIR [--only NAME ...] [--stop-after SECONDS] [--iree-flag=...]
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the model sources the test suite uses
from iree_helpers import attention_source, conv2d_nhwc_source  # noqa: E402

# name -> (source, where the shape comes from)
PROBLEMS: dict[str, tuple[str, str]] = {
    "attention_20x4096x64_f16": (attention_source(20, 4096, 64, 4096, 64), "SDXL self-attention, 2 x 10 heads of 64, 64x64 latents"),
    "attention_32x2048x128_f16": (attention_source(32, 2048, 128, 2048, 128), "Llama-7B prefill, 32 heads of 128, 2048 tokens"),
    "attention_8x8192x128_f16": (attention_source(8, 8192, 128, 8192, 128), "Llama-style long context, 8 heads of 128, 8192 tokens"),
    "conv3x3_2x64x64x320_f16": (conv2d_nhwc_source(2, 66, 66, 320, 320), "SD UNet 3x3 conv, 64x64 latents, 320 channels"),
    "conv3x3_2x32x32x640_f16": (conv2d_nhwc_source(2, 34, 34, 640, 640), "SD UNet 3x3 conv, 32x32, 640 channels"),
    "conv3x3_8x28x28x256_f16": (conv2d_nhwc_source(8, 30, 30, 256, 256), "ResNet-style 3x3 conv, 28x28, 256 channels"),
    # where the first six left the sm_90 records thin: an attention no other is a 2x neighbour of, and convolutions
    # at the ends of ResNet's and SDXL's ranges
    "attention_40x1024x64_f16": (attention_source(40, 1024, 64, 1024, 64), "SDXL self-attention, 2 x 20 heads of 64, 32x32 latents"),
    "conv3x3_8x56x56x64_f16": (conv2d_nhwc_source(8, 58, 58, 64, 64), "ResNet-50 stage 1 3x3 conv, 56x56, 64 channels"),
    "conv3x3_8x7x7x512_f16": (conv2d_nhwc_source(8, 9, 9, 512, 512), "ResNet-50 stage 4 3x3 conv, 7x7, 512 channels"),
    "conv3x3_2x128x128x320_f16": (conv2d_nhwc_source(2, 130, 130, 320, 320), "SDXL UNet 3x3 conv, 128x128 latents, 320 channels"),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="sm_90")
    parser.add_argument("--devices", default="cuda://0")
    parser.add_argument("--budget", type=int, default=30)
    parser.add_argument("--dataset-dir", type=Path, default=ROOT / "datasets")
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--only", nargs="*", default=None, choices=sorted(PROBLEMS))
    parser.add_argument("--stop-after", type=float, default=None)
    parser.add_argument("--iree-flag", action="append", default=[], dest="iree_flags")
    args = parser.parse_args()
    start = time.monotonic()
    for name in args.only or PROBLEMS:
        run_dir = args.work / name
        if (run_dir / "summary.json").is_file():
            continue
        if args.stop_after is not None and time.monotonic() - start > args.stop_after:
            print(f"stopping before {name}: {args.stop_after:.0f} s spent", flush=True)
            break
        source, origin = PROBLEMS[name]
        args.work.mkdir(parents=True, exist_ok=True)
        model = args.work / f"{name}.mlir"
        model.write_text(source)
        command = [sys.executable, "-m", "mltune.cli", "tune", str(model), "--target", args.target, "--devices",
                   args.devices, "--ranker", "shuffle", "--budget", str(args.budget), "--run-dir", str(run_dir),
                   "--dataset-dir", str(args.dataset_dir), "-o", str(run_dir / "annotated.mlir"),
                   *[f"--iree-flag={flag}" for flag in args.iree_flags]]
        print(f"== {name}: {origin}\n$ {shlex.join(command)}", flush=True)
        began = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True)
        (args.work / f"{name}.log").write_text(done.stdout + done.stderr)
        tail = (done.stdout + done.stderr).strip().splitlines()[-6:]
        print("\n".join(tail), f"\n(exit {done.returncode}, {time.monotonic() - began:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
