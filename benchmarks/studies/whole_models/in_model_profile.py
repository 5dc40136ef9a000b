"""Where a model spends its time, two ways: each dumped dispatch benchmark timed alone (what `mltune tune` used to
do on llvm-cpu) against each dispatch timed inside runs of the model (`mltune.whole_model.in_model`, what it does now).

Per model: the wall time of each way, the sum of the profiled dispatches against the model's own time per call,
and per dispatch its share each way and the ratio of its time per call on the dump to its time in the model. Run
in the model's folder, as a user runs `mltune tune` (the model's flags file names its inputs):

    cd /work/exports && flock -x /tmp/mltune-cpu.lock python .../benchmarks/studies/whole_models/in_model_profile.py \
        resnet50 bert [--work /tmp/in-model-profile]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from mltune.execution.build import Builder
from mltune.frontend.mlir import new_context
from mltune.frontend.problem import Problem
from mltune.input.call import model_call
from mltune.input.tuning_input import prepare_input
from mltune.whole_model.in_model import profile_in_model
from mltune.whole_model.profile import call_counts, profile_model, rank_in_model
from mltune.system.tools import run_tool, tool_path
from mltune.targets import CpuTarget
from mltune.input.dispatches import read_dispatches

DEVICE = "local-task"


def model_call_us(vmfb: Path, flags: Path) -> float:
    """The model's own time per call, IREE default: iree-benchmark-module's median of 5 repetitions."""
    ran = run_tool(
        [
            tool_path("iree-benchmark-module"),
            f"--module={vmfb}",
            f"--device={DEVICE}",
            f"--flagfile={flags}",
            "--benchmark_repetitions=5",
            "--benchmark_format=json",
        ],
        timeout_s=1200,
    )
    rows = [b for b in json.loads(ran.stdout)["benchmarks"] if b.get("aggregate_name") == "median"]
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    return rows[0]["real_time"] * scale[rows[0]["time_unit"]]


def one_model(stem: Path, work: Path) -> list[str]:
    context = new_context()
    call = model_call((), (), None, None, None, stem.with_suffix(".flags"))
    tuning_input = prepare_input(
        stem.with_suffix(".mlir"), CpuTarget(), work, context, call.function, given=call.inputs
    )
    default = Builder(tuning_input, work / "candidates", 2).compile(-1, None, "baseline")
    named = [
        (d.name, d.bench, d.problem.op_name, d.problem if isinstance(d.problem, Problem) else None)
        for d in read_dispatches(tuning_input, context)
    ]
    started = time.perf_counter()
    dumps = profile_model(
        named, call_counts(tuning_input.source, tuning_input.compile_flags, work), (DEVICE,), work / "dumps", 2
    )
    dump_s, started = time.perf_counter() - started, time.perf_counter()
    in_model = rank_in_model(named, profile_in_model(default.vmfb, tuning_input.invocation, DEVICE, work / "model"))
    model_s = time.perf_counter() - started
    (work / "flags.txt").write_text(
        "".join(
            f"{flag}\n"
            for flag in [
                f"--function={tuning_input.invocation.function}",
                *(p.flag for p in tuning_input.invocation.parameters),
                *(f.flag for f in tuning_input.invocation.inputs),
            ]
        )
    )
    own_us = model_call_us(default.vmfb, work / "flags.txt")
    profiled_us = sum(p.total_us for p in in_model)
    lines = [
        f"## {stem.name}: {len(named)} dispatches with a root op; dumps timed in {dump_s:.1f} s, the model "
        f"profiled in {model_s:.1f} s; those dispatches took {profiled_us:.0f} us of a profiled call, the model "
        f"{own_us:.0f} us a call (iree-benchmark-module, median of 5)",
        "| dispatch | problem | calls | share, dumps | share, in the model | time per call, dump / model |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    by_name = {p.name: p for p in dumps}
    for profile in in_model:
        dump = by_name[profile.name]
        ratio = f"{dump.time_us / profile.time_us:.2f}" if dump.timed else f"not timed ({dump.untimed[:40]})"
        lines.append(
            f"| {profile.name.split('_embedded')[0]} | {profile.problem_key or 'not tunable'} | "
            f"{profile.calls} | {100 * dump.share:.1f} % | {100 * profile.share:.1f} % | {ratio} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", type=Path, help="NAME: NAME.mlir and NAME.flags in this folder")
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="in-model-profile-"))
    for stem in args.models:
        print("\n".join(one_model(stem.resolve(), work / stem.name)), "", sep="\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
