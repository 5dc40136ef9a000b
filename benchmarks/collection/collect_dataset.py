"""Measure a CPU dataset: contraction shapes from real models, each tuned with a random shuffle.

Every problem becomes a one-op model (`mltune.frontend.one_op_model`) and is run through
`mltune tune --ranker shuffle --budget N`, so every candidate is timed at the model level,
call by call against IREE's default in the same process, and appended to
`DATASET_DIR/<arch>/<problem>.jsonl` as it is measured. A random order makes the records
an unbiased sample of each problem's space, which is what training and evaluation need. A CPU problem's
data-tiled candidates (`mltune.spaces.cpu_data_tiling`, at most 24 among thousands) are collected on their own
with `--ranker shuffle-lowerings`: every one of them first, then random plain ones up to the budget.

On a machine with many cores, `--lanes L --cores-per-lane C` runs L problems at once, each
pinned to its own C cores with `taskset` (mltune then sizes IREE's worker pool to those
cores), so the records describe a C-core machine. A problem whose file already holds at
least `--budget` measured candidates is skipped, so an interrupted collection resumes. A problem
whose whole space is smaller than `--budget` is known to be finished only by its run's
`summary.json` under `--work`: resuming on another machine without that folder measures it again.

    python benchmarks/collection/collect_dataset.py [--budget 150] [--lanes 1] [--cores-per-lane 2]
        [--dataset-dir datasets] [--work DIR] [--stop-after SECONDS] [--only NAME ...]
    python benchmarks/collection/collect_dataset.py --problem-set cpu2 --arch znver3 --ranker shuffle-lowerings \
        --run-suffix .lowerings --budget 24
    python benchmarks/collection/collect_dataset.py --problem-set cpu3 --arch znver4 --budget 60
    python benchmarks/collection/collect_dataset.py --problem-set cpu5 --arch znver4 --budget 100 --lock L
    python benchmarks/collection/collect_dataset.py --problem-set cpu3 --arch znver4 --ranker contenders \
        --run-suffix .confirm --budget 6
    python benchmarks/collection/collect_dataset.py --target sm_90 --devices cuda://0 --budget 200 --cores-per-lane 16

GPU targets measure `GPU_PROBLEMS` and `GPU_LARGE_PROBLEMS` (f16/bf16 layers of LLMs, SDXL, BERT and ViT) and
`GPU_MATVEC_PROBLEMS` (decode-step GEMVs) on one device, one problem at a time, compiling with `--cores-per-lane`
jobs. On CUDA every build carries PTX, which the driver assembles when the timing worker loads it (0.14-0.5 s a
module on an H100 while the driver's cache does not hold it yet): IREE 3.13 accepts `--iree-cuda-use-ptxas` but never
runs ptxas (`docs/scaling.md`), so the GPU collections that passed it built the same modules as without it.
"""

from __future__ import annotations

import argparse
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from mltune.frontend.one_op_model import ContractionShape, contraction_model
from mltune.records.dataset import RECORD_SUFFIXES, read_records

ROOT = Path(__file__).resolve().parents[2]
S = ContractionShape

