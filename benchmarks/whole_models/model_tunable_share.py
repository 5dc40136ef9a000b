"""The share of a model's llvm-cpu time in dispatches mltune can tune, by op kind, from mltune's own profile.

The model (any input `iree-compile` reads: torch, linalg) is compiled for this CPU with its dispatches dumped;
each dispatch's root op is read as mltune reads it and given a space (`make_configurator`) or a reason; the
profile (`mltune.model.profile`: every dumped dispatch compiled as IREE configures it, timed with
`iree-benchmark-module`, times the calls the model's flow IR makes) weighs them. Prints one line per op kind and
per reason, then every dispatch, and the tunable share with and without the convolution kinds. Compiling holds `--lock` shared,
timing the dispatches holds it exclusively.

    python benchmarks/whole_models/model_tunable_share.py MODEL.mlir [--lock /tmp/mltune-cpu.lock] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from measure_lock import held
from whole_models.tune_examples import CPU_FLAGS

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from iree.compiler import ir  # noqa: E402
from iree.compiler.dialects import iree_codegen  # noqa: E402

from mltune.frontend.mlir import parse_module_file  # noqa: E402
from mltune.frontend.problem import Problem, Untunable, read_root_ops  # noqa: E402
from mltune.model.profile import call_counts, compile_dispatches, rank_dispatches  # noqa: E402
from mltune.spaces.configure import make_configurator  # noqa: E402
from mltune.targets import facts_from_executable_target  # noqa: E402

CONVOLUTION_KINDS = ("convolution", "depthwise_convolution")


def classify(bench: Path, context: ir.Context, work: Path) -> tuple[str, Problem | None, str]:
    """(root op name, problem if tunable, op kind or the reason it is not tunable) of one dumped dispatch."""
    module = parse_module_file(bench, context)
    with context:
        variants = iree_codegen.get_executable_variant_ops(module)
        roots = read_root_ops(module) if variants else []
        facts = facts_from_executable_target(variants[0].attributes["target"]) if variants else None
    if not roots:
        return "(none)", None, "no root op"
    root = next((r for r in roots if isinstance(r, Problem)), roots[0])
    if not isinstance(root, Problem):
        return root.op_name, None, f"not tunable: {root.reason}"
    configurator = make_configurator(root, facts, context, bench, work)
    if isinstance(configurator, Untunable):
        return root.op_name, None, f"not tunable: {configurator.reason}"
    return root.op_name, root, root.op_kind


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--lock", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--work", type=Path, default=None, help="keep the dumped dispatches here (default: a temporary folder)")
    args = parser.parse_args()
    print("load average before: %.2f %.2f %.2f" % os.getloadavg())
    context = ir.Context()
    with tempfile.TemporaryDirectory(prefix="mltune-share-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        with held(args.lock, shared=True):
            dump = f"--iree-hal-dump-executable-benchmarks-to={work / 'dump'}"
            subprocess.run(["iree-compile", str(args.model), *CPU_FLAGS, "--iree-codegen-add-tuner-attributes", dump,
                            "-o", str(work / "model.vmfb")], check=True, capture_output=True)
            counts = call_counts(args.model, CPU_FLAGS, work)
            benches = sorted((work / "dump").glob("*_benchmark.mlir"))
            named, kinds = [], {}
            for bench in benches:
                name = bench.stem.removeprefix("module_").removesuffix("_benchmark")
                op, problem, kind = classify(bench, context, work / "spaces")
                named.append((name, bench, op, problem))
                kinds[name] = kind
            built = compile_dispatches(named, work / "profile", args.jobs)
        with held(args.lock):
            profiles = rank_dispatches(named, built, counts, "local-task")
    share: dict[str, float] = defaultdict(float)
    dispatches: dict[str, int] = defaultdict(int)
    for profile in profiles:
        share[kinds[profile.name]] += profile.share
        dispatches[kinds[profile.name]] += 1
    print(f"{len(profiles)} dispatches, {sum(p.calls for p in profiles)} calls")
    print("| root op kind or reason | dispatches | share of the model's time |\n| --- | --- | --- |")
    for kind in sorted(share, key=lambda k: -share[k]):
        print(f"| {kind} | {dispatches[kind]} | {100 * share[kind]:.1f} % |")
    print("| dispatch | root op | kind or reason | time us x calls | share |\n| --- | --- | --- | --- | --- |")
    for profile in profiles:
        print(f"| {profile.name} | {profile.op} | {kinds[profile.name]} | {profile.time_us:.1f} x {profile.calls} "
              f"| {100 * profile.share:.1f} % |")
    tunable = sum(v for k, v in share.items() if not k.startswith(("not tunable", "no root")))
    convolutions = sum(share[k] for k in CONVOLUTION_KINDS)
    print(f"tunable: {100 * tunable:.1f} % (without the convolution kinds: {100 * (tunable - convolutions):.1f} %)")
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
