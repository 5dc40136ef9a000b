"""Measure attention, convolution and reduction spaces on a GPU or the host CPU: real models' shapes, each tuned with
a random shuffle.

Every problem is a one-op model run through `mltune tune --ranker shuffle --budget N`, so every candidate is timed
against IREE's default build in the same process and appended to `DATASET_DIR/<arch>/` as it is measured: an
unbiased sample of the space that `mltune evaluate` replays to place the heuristic's and the forest's orders.
GPU targets take `GPU_PROBLEMS` (the test suite's sources: `iree_linalg_ext.attention` as a torch-style scaled
dot-product attention reaches IREE, and unit-stride 3x3 `conv_2d_nhwc_hwcf`); `--target host` takes `CPU_PROBLEMS`
(`mltune.frontend`'s one-op models: attention, batch-1 convolutions as PyTorch exports hold them, layer norms,
softmax and pooling; GPT-2's attention with the test suite's boolean mask, as PyTorch exports pass one). A problem
whose run folder under `--work` holds a `summary.json` is skipped, so an interrupted collection resumes;
`--stop-after` starts no problem after that many seconds. `--dispatches DIR` takes the dumped dispatches of real
models that `pick_dispatches.py` copied to DIR instead (in its order; `--lane I/N` takes every Nth from the Ith, so
that N collectors, one per GPU, share them). With `--lock`, each problem's whole `mltune tune` holds
that flock(1) lock, and the load average before and after it is printed and kept in the problem's log.

    python benchmarks/collection/gpu_kinds.py --target sm_90 --devices cuda://0 --budget 30 --dataset-dir datasets \\
        --work DIR [--only NAME ...] [--stop-after SECONDS] [--iree-flag=...]
    python benchmarks/collection/gpu_kinds.py --target sm_90 --devices cuda://1 --dispatches DIR --lane 1/4 ...
    python benchmarks/collection/gpu_kinds.py --target host --budget 30 --jobs 2 --dataset-dir datasets --work DIR \\
        --lock /tmp/mltune-cpu.lock
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the model sources the test suite uses
from iree_helpers import attention_source, conv2d_nhwc_source, masked_attention_source  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from measure_lock import held  # noqa: E402

from mltune.frontend.one_op_model import AttentionShape, attention_model, convolution_model  # noqa: E402
from mltune.frontend.one_op_reduction import ReductionShape, reduction_model  # noqa: E402

# name -> (source, where the shape comes from)
GPU_PROBLEMS: dict[str, tuple[str, str]] = {
    "attention_20x4096x64_f16": (
        attention_source(20, 4096, 64, 4096, 64),
        "SDXL self-attention, 2 x 10 heads of 64, 64x64 latents",
    ),
    "attention_32x2048x128_f16": (
        attention_source(32, 2048, 128, 2048, 128),
        "Llama-7B prefill, 32 heads of 128, 2048 tokens",
    ),
    "attention_8x8192x128_f16": (
        attention_source(8, 8192, 128, 8192, 128),
        "Llama-style long context, 8 heads of 128, 8192 tokens",
    ),
    "conv3x3_2x64x64x320_f16": (
        conv2d_nhwc_source(2, 66, 66, 320, 320),
        "SD UNet 3x3 conv, 64x64 latents, 320 channels",
    ),
    "conv3x3_2x32x32x640_f16": (conv2d_nhwc_source(2, 34, 34, 640, 640), "SD UNet 3x3 conv, 32x32, 640 channels"),
    "conv3x3_8x28x28x256_f16": (conv2d_nhwc_source(8, 30, 30, 256, 256), "ResNet-style 3x3 conv, 28x28, 256 channels"),
    # where the first six left the sm_90 records thin: an attention no other is a 2x neighbour of, and convolutions
    # at the ends of ResNet's and SDXL's ranges
    "attention_40x1024x64_f16": (
        attention_source(40, 1024, 64, 1024, 64),
        "SDXL self-attention, 2 x 20 heads of 64, 32x32 latents",
    ),
    "conv3x3_8x56x56x64_f16": (conv2d_nhwc_source(8, 58, 58, 64, 64), "ResNet-50 stage 1 3x3 conv, 56x56, 64 channels"),
    "conv3x3_8x7x7x512_f16": (conv2d_nhwc_source(8, 9, 9, 512, 512), "ResNet-50 stage 4 3x3 conv, 7x7, 512 channels"),
    "conv3x3_2x128x128x320_f16": (
        conv2d_nhwc_source(2, 130, 130, 320, 320),
        "SDXL UNet 3x3 conv, 128x128 latents, 320 channels",
    ),
}

NCHW, DEPTHWISE = "linalg.conv_2d_nchw_fchw", "linalg.depthwise_conv_2d_nhwc_hwc"
# f32, batch 1, inputs pre-padded as a model's convolution reads them (the shapes of benchmarks/cpu/*.py), the
# three kinds interleaved so that a collection cut short still covers each.
CPU_PROBLEMS: dict[str, tuple[str, str]] = {
    "bert_base_attention_s128": (
        attention_model(AttentionShape(12, 128, 64, 128, 64)),
        "BERT-base, 12 heads of 64, 128 tokens",
    ),
    "resnet50_stem_7x7s2_nchw": (
        convolution_model(NCHW, (1, 3, 230, 230), (64, 3, 7, 7), (1, 64, 112, 112), 2),
        "ResNet-50 7x7 stride-2 stem, 3 -> 64 at 112x112",
    ),
    "bert_base_layernorm_128x768": (
        reduction_model(ReductionShape("layernorm", (128, 768))),
        "BERT-base / GPT-2 small layer norm, 128 tokens",
    ),
    "vit_b16_attention_s197": (
        attention_model(AttentionShape(12, 197, 64, 197, 64)),
        "ViT-B/16, 12 heads of 64, 196 patches + class",
    ),
    "resnet50_3x3_56x56x64_nchw": (
        convolution_model(NCHW, (1, 64, 58, 58), (64, 64, 3, 3), (1, 64, 56, 56), 1),
        "ResNet-50 stage 1 3x3, 64 -> 64 at 56x56",
    ),
    "bert_base_softmax_12x128x128": (
        reduction_model(ReductionShape("softmax", (12, 128, 128))),
        "BERT-base attention softmax, 128 tokens",
    ),
    "vit_s16_attention_s197": (
        attention_model(AttentionShape(6, 197, 64, 197, 64)),
        "ViT-S/16, 6 heads of 64, 196 patches + class",
    ),
    "mobilenet_dw3x3_112x112x32_nhwc": (
        convolution_model(DEPTHWISE, (1, 114, 114, 32), (3, 3, 32), (1, 112, 112, 32), 1),
        "MobileNet depthwise 3x3, 32 channels at 112x112",
    ),
    "vit_b16_layernorm_197x768": (reduction_model(ReductionShape("layernorm", (197, 768))), "ViT-B/16 layer norm"),
    "resnet50_3x3s2_28x28x128_nchw": (
        convolution_model(NCHW, (1, 128, 57, 57), (128, 128, 3, 3), (1, 128, 28, 28), 2),
        "ResNet-50 stage 2 strided 3x3, 128 -> 128 at 28x28",
    ),
    "vit_b16_softmax_12x197x197": (
        reduction_model(ReductionShape("softmax", (12, 197, 197))),
        "ViT-B/16 attention softmax",
    ),
    "resnet50_meanpool_2048x7x7": (
        reduction_model(ReductionShape("meanpool", (1, 2048, 7, 7))),
        "ResNet-50 global mean pool",
    ),
    "bert_base_attention_s256": (
        attention_model(AttentionShape(12, 256, 64, 256, 64)),
        "BERT-base, 12 heads of 64, 256 tokens",
    ),
    "resnet50_3x3_28x28x128_nchw": (
        convolution_model(NCHW, (1, 128, 30, 30), (128, 128, 3, 3), (1, 128, 28, 28), 1),
        "ResNet-50 stage 2 3x3, 128 -> 128 at 28x28",
    ),
    "gpt2_layernorm_1024x768": (
        reduction_model(ReductionShape("layernorm", (1024, 768))),
        "GPT-2 small layer norm, 1024-token context",
    ),
    "resnet50_3x3_14x14x256_nchw": (
        convolution_model(NCHW, (1, 256, 16, 16), (256, 256, 3, 3), (1, 256, 14, 14), 1),
        "ResNet-50 stage 3 3x3, 256 -> 256 at 14x14",
    ),
    "vit_s16_layernorm_197x384": (reduction_model(ReductionShape("layernorm", (197, 384))), "ViT-S/16 layer norm"),
    "mobilenetv2_dw3x3_56x56x144_nhwc": (
        convolution_model(DEPTHWISE, (1, 58, 58, 144), (3, 3, 144), (1, 56, 56, 144), 1),
        "MobileNetV2 depthwise 3x3, 144 channels at 56x56",
    ),
    "resnet50_3x3_7x7x512_nchw": (
        convolution_model(NCHW, (1, 512, 9, 9), (512, 512, 3, 3), (1, 512, 7, 7), 1),
        "ResNet-50 stage 4 3x3, 512 -> 512 at 7x7",
    ),
    "bert_base_attention_s128_f16": (
        attention_model(AttentionShape(12, 128, 64, 128, 64, "f16")),
        "BERT-base in f16, 128 tokens",
    ),
    "resnet50_3x3s2_14x14x256_nchw": (
        convolution_model(NCHW, (1, 256, 29, 29), (256, 256, 3, 3), (1, 256, 14, 14), 2),
        "ResNet-50 stage 3 strided 3x3, 256 -> 256 at 14x14",
    ),
    "vit_s16_softmax_6x197x197": (
        reduction_model(ReductionShape("softmax", (6, 197, 197))),
        "ViT-S/16 attention softmax",
    ),
    "mobilenetv2_dw3x3_28x28x192_nhwc": (
        convolution_model(DEPTHWISE, (1, 30, 30, 192), (3, 3, 192), (1, 28, 28, 192), 1),
        "MobileNetV2 depthwise 3x3, 192 channels at 28x28",
    ),
    "llama2_rmsnorm_128x4096": (
        reduction_model(ReductionShape("rmsnorm", (128, 4096))),
        "Llama-2-7B RMS norm, 128 tokens",
    ),
    "resnet50_3x3s2_7x7x512_nchw": (
        convolution_model(NCHW, (1, 512, 15, 15), (512, 512, 3, 3), (1, 512, 7, 7), 2),
        "ResNet-50 stage 4 strided 3x3, 512 -> 512 at 7x7",
    ),
    "gpt2_attention_s128_masked": (
        masked_attention_source(12, 128, 64, 128, 64, "f32"),
        "GPT-2 small, 12 heads of 64, 128 tokens, with a boolean mask",
    ),
}


def load() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def tune_command(model: Path, run_dir: Path, args: argparse.Namespace) -> list[str]:
    """`mltune tune` of one problem with a shuffle, every candidate timed in the whole model (a layer norm's model
    holds two dispatches of one problem: a screen would time them on one dispatch)."""
    command = [
        sys.executable,
        "-m",
        "mltune.cli",
        "tune",
        str(model),
        "--target",
        args.target,
        "--ranker",
        "shuffle",
        "--budget",
        str(args.budget),
        "--seed",
        str(args.seed),
        "--screen",
        "none",
        "--run-dir",
        str(run_dir),
        "--dataset-dir",
        str(args.dataset_dir),
        "-o",
        str(run_dir / "annotated.mlir"),
        *[f"--iree-flag={flag}" for flag in args.iree_flags],
    ]
    command += ["--devices", args.devices] if args.devices else []
    command += ["--jobs", str(args.jobs)] if args.jobs else []
    return command


def dumped_problems(folder: Path, lane: str) -> dict[str, tuple[str, str]]:
    """The dispatches `pick_dispatches.py` copied to `folder`, every Nth from the Ith for `lane` "I/N"."""
    first, count = (int(part) for part in lane.split("/"))
    rows = json.loads((folder / "picked.json").read_text())[first::count]
    return {
        row["name"]: (
            (folder / f"{row['name']}.mlir").read_text(),
            f"{row.get('model', 'dumped')} {row.get('dispatch', row.get('file'))}",
        )
        for row in rows
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="sm_90", help="a GPU target (GPU_PROBLEMS) or host (CPU_PROBLEMS)")
    parser.add_argument("--devices", default=None, help="runtime device (default: mltune's for the target)")
    parser.add_argument("--budget", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=None, help="parallel compiles (default: mltune's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dataset-dir", type=Path, default=ROOT / "datasets")
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--only", nargs="*", default=None, help="these problems only (by name)")
    parser.add_argument("--dispatches", type=Path, default=None, help="a pick_dispatches.py folder")
    parser.add_argument("--lane", default="0/1", help="I/N: every Nth of --dispatches from the Ith")
    parser.add_argument("--stop-after", type=float, default=None)
    parser.add_argument(
        "--lock",
        type=Path,
        default=None,
        metavar="FILE",
        help="hold this flock(1) lock for each problem's whole run, one problem at a time",
    )
    parser.add_argument("--iree-flag", action="append", default=[], dest="iree_flags")
    args = parser.parse_args()
    problems = CPU_PROBLEMS if args.target == "host" else GPU_PROBLEMS
    if args.dispatches is not None:
        problems = dumped_problems(args.dispatches, args.lane)
    unknown = sorted(set(args.only or ()) - set(problems))
    if unknown:
        parser.error(f"no problem named {', '.join(unknown)}")
    start = time.monotonic()
    for name in [n for n in problems if args.only is None or n in args.only]:
        run_dir = args.work / name
        if (run_dir / "summary.json").is_file():
            continue
        if args.stop_after is not None and time.monotonic() - start > args.stop_after:
            print(f"stopping before {name}: {args.stop_after:.0f} s spent", flush=True)
            break
        source, origin = problems[name]
        args.work.mkdir(parents=True, exist_ok=True)
        model = args.work / f"{name}.mlir"
        model.write_text(source)
        command = tune_command(model, run_dir, args)
        print(f"== {name}: {origin}\n$ {shlex.join(command)}", flush=True)
        with held(args.lock):
            before, began = load(), time.monotonic()
            done = subprocess.run(command, capture_output=True, text=True)
            loads = f"load average before {before}, after {load()}"
        (args.work / f"{name}.log").write_text(f"$ {shlex.join(command)}\n{loads}\n{done.stdout}{done.stderr}")
        tail = (done.stdout + done.stderr).strip().splitlines()[-6:]
        print("\n".join(tail), f"\n(exit {done.returncode}, {time.monotonic() - began:.0f} s; {loads})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