# (shape, where it comes from). M = tokens (or output pixels), N = output features, K = input features.
PROBLEMS: list[tuple[ContractionShape, str]] = [
    # BERT-base / GPT-2 small encoder layer (hidden 768, MLP 3072), sequence 32, 64, 128, 256
    (S(128, 2304, 768), "BERT-base fused QKV projection, seq 128"),
    (S(128, 768, 768), "BERT-base attention output projection, seq 128"),
    (S(128, 3072, 768), "BERT-base MLP up, seq 128"),
    (S(128, 768, 3072), "BERT-base MLP down, seq 128"),
    (S(32, 2304, 768), "BERT-base fused QKV projection, seq 32"),
    (S(32, 768, 768), "BERT-base attention output projection, seq 32"),
    (S(32, 3072, 768), "BERT-base MLP up, seq 32"),
    (S(32, 768, 3072), "BERT-base MLP down, seq 32"),
    (S(64, 768, 768), "BERT-base attention output projection, seq 64"),
    (S(64, 3072, 768), "BERT-base MLP up, seq 64"),
    (S(256, 768, 768), "BERT-base attention output projection, seq 256"),
    (S(64, 2304, 768, transpose_rhs=True), "GPT-2 small QKV with an N x K weight, seq 64"),
    (S(64, 768, 3072, transpose_rhs=True), "GPT-2 small MLP down with an N x K weight, seq 64"),
    # attention scores and context (12 heads of 64)
    (S(128, 128, 64, batch=12), "BERT-base attention scores Q.K^T, seq 128"),
    (S(128, 64, 128, batch=12), "BERT-base attention context P.V, seq 128"),
    (S(256, 256, 64, batch=12), "BERT-base attention scores Q.K^T, seq 256"),
    (S(256, 64, 256, batch=12), "BERT-base attention context P.V, seq 256"),
    (S(64, 64, 64, batch=12), "BERT-base attention scores Q.K^T, seq 64"),
    (S(197, 197, 64, batch=6), "ViT-S/16 attention scores, 197 tokens"),
    # ViT-S/16 (hidden 384, MLP 1536, 197 tokens)
    (S(197, 1152, 384), "ViT-S/16 fused QKV projection"),
    (S(197, 384, 384), "ViT-S/16 attention output projection"),
    (S(197, 1536, 384), "ViT-S/16 MLP up"),
    (S(197, 384, 1536), "ViT-S/16 MLP down"),
    # decoding: one or a few tokens against the weights
    (S(1, 768, 768), "BERT/GPT-2 size decode step, projection"),
    (S(1, 3072, 768), "BERT/GPT-2 size decode step, MLP up"),
    (S(4, 768, 3072), "GPT-2 size decode, 4 sequences, MLP down"),
    # TinyLlama (hidden 2048, MLP 5632), f16 weights in N x K layout with f32 accumulation
    (S(1, 2048, 2048, in_type="f16", transpose_rhs=True), "TinyLlama decode step, attention projection"),
    (S(1, 5632, 2048, in_type="f16", transpose_rhs=True), "TinyLlama decode step, MLP gate/up"),
    (S(1, 2048, 5632, in_type="f16", transpose_rhs=True), "TinyLlama decode step, MLP down"),
    (S(8, 2048, 2048, in_type="f16", transpose_rhs=True), "TinyLlama decode, 8 sequences, attention projection"),
    (S(32, 2048, 2048, in_type="f16", transpose_rhs=True), "TinyLlama prefill of 32 tokens, attention projection"),
    (S(32, 5632, 2048, in_type="f16", transpose_rhs=True), "TinyLlama prefill of 32 tokens, MLP gate/up"),
    # bf16 inputs with f32 accumulation
    (S(128, 768, 768, in_type="bf16"), "BERT-base attention output projection in bf16, seq 128"),
    (S(64, 3072, 768, in_type="bf16"), "BERT-base MLP up in bf16, seq 64"),
    # ResNet-50 / MobileNet convolutions as im2col matmuls: output pixels x out channels x (kh*kw*in channels)
    (S(3136, 64, 576), "ResNet-50 stage 1 3x3 conv, 56x56, im2col"),
    (S(784, 128, 1152), "ResNet-50 stage 2 3x3 conv, 28x28, im2col"),
    (S(196, 256, 2304), "ResNet-50 stage 3 3x3 conv, 14x14, im2col"),
    (S(49, 512, 4608), "ResNet-50 stage 4 3x3 conv, 7x7, im2col"),
    (S(3136, 256, 64), "ResNet-50 stage 1 1x1 expansion conv"),
    (S(784, 128, 512), "ResNet-50 stage 2 1x1 reduction conv"),
    (S(196, 1024, 256), "ResNet-50 stage 3 1x1 expansion conv"),
    (S(3136, 128, 64), "MobileNetV2 pointwise conv, 56x56"),
    (S(784, 256, 128), "MobileNetV2 pointwise conv, 28x28"),
    (S(196, 576, 96), "MobileNetV2 pointwise expansion, 14x14"),
]

