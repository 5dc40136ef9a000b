"""Do GPU attention candidates fit in shared memory (CUDA) or LDS (ROCm)? Compile-only, no GPU needed.

For each attention shape (f16, sm_90 by default) the space is enumerated as `mltune tune` does, and two sets of
candidates are compiled with the real `iree-compile` (`mltune.tuning.compile_only.compile_indices`, as `mltune tune
--compile-only`): the heuristic's first `--first` candidates, a seeded random sample of `--samples`, and every
candidate of the space whose estimated workgroup memory exceeds the target's (none, once the space's rule holds;
a sample of `--samples` of them where there are more).
It prints, per shape, how many compiled, and the failures' first lines.

`--allocation` compiles the same candidates only to IREE's executable targets and reads the workgroup memory IREE
allocated (CUDA: `workgroup_local_memory` of the export; ROCm: the sum of the shared-memory globals; or the bytes
of a "uses N bytes of shared memory" error) beside the space's own estimate
(`mltune.spaces.gpu_attention.GpuAttention.shared_memory_bytes`): the rule is checked against the compiler's
lowering, candidate by candidate.

`--without-rule` enumerates the space as it was before the space had its shared-memory rule (the rule replaced by
true, nothing else changed), so that the same sampling gives the compile fraction before the rule.

    python benchmarks/gpu/cuda_attention_shared_memory.py [--target sm_90] [--samples 20] [--first 8] [--jobs 2]
        [--only NAME,...] [--allocation] [--without-rule]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import z3

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the model sources the test suite uses

from iree_helpers import attention_source  # noqa: E402

from mltune.emit.apply import make_applier  # noqa: E402
from mltune.execution.build import Builder  # noqa: E402
from mltune.frontend.mlir import new_context  # noqa: E402
from mltune.frontend.problem import Problem  # noqa: E402
from mltune.input.tuning_input import prepare_input  # noqa: E402
from mltune.rankers.base import RankingInput  # noqa: E402
from mltune.rankers.heuristic import Heuristic  # noqa: E402
from mltune.spaces.gpu_attention import GpuAttention  # noqa: E402
from mltune.targets import parse_target  # noqa: E402
from mltune.tuning.compile_only import compile_indices  # noqa: E402
from mltune.input.dispatches import read_dispatches  # noqa: E402
from mltune.tuning.prepare import configurators  # noqa: E402

# name: (batch x heads, query length, head dim, key/value length, value head dim)
SHAPES = {
    "attention_20x4096x64_f16": (20, 4096, 64, 4096, 64),  # SDXL self-attention
    "attention_16x2048x128_f16": (16, 2048, 128, 2048, 128),  # Llama prefill
    "attention_32x4096x128_f16": (32, 4096, 128, 4096, 128),  # long prefill
    "attention_4x4096x128_kv1024_f16": (4, 4096, 128, 1024, 128),
    "attention_8x8192x128_f16": (8, 8192, 128, 8192, 128),  # long sequence
    "attention_16x1024x256_f16": (16, 1024, 256, 1024, 256),  # a large head dim
}
LOCAL_MEMORY = re.compile(r"workgroup_local_memory = (\d+)")
SHARED_GLOBAL = re.compile(
    r"llvm\.mlir\.global private @__shared_memory_\w*\(\) \{addr_space = 3[^}]*\} : "
    r"(!llvm\.array<.*)"
)
USES = re.compile(r"uses (\d+) bytes of shared memory|Got (\d+) bytes")
TYPE_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i8": 1, "i32": 4}


def global_bytes(llvm_type: str) -> int:
    """Bytes of a nested `!llvm.array<A x array<B x f16>>` type."""
    sizes = [int(x) for x in re.findall(r"array<(\d+) x", llvm_type)]
    element = re.search(r"x (f16|bf16|f32|i8|i32)>", llvm_type)
    return int(np.prod(sizes)) * (TYPE_BYTES[element.group(1)] if element else 1)


def allocated(builds) -> list[str]:
    """Per build, the workgroup memory IREE allocated (from the executable-target IR, or its error)."""
    found = []
    for build in builds:
        if build.status == "ok":
            text = build.vmfb.read_text()
            match = LOCAL_MEMORY.search(text)
            found.append(match.group(1) if match else str(sum(global_bytes(t) for t in SHARED_GLOBAL.findall(text))))
        else:
            match = USES.search(build.detail)
            found.append(f"{match.group(1) or match.group(2)} (refused)" if match else build.status)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="sm_90")
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--first", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default="")
    parser.add_argument("--allocation", action="store_true")
    parser.add_argument("--without-rule", action="store_true", help="the space without its shared-memory rule")
    parser.add_argument(
        "--work", type=Path, default=ROOT / "mltune-runs" / f"attention-smem-{time.strftime('%Y%m%d-%H%M%S')}"
    )
    args = parser.parse_args()
    if args.without_rule:
        GpuAttention.shared_memory_rule = lambda self, space: z3.BoolVal(True)
    context = new_context()
    target = parse_target(args.target)
    totals = {"first": [0, 0], "sample": [0, 0], "over": [0, 0]}
    for name, (batch, m, k1, k2, n) in SHAPES.items():
        if args.only and name not in args.only.split(","):
            continue
        work = args.work / name
        work.mkdir(parents=True, exist_ok=True)
        source = work / f"{name}.mlir"
        source.write_text(attention_source(batch, m, k1, k2, n, "f16"))
        tuning_input = prepare_input(source, target, work, context)
        if args.allocation:
            tuning_input = replace(
                tuning_input, compile_flags=(*tuning_input.compile_flags, "--compile-to=executable-targets")
            )
        dispatches = [
            d
            for d in read_dispatches(tuning_input, context)
            if isinstance(d.problem, Problem) and d.problem.op_kind == "attention"
        ]
        applier = make_applier(target.kind, tuning_input.source, context)
        builder = Builder(tuning_input, work / "candidates", args.jobs)
        for dispatch, configurator in configurators(dispatches, context, work / "spaces"):
            candidates = configurator.candidates()
            first = Heuristic(0).order(RankingInput(dispatch.problem, dispatch.facts, candidates))[: args.first]
            rng = np.random.default_rng(0)
            sample = rng.choice(len(candidates), size=min(args.samples, len(candidates)), replace=False)
            estimate = configurator.shared_memory_bytes(candidates)
            over = np.flatnonzero(estimate > dispatch.facts.shared_memory_bytes)
            if len(over) > args.samples:  # without the rule there can be thousands: a sample of them
                over = rng.choice(over, size=args.samples, replace=False)
            for label, indices in (("first", first), ("sample", sample), ("over", over)):
                if not len(indices):
                    print(f"{name:<34} {len(candidates):>6} candidates  {label:<6}   0 in the space")
                    continue
                builds = compile_indices(
                    dispatch.problem, configurator, candidates, applier, builder, [int(i) for i in indices], label
                )
                ok = sum(b.status == "ok" for b in builds)
                totals[label][0] += ok
                totals[label][1] += len(builds)
                print(
                    f"{name:<34} {len(candidates):>6} candidates  {label:<6} {ok:>3}/{len(builds):<3} compiled",
                    flush=True,
                )
                if args.allocation:
                    for build, memory in zip(builds, allocated(builds)):
                        knobs = candidates.knobs(build.index)
                        tiles = " ".join(
                            f"{k}={knobs[k]}"
                            for k in ("qk_mma", "pv_mma", "m_tile", "n_tile", "red_k2", "sg_m", "sg_n")
                        )
                        print(f"    {tiles:<62} allocated {memory:>18}  estimate {estimate[build.index]}")
                for build in builds:
                    if build.status != "ok":
                        print(f"    failed {candidates.knobs(build.index)}: {build.detail[:200]}")
    for label, (ok, tried) in totals.items():
        if tried:
            print(f"all shapes, {label}: {ok}/{tried} compiled ({100 * ok / tried:.1f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
