"""Compile fraction of GPU spaces: do the candidates mltune generates compile?

For each target and each realistic dispatch (f16 matmuls with a transposed or plain RHS, batch
matmuls, bf16, i8 and (ROCm) f8 matmuls, 3x3 NHWC convolutions, attention and matvecs), it dumps the
dispatches with mltune, enumerates the space (timed), draws a seeded random sample of each
pipeline's candidates (TileAndFuse, VectorDistribute), applies each one as mltune would (a spec on
ROCm, a root-op annotation on CUDA) and compiles it with the real iree-compile (as `mltune tune --compile-only`
does: the dumped executable where that applies, `mltune.tuning.compile_only.dispatch_builder`). Prints one row per
(target, dispatch, pipeline): candidates of that pipeline, generation time of the whole space,
compiled/sampled. Ops mltune cannot tune yet are listed with the reason.

    python benchmarks/gpu/gpu_compile_fraction.py [--targets mi300x,sm_80,sm_90] [--samples 40 (per pipeline)] [--jobs 2]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the model sources the test suite uses

from iree_helpers import attention_source, batch_matmul_source, conv2d_nhwc_source, matmul_source  # noqa: E402

from mltune.emit.apply import make_applier  # noqa: E402
from mltune.execution.build import Builder  # noqa: E402
from mltune.frontend.mlir import new_context  # noqa: E402
from mltune.frontend.problem import Problem, Untunable  # noqa: E402
from mltune.input.tuning_input import prepare_input  # noqa: E402
from mltune.spaces.gpu_contraction import PIPELINE as GPU_PIPELINE  # noqa: E402
from mltune.spaces.vector_distribute import PIPELINE as VECTOR_DISTRIBUTE  # noqa: E402
from mltune.targets import parse_target  # noqa: E402
from mltune.tuning.compile_only import compile_indices, dispatch_builder  # noqa: E402
from mltune.input.dispatches import read_dispatches  # noqa: E402
from mltune.tuning.prepare import configurators  # noqa: E402


def matmul(m: int, n: int, k: int, in_type: str = "f16", out_type: str = "f32", transpose_rhs: bool = True) -> str:
    return matmul_source(m, k, n, in_type, out_type, transpose_rhs)


def f8_matmul(m: int, n: int, k: int) -> str:
    """An f8E4M3FNUZ x f8E4M3FNUZ -> f32 matmul (RHS N x K) fed by f16 arguments truncated to f8 (random inputs
    are written as numpy arrays, and numpy has no f8)."""
    lhs, rhs, out = f"tensor<{m}x{k}xf8E4M3FNUZ>", f"tensor<{n}x{k}xf8E4M3FNUZ>", f"tensor<{m}x{n}xf32>"
    truncate = """  %{name}8 = arith.truncf %{name} : tensor<{rows}x{k}xf16> to tensor<{rows}x{k}xf8E4M3FNUZ>"""
    return f"""func.func @main(%a: tensor<{m}x{k}xf16>, %b: tensor<{n}x{k}xf16>) -> {out} {{
{truncate.format(name="a", rows=m, k=k)}
{truncate.format(name="b", rows=n, k=k)}
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : {out}
  %acc = linalg.fill ins(%zero : f32) outs(%empty : {out}) -> {out}
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a8, %b8 : {lhs}, {rhs}) outs(%acc : {out}) -> {out}
  return %r : {out}
}}
"""


CONV = conv2d_nhwc_source(2, 34, 34, 320, 320)


def attention(batch: int, seq: int, head: int, kv_seq: int | None = None) -> str:
    return attention_source(batch, seq, head, kv_seq or seq, head, "f16")


DISPATCHES = {
    "mm_nt_2048x1280x5120_f16": matmul(2048, 1280, 5120),
    "mm_nt_2048x10240x1280_f16": matmul(2048, 10240, 1280),
    "mm_nt_4096x4096x4096_f16": matmul(4096, 4096, 4096),
    "mm_nt_128x1280x2048_f16": matmul(128, 1280, 2048),
    "mm_nn_1000x1000x1000_f16": matmul(1000, 1000, 1000, transpose_rhs=False),
    "bmm_64x512x512x64_f16": batch_matmul_source(64, 512, 64, 512, "f16", "f32"),
    "mm_nt_1024x4096x4096_bf16": matmul(1024, 4096, 4096, "bf16"),
    "mm_nt_1024x1024x2048_i8": matmul(1024, 1024, 2048, "i8", "i32"),
    "mm_nt_1024x1024x2048_f8": f8_matmul(1024, 1024, 2048),
    "mm_nn_2048x2048x1024_f16": matmul(2048, 2048, 1024, transpose_rhs=False),
    "bmm_32x1024x1024x128_f16": batch_matmul_source(32, 1024, 128, 1024, "f16", "f32"),
    "conv3x3_nhwc_2x32x32x320_f16": CONV,
    "conv3x3_nhwc_2x64x64x128x256_f16": conv2d_nhwc_source(2, 66, 66, 128, 256),
    "conv3x3_nhwc_16x16x16x256_bf16": conv2d_nhwc_source(16, 18, 18, 256, 256, in_type="bf16"),
    "attention_20x4096x64_f16": attention(20, 4096, 64),
    "attention_16x2048x128_f16": attention(16, 2048, 128),
    "attention_4x4096x128_kv1024_f16": attention(4, 4096, 128, 1024),
    "matvec_1x4096x4096_f16": matmul(1, 4096, 4096),
    "matvec_1x11008x4096_f16": matmul(1, 11008, 4096),
    "matvec_1x4096x11008_bf16": matmul(1, 4096, 11008, "bf16"),
    "matvec_4x4096x4096_f16": matmul(4, 4096, 4096),
    "matvec_nn_1x2048x2048_f16": matmul(1, 2048, 2048, transpose_rhs=False),
    "bmv_32x1x4096x128_f16": batch_matmul_source(32, 1, 128, 4096, "f16", "f32"),
}
ROCM_ONLY = {"mm_nt_1024x1024x2048_f8"}  # FNUZ f8 is AMD's; NVIDIA's f8 intrinsics take E4M3FN/E5M2


PIPELINES = (GPU_PIPELINE, VECTOR_DISTRIBUTE)


@dataclass(frozen=True)
class Row:
    target: str
    dispatch: str
    pipeline: str  # "VectorDistribute attention" for attention
    candidates: int  # of this pipeline
    generation: float  # seconds to enumerate the whole space
    ok: int
    tried: int


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="mi300x,sm_80,sm_90")
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default="", help="comma-separated dispatch names (default: all)")
    parser.add_argument(
        "--work", type=Path, default=ROOT / "mltune-runs" / f"gpu-compile-{time.strftime('%Y%m%d-%H%M%S')}"
    )
    args = parser.parse_args()
    context = new_context()
    names = [n for n in DISPATCHES if not args.only or n in args.only.split(",")]
    rows, skipped, failures = [], [], collections.Counter()
    for target_name in args.targets.split(","):
        target = parse_target(target_name)
        for name in [n for n in names if target.kind == "rocm" or n not in ROCM_ONLY]:
            work = args.work / target_name / name
            work.mkdir(parents=True, exist_ok=True)
            source = work / f"{name}.mlir"
            source.write_text(DISPATCHES[name])
            tuning_input = prepare_input(source, target, work, context)
            dispatches = read_dispatches(tuning_input, context)
            skipped += [(target_name, name, d.problem.reason) for d in dispatches if isinstance(d.problem, Untunable)]
            tunable = [d for d in dispatches if isinstance(d.problem, Problem)]
            applier = make_applier(target.kind, tuning_input.source, context)
            builder = Builder(tuning_input, work / "candidates", args.jobs)
            for dispatch, configurator in configurators(tunable, context, work / "spaces"):
                if isinstance(configurator, Untunable):
                    skipped.append((target_name, name, configurator.reason))
                    continue
                started = time.perf_counter()
                candidates = configurator.candidates()
                generation = time.perf_counter() - started
                pipelines = np.array([configurator.pipeline_of(candidates.knobs(i)) for i in range(len(candidates))])
                for pipeline in PIPELINES:
                    pool = np.flatnonzero(pipelines == pipeline)
                    if not len(pool):
                        continue
                    # attention, convolutions and matvecs have spaces of their own: their rows and totals are apart
                    kind = {"attention": " attention", "convolution": " conv", "matvec": " matvec"}.get(
                        dispatch.problem.op_kind, ""
                    )
                    label = pipeline + kind
                    sample = np.random.default_rng(0).choice(pool, size=min(args.samples, len(pool)), replace=False)
                    started = time.perf_counter()
                    fast = dispatch_builder(
                        builder, dispatch, target.kind, (), work / "stripped"
                    )  # as compile-only does
                    builds = compile_indices(
                        dispatch.problem, configurator, candidates, applier, fast, [int(i) for i in sample]
                    )
                    ok = sum(b.status == "ok" for b in builds)
                    failures.update(b.detail[:160] for b in builds if b.status != "ok")
                    rows.append(Row(target_name, name, label, len(pool), generation, ok, len(builds)))
                    print(
                        f"{target_name:<8} {name:<30} {label:<26} {len(pool):>8} {generation:7.2f} s {ok:>4}/"
                        f"{len(builds):<4} {100 * ok / len(builds):6.1f} %  ({time.perf_counter() - started:.0f} s "
                        f"compiling)",
                        flush=True,
                    )
    print("\n| target | dispatch | pipeline | candidates | generation (s) | compiled / sampled | fraction |")
    print("|---|---|---|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r.target} | {r.dispatch} | {r.pipeline} | {r.candidates} | {r.generation:.2f} | {r.ok}/{r.tried} | "
            f"{100 * r.ok / r.tried:.1f} % |"
        )
    for target_name, pipeline in dict.fromkeys((r.target, r.pipeline) for r in rows):
        ok = sum(r.ok for r in rows if (r.target, r.pipeline) == (target_name, pipeline))
        tried = sum(r.tried for r in rows if (r.target, r.pipeline) == (target_name, pipeline))
        print(f"| {target_name} | all | {pipeline} | | | {ok}/{tried} | {100 * ok / tried:.1f} % |")
    for target_name, name, reason in skipped:
        print(f"not tuned: {target_name} {name}: {reason}")
    for detail, count in failures.most_common(10):
        print(f"failure x{count}: {detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