T = dict(transpose_rhs=True)  # PyTorch-style Linear weights: N x K
# A second CPU set (`--problem-set cpu2`), for a second CPU arch: 8 shapes of the first set, so the two archs can
# be compared problem by problem, and 22 from models the first set does not cover.
CPU_SECOND_PROBLEMS: list[tuple[ContractionShape, str]] = [
    (S(128, 768, 768), "BERT-base attention output projection, seq 128"),
    (S(32, 2304, 768), "BERT-base fused QKV projection, seq 32"),
    (S(197, 1536, 384), "ViT-S/16 MLP up"),
    (S(1, 3072, 768), "BERT/GPT-2 size decode step, MLP up"),
    (S(128, 128, 64, batch=12), "BERT-base attention scores Q.K^T, seq 128"),
    (S(784, 256, 128), "MobileNetV2 pointwise conv, 28x28"),
    (S(1, 2048, 2048, in_type="f16", transpose_rhs=True), "TinyLlama decode step, attention projection"),
    (S(64, 3072, 768, in_type="bf16"), "BERT-base MLP up in bf16, seq 64"),
    # Llama-3.2-1B (hidden 2048, MLP 8192, 32 query heads and 8 key/value heads of 64)
    (S(16, 2048, 2048, **T), "Llama-3.2-1B query/output projection, prefill 16"),
    (S(64, 2048, 2048, **T), "Llama-3.2-1B query/output projection, prefill 64"),
    (S(64, 512, 2048, **T), "Llama-3.2-1B key/value projection, prefill 64"),
    (S(16, 8192, 2048, **T), "Llama-3.2-1B MLP gate/up, prefill 16"),
    (S(16, 2048, 8192, **T), "Llama-3.2-1B MLP down, prefill 16"),
    (S(4, 8192, 2048, **T), "Llama-3.2-1B MLP gate/up, decode of 4 sequences"),
    (S(32, 2048, 2048, in_type="bf16", transpose_rhs=True), "Llama-3.2-1B query projection in bf16, prefill 32"),
    (S(128, 128, 64, batch=32), "Llama-3.2-1B attention scores, prefill 128"),
    (S(128, 64, 128, batch=32), "Llama-3.2-1B attention context, prefill 128"),
    # Whisper-tiny encoder (d_model 384, MLP 1536, 1500 frames) and Whisper-base decoder (d_model 512, MLP 2048)
    (S(1500, 384, 384), "Whisper-tiny encoder attention projection"),
    (S(1500, 1536, 384), "Whisper-tiny encoder MLP up"),
    (S(1, 2048, 512, **T), "Whisper-base decoder step, MLP up"),
    (S(1, 512, 2048, **T), "Whisper-base decoder step, MLP down"),
    # ViT-B/16 (hidden 768, MLP 3072, 197 tokens, 12 heads of 64)
    (S(197, 2304, 768), "ViT-B/16 fused QKV projection"),
    (S(197, 768, 3072), "ViT-B/16 MLP down"),
    (S(197, 197, 64, batch=12), "ViT-B/16 attention scores"),
    # ResNet-18 and EfficientNet-B0 convolutions as im2col matmuls
    (S(12544, 64, 147), "ResNet-18 7x7 stem conv, 112x112, im2col"),
    (S(784, 128, 576), "ResNet-18 stage 2 strided 3x3 conv, 28x28, im2col"),
    (S(196, 256, 1152), "ResNet-18 stage 3 strided 3x3 conv, 14x14, im2col"),
    (S(49, 512, 2304), "ResNet-18 stage 4 strided 3x3 conv, 7x7, im2col"),
    (S(784, 40, 240), "EfficientNet-B0 pointwise projection, 28x28"),
    (S(3136, 144, 24), "EfficientNet-B0 pointwise expansion, 56x56"),
]

