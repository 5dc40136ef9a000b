"""Compile fraction of GPU spaces: do the candidates mltune generates compile?

For each target and each realistic dispatch (f16 matmuls with a transposed RHS, a batch
matmul, bf16 and i8 matmuls, a 3x3 NHWC convolution and an attention), it dumps the
dispatches with mltune, enumerates the space (timed), draws a seeded random sample of
candidates, applies each one as mltune would (a spec on ROCm, a root-op annotation on CUDA)
and compiles it with the real iree-compile. Prints one row per (target, dispatch): space size,
generation time, compiled/sampled. Ops mltune cannot tune yet are listed with the reason.

    python benchmarks/gpu_compile_fraction.py [--targets mi300x,sm_80,sm_90] [--samples 40] [--jobs 2]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the model sources the test suite uses

from iree_helpers import attention_source, batch_matmul_source, conv2d_nhwc_source, matmul_source  # noqa: E402

from mltune.compile_only import compile_indices  # noqa: E402
from mltune.inputs import prepare_input  # noqa: E402
from mltune.mlir import new_context  # noqa: E402
from mltune.problem import Problem, Untunable  # noqa: E402
from mltune.search.apply import make_applier  # noqa: E402
from mltune.search.build import Builder  # noqa: E402
from mltune.targets import parse_target  # noqa: E402
from mltune.tune import configurators, read_dispatches  # noqa: E402


def matmul(m: int, n: int, k: int, in_type: str = "f16", out_type: str = "f32", transpose_rhs: bool = True) -> str:
    return matmul_source(m, k, n, in_type, out_type, transpose_rhs)


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
    "conv3x3_nhwc_2x32x32x320_f16": CONV,
    "attention_20x4096x64_f16": attention(20, 4096, 64),
    "attention_16x2048x128_f16": attention(16, 2048, 128),
    "attention_4x4096x128_kv1024_f16": attention(4, 4096, 128, 1024),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="mi300x,sm_80,sm_90")
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default="", help="comma-separated dispatch names (default: all)")
    parser.add_argument("--work", type=Path, default=ROOT / "mltune-runs" / f"gpu-compile-{time.strftime('%Y%m%d-%H%M%S')}")
    args = parser.parse_args()
    context = new_context()
    names = [n for n in DISPATCHES if not args.only or n in args.only.split(",")]
    rows, skipped, failures = [], [], collections.Counter()
    for target_name in args.targets.split(","):
        target = parse_target(target_name)
        for name in names:
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
                rng = np.random.default_rng(0)
                sample = rng.choice(len(candidates), size=min(args.samples, len(candidates)), replace=False)
                started = time.perf_counter()
                builds = compile_indices(dispatch.problem, configurator, candidates, applier, builder,
                                         [int(i) for i in sample])
                ok = sum(b.status == "ok" for b in builds)
                failures.update(b.detail[:160] for b in builds if b.status != "ok")
                rows.append((target_name, name, len(candidates), generation, ok, len(builds), time.perf_counter() - started))
                print(f"{target_name:<8} {name:<30} {rows[-1][2]:>8} {generation:7.2f} s {ok:>4}/{len(builds):<4}"
                      f" {100 * ok / len(builds):6.1f} %  ({rows[-1][6]:.0f} s compiling)", flush=True)
    print(f"\n| target | dispatch | candidates | generation (s) | compiled / sampled | fraction |")
    print("|---|---|---:|---:|---:|---:|")
    for target_name, name, size, generation, ok, tried, _ in rows:
        print(f"| {target_name} | {name} | {size} | {generation:.2f} | {ok}/{tried} | {100 * ok / tried:.1f} % |")
    for target_name in dict.fromkeys(r[0] for r in rows):
        ok = sum(r[4] for r in rows if r[0] == target_name)
        tried = sum(r[5] for r in rows if r[0] == target_name)
        print(f"| {target_name} | all | | | {ok}/{tried} | {100 * ok / tried:.1f} % |")
    for target_name, name, reason in skipped:
        print(f"not tuned: {target_name} {name}: {reason}")
    for detail, count in failures.most_common(10):
        print(f"failure x{count}: {detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