# A third CPU set (`--problem-set cpu3`), for a CPU no model was trained on: shapes of models no CPU dataset holds
# (Qwen2.5-0.5B, SmolLM-135M, ConvNeXt-T, GPT-2 medium), so that its records test rankers on a new machine and new
# shapes at once.
CPU_UNSEEN_PROBLEMS: list[tuple[ContractionShape, str]] = [
    (S(32, 896, 896, **T), "Qwen2.5-0.5B query/output projection, prefill 32"),
    (S(32, 4864, 896, **T), "Qwen2.5-0.5B MLP gate/up, prefill 32"),
    (S(32, 896, 4864, **T), "Qwen2.5-0.5B MLP down, prefill 32"),
    (S(128, 128, 64, batch=14), "Qwen2.5-0.5B attention scores (14 heads), prefill 128"),
    (S(64, 1536, 576, **T), "SmolLM-135M MLP gate/up, prefill 64"),
    (S(784, 768, 192), "ConvNeXt-T stage 2 MLP up, 28x28"),
    (S(784, 192, 768), "ConvNeXt-T stage 2 MLP down, 28x28"),
    (S(128, 4096, 1024), "GPT-2 medium MLP up, seq 128"),
]
# A fourth CPU set (`--problem-set cpu4`), measured densely (100 random tilings each, where the other sets hold 50-60):
# with about one candidate of 60 within 5 % of the best, a replay cannot tell a ranker 10x better than shuffle from
# one 4x better. Shapes of models no CPU dataset holds, none within 2x of a recorded CPU problem in every size (the
# honest split's neighbourhood), so that every model and forest meets them for the first time.
CPU_DENSE_PROBLEMS: list[tuple[ContractionShape, str]] = [
    (S(197, 768, 192), "DeiT-Tiny MLP up, 197 tokens"),
    (S(512, 512, 2048, **T), "T5-small feed-forward down, seq 512"),
    (S(384, 4096, 1024), "BERT-large feed-forward up, seq 384"),
    (S(6400, 128, 64), "a 1x1 convolution, 64 to 128 channels on an 80x80 map, as a matmul"),
]
# A fifth (`cpu5`, 2026-11-29), measured densely on znver4 to test the shipped CPU models on shapes none of them
# learned from: none within 2x in every role of a contraction of any CPU dataset then (of any element type).
CPU_DENSE_UNSEEN_PROBLEMS: list[tuple[ContractionShape, str]] = [
    (S(8, 50257, 768, **T), "GPT-2 LM head, decode of 8 sequences"),
    (S(12544, 96, 16), "MobileNet-V2 first expansion (16 to 96 channels at 112x112), as a matmul"),
    (S(64, 2048, 8192, **T), "Llama-3.2-1B MLP down, prefill 64"),
    (S(1024, 1024, 64, batch=8), "SD 1.5 attention scores, 8 heads at 32x32 latents"),
]
# A sixth (`cpu6`, 2026-11-29), tuned live on znver4 by the shipped models after they had learned from its records,
# then measured densely: none within 2x in every role of a contraction of any CPU dataset then (of any element type).
CPU_LIVE_UNSEEN_PROBLEMS: list[tuple[ContractionShape, str]] = [
    (S(25600, 32, 64), "YOLOv5s C3 1x1 conv, 64 to 32 channels at 160x160, as a matmul"),
    (S(12544, 32, 27), "EfficientNet-B0 stem 3x3 conv (3 to 32 channels, stride 2), im2col"),
    (S(4096, 512, 512), "SD VAE decoder 1x1 projection, 512 channels at 64x64"),
    (S(4, 4096, 14336, **T), "Llama-3-8B MLP down, decode of 4 sequences"),
    (S(49, 49, 32, batch=192), "Swin-T stage-1 window attention scores (64 windows x 3 heads)"),
    (S(4096, 77, 40, batch=8), "SD 1.5 cross-attention scores at 64x64 latents, 77 text tokens"),
]
CPU_PROBLEM_SETS = {
    "cpu": PROBLEMS,
    "cpu2": CPU_SECOND_PROBLEMS,
    "cpu3": CPU_UNSEEN_PROBLEMS,
    "cpu4": CPU_DENSE_PROBLEMS,
    "cpu5": CPU_DENSE_UNSEEN_PROBLEMS,
    "cpu6": CPU_LIVE_UNSEEN_PROBLEMS,
}

H = dict(in_type="f16", transpose_rhs=True)  # GPU layers: f16 activations, N x K weights, f32 accumulation
GPU_PROBLEMS: list[tuple[ContractionShape, str]] = [
    (S(4096, 4096, 4096, **H), "square f16 matmul"),
    (S(2048, 1280, 5120, **H), "SDXL UNet projection"),
    (S(2048, 10240, 1280, **H), "SDXL UNet GEGLU up"),
    (S(128, 1280, 2048, **H), "SDXL text-conditioning projection"),
    (S(1024, 4096, 4096, in_type="bf16", transpose_rhs=True), "bf16 projection, 1024 tokens"),
    (S(512, 12288, 4096, **H), "Llama-2-7B fused QKV, prefill 512"),
    (S(512, 4096, 4096, **H), "Llama-2-7B attention output, prefill 512"),
    (S(512, 11008, 4096, **H), "Llama-2-7B MLP up, prefill 512"),
    (S(512, 4096, 11008, **H), "Llama-2-7B MLP down, prefill 512"),
    (S(16, 4096, 4096, **H), "Llama-2-7B decode, 16 sequences, attention output"),
    (S(16, 11008, 4096, **H), "Llama-2-7B decode, 16 sequences, MLP up"),
    (S(64, 14336, 4096, **H), "Llama-3-8B MLP up, 64 tokens"),
    (S(16, 32000, 4096, **H), "Llama-2 LM head, decode of 16 sequences"),
    (S(512, 512, 128, batch=32, **H), "Llama-2-7B attention scores, prefill 512"),
    (S(512, 128, 512, batch=32, in_type="f16"), "Llama-2-7B attention context, prefill 512"),
    (S(1024, 1024, 64, batch=64, **H), "SD attention scores, 32x32 latents"),
    (S(8192, 1024, 1024, **H), "BERT-large attention output, 16 x 512 tokens"),
    (S(8192, 4096, 1024, **H), "BERT-large MLP up, 16 x 512 tokens"),
    (S(8192, 1024, 4096, **H), "BERT-large MLP down, 16 x 512 tokens"),
    (S(4096, 3072, 768, **H), "BERT-base MLP up, 8 x 512 tokens"),
    (S(4096, 768, 3072, **H), "BERT-base MLP down, 8 x 512 tokens"),
    (S(4096, 2304, 768, **H), "BERT-base fused QKV, 8 x 512 tokens"),
    (S(2048, 2048, 2048, in_type="bf16", transpose_rhs=True), "square bf16 matmul"),
    (S(1024, 1024, 1024, **H), "small square f16 matmul"),
    (S(4096, 640, 640, **H), "SD 1.5 UNet attention projection, 64x64 latents"),
    (S(4096, 2560, 640, **H), "SD 1.5 UNet GEGLU up, 64x64 latents"),
    (S(1024, 5120, 1280, **H), "SD 1.5 UNet GEGLU up, 32x32 latents"),
    (S(256, 5120, 1280, **H), "SDXL mid-block projection"),
]

# Larger LLM and diffusion layers, where the first 30 problems were thin (issue: rankings on shapes no model saw):
# the 70B-class and 4096-token prefill layers, SDXL's layers at CFG batch 2, and ViT-L at 32 images (197 tokens, a
# row count no tile divides). None is one of the unseen shapes `benchmarks/ranking/gpu_heuristic_unseen.py` times.
GPU_LARGE_PROBLEMS: list[tuple[ContractionShape, str]] = [
    (S(4096, 4096, 14336, **H), "Llama-3-8B MLP down, prefill 4096"),
    (S(4096, 6144, 4096, **H), "Llama-3-8B fused QKV (grouped KV heads), prefill 4096"),
    (S(2048, 28672, 8192, **H), "Llama-3-70B MLP gate and up, prefill 2048"),
    (S(1024, 8192, 8192, **H), "Llama-3-70B attention output, prefill 1024"),
    (S(8192, 5120, 640, **H), "SDXL GEGLU up, 64x64 latents, CFG batch 2"),
    (S(8192, 640, 2560, **H), "SDXL feed-forward down, 64x64 latents, CFG batch 2"),
    (S(2048, 1280, 1280, **H), "SDXL attention projection, 32x32 latents, CFG batch 2"),
    (S(6304, 4096, 1024, **H), "ViT-L/16 MLP up, 32 images of 197 tokens"),
]

# Single-token GEMVs of LLM decoding, which IREE lowers as reductions: mltune tunes them in its matvec space,
# and their runs and record files are named `mv_...`. (`datasets/sm_90/mm_1x4096x4096_f16f32_nt.jsonl` and
# `mm_1x11008x4096_f16f32_nt.jsonl` hold the same two problems measured in the MMA contraction space, before
# mltune read IREE's verdict.)
GPU_MATVEC_PROBLEMS: list[tuple[ContractionShape, str]] = [
    (S(1, 4096, 4096, **H), "Llama-2-7B decode step, attention output"),
    (S(1, 11008, 4096, **H), "Llama-2-7B decode step, MLP up"),
    (S(1, 4096, 11008, **H), "Llama-2-7B decode step, MLP down"),
    (S(1, 12288, 4096, **H), "Llama-2-7B decode step, fused QKV"),
    (S(1, 14336, 4096, **H), "Llama-3-8B decode step, MLP up"),
    (S(1, 32000, 4096, **H), "Llama-2 LM head, decode step"),
]


def measured(path: Path) -> int:
    """Candidates in a record file that were benchmarked (status ok)."""
    return sum(record.get("status") == "ok" for record in read_records(path)) if path.exists() else 0


NEIGHBOURHOOD = "default-neighbourhood"
NEIGHBOURHOOD_SHARE = 0.95  # of the picks near the incumbent; the rest in the solver's order
CONTENDERS = "contenders"  # the dataset's fastest configs of each problem, measured again


def runs(target: str, problem_set: str = "cpu") -> list[tuple[str, ContractionShape]]:
    """The (run name, shape) pairs a target measures; a run's name is its record file's."""
    if target == "host":
        return [(shape.name, shape) for shape, _ in CPU_PROBLEM_SETS[problem_set]]
    return [(shape.name, shape) for shape, _ in GPU_PROBLEMS + GPU_LARGE_PROBLEMS] + [
        ("mv_" + shape.name.removeprefix("mm_"), shape) for shape, _ in GPU_MATVEC_PROBLEMS
    ]


def record_files(name: str, args: argparse.Namespace) -> list[Path]:
    """A problem's record files: under `--arch`'s folder only when it is given (the same shape may have been
    measured on another arch), else under every arch's."""
    return sorted(f for suffix in RECORD_SUFFIXES for f in args.dataset_dir.glob(f"{args.arch or '*'}/{name}{suffix}"))


def finished(name: str, args: argparse.Namespace) -> bool:
    """Measured already: `--budget` candidates benchmarked, or a run that tried its whole (smaller) space."""
    counts = [measured(f) for f in record_files(name, args)]
    summary = args.work / name / "summary.json"
    return bool(counts) and (max(counts) >= args.budget or summary.exists())


def tune_command(source: Path, run_dir: Path, args: argparse.Namespace, cores: list[int] | None) -> list[str]:
    ranker = {NEIGHBOURHOOD: ["none", "--near-default", str(NEIGHBOURHOOD_SHARE)], CONTENDERS: ["none"]}.get(
        args.ranker, [args.ranker]
    )
    command = [
        sys.executable,
        "-m",
        "mltune.cli",
        "tune",
        str(source),
        "--ranker",
        *ranker,
        "--budget",
        str(args.budget),
        "--jobs",
        str(args.cores_per_lane),
        "--seed",
        str(args.seed),
        "--run-dir",
        str(run_dir),
        "--dataset-dir",
        str(args.dataset_dir),
        "-o",
        str(run_dir / "best_spec.mlir"),
        "--target",
        args.target,
    ]
    if args.devices:
        command += ["--devices", args.devices]
    command += [f"--iree-flag={flag}" for flag in args.iree_flags]
    if args.batch:
        command += ["--batch", str(args.batch)]
    if cores is not None and shutil.which("taskset"):
        command = ["taskset", "-c", ",".join(map(str, cores))] + command
    if args.lock is not None:
        command = ["flock", str(args.lock)] + command
    return command


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=150)
    parser.add_argument("--lanes", type=int, default=1)
    parser.add_argument("--cores-per-lane", type=int, default=2)
    parser.add_argument("--dataset-dir", type=Path, default=ROOT / "datasets")
    parser.add_argument("--work", type=Path, default=ROOT / "mltune-runs" / "collect")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--stop-after", type=float, default=None, metavar="SECONDS", help="start no new problem after this many seconds"
    )
    parser.add_argument("--only", nargs="*", default=None, help="problem names to measure")
    parser.add_argument("--target", default="host", help="host (the CPU problems) or a GPU target (the GPU problems)")
    parser.add_argument("--devices", default=None, help="runtime device of a GPU target, e.g. cuda://0")
    parser.add_argument(
        "--iree-flag",
        action="append",
        default=[],
        dest="iree_flags",
        metavar="FLAG",
        help="passed on to `mltune tune --iree-flag`, e.g. --iree-flag=--iree-cuda-use-ptxas",
    )
    parser.add_argument(
        "--batch",
        type=int,
        default=None,
        help="passed on to `mltune tune --batch`: a shuffle learns nothing between batches, so a "
        "batch of twice the cores keeps them busy and starts fewer runtime processes",
    )
    parser.add_argument(
        "--arch",
        default=None,
        help="the arch the records land under (the LLVM CPU name, e.g. znver3): only its folder says "
        "whether a problem is measured already (default: any arch's)",
    )
    parser.add_argument(
        "--problem-set",
        choices=sorted(CPU_PROBLEM_SETS),
        default="cpu",
        help="CPU targets: the first set of shapes, the second (8 of the first and 22 new ones), "
        "the third (8 shapes no CPU dataset holds, for a CPU no model was trained on) or the "
        "fourth (4 more such shapes, to measure densely), the fifth (4 shapes no CPU "
        "dataset neighboured, to measure densely) or the sixth (6 more such shapes)",
    )
    parser.add_argument(
        "--ranker",
        choices=["shuffle", "shuffle-lowerings", NEIGHBOURHOOD, CONTENDERS],
        default="shuffle",
        help="shuffle-lowerings measures every data-tiled candidate of a CPU problem first, then "
        f"random plain ones (with --run-suffix, beside an earlier shuffle's records); "
        f"{NEIGHBOURHOOD}, the candidates nearest IREE's default config, then nearest the "
        "fastest measured (a local search: --ranker none --near-default "
        f"{NEIGHBOURHOOD_SHARE}, CPU problems); {CONTENDERS}, the configs the dataset holds "
        "fastest (over IREE's default) first, as every tune seeds its order, and its best four "
        "measured again as finalists into PROBLEM.SUFFIX.finals.jsonl (--ranker none; with a "
        "budget no larger than the problem's fast configs)",
    )
    parser.add_argument(
        "--run-suffix",
        default="",
        help="appended to each run's name, and so to its record file's: a second collection of the "
        "same problems (e.g. .lowerings) keeps the first one's records and resumes on its own",
    )
    parser.add_argument(
        "--lock",
        type=Path,
        default=None,
        metavar="FILE",
        help="hold this flock(1) lock while measuring each problem, so that other measurements "
        "on the machine wait for it (and it for them)",
    )
    args = parser.parse_args()
    problems = runs(args.target, args.problem_set)
    todo: queue.Queue[tuple[str, ContractionShape]] = queue.Queue()
    for name, shape in problems:
        if args.only is None or name in args.only:
            todo.put((name, shape))
    started = time.monotonic()
    lock = threading.Lock()

    def lane(number: int) -> None:
        cores = (
            list(range(number * args.cores_per_lane, (number + 1) * args.cores_per_lane)) if args.lanes > 1 else None
        )
        while True:
            if args.stop_after is not None and time.monotonic() - started > args.stop_after:
                return
            try:
                name, shape = todo.get_nowait()
            except queue.Empty:
                return
            name += args.run_suffix
            run_dir = args.work / name
            if finished(name, args):
                continue
            for stale in record_files(name, args):
                stale.unlink()  # an interrupted problem is measured again from the start
            shutil.rmtree(run_dir, ignore_errors=True)
            run_dir.mkdir(parents=True)
            source = run_dir / "model.mlir"
            source.write_text(contraction_model(shape))
            t0 = time.monotonic()
            result = subprocess.run(tune_command(source, run_dir, args, cores), capture_output=True, text=True)
            (run_dir / "tune.log").write_text(result.stdout + result.stderr)
            with lock:
                status = "ok" if result.returncode == 0 else f"exit {result.returncode}: {result.stderr.strip()[-200:]}"
                print(f"[lane {number}] {name}: {status} ({time.monotonic() - t0:.0f} s)", flush=True)

    threads = [threading.Thread(target=lane, args=(n,)) for n in range(args.lanes)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    complete = sum(1 for name, _ in problems if finished(name + args.run_suffix, args))
    print(f"{complete}/{len(problems)} problems measured; {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
