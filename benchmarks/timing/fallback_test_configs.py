"""The configs `tests/test_fallback.py` uses as a slow first choice, a stand-in for IREE's default and a fallback,
each timed alone with plain `iree-benchmark-module`, interleaved over rounds: the end-to-end test needs the
fallback surely faster than the stand-in on any 2-core host, so the gaps between them are measured here.

    python benchmarks/timing/fallback_test_configs.py [--rounds 5] [--work /tmp/fallback_configs]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mltune.emit.apply import SpecApplier  # noqa: E402
from mltune.execution.build import Builder  # noqa: E402
from mltune.frontend.mlir import new_context  # noqa: E402
from mltune.frontend.one_op_model import ContractionShape, contraction_model  # noqa: E402
from mltune.input.tuning_input import prepare_input  # noqa: E402
from mltune.spaces.cpu_contraction import CpuContraction  # noqa: E402
from mltune.system.tools import tool_path  # noqa: E402
from mltune.targets import CpuTarget  # noqa: E402
from mltune.input.dispatches import read_dispatches  # noqa: E402

ONE_WORKGROUP = {"wg_m": 64, "wg_n": 1024, "vec_k": 1}
CONFIGS = {  # the test's, and the 4x8 stand-in it used before
    "NARROW (first choice)": {**ONE_WORKGROUP, "vec_m": 1, "vec_n": 4},
    "4x4, one workgroup (stand-in)": {**ONE_WORKGROUP, "vec_m": 4, "vec_n": 4},
    "4x8, one workgroup (earlier stand-in)": {**ONE_WORKGROUP, "vec_m": 4, "vec_n": 8},
    "GOOD (fallback)": {"wg_m": 8, "wg_n": 256, "vec_m": 4, "vec_n": 16, "vec_k": 1},
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--work", type=Path, default=Path("/tmp/fallback_configs"))
    args = parser.parse_args()
    context = new_context()
    args.work.mkdir(parents=True, exist_ok=True)
    source = args.work / "matmul.mlir"
    source.write_text(contraction_model(ContractionShape(64, 1024, 512)))
    tuning_input = prepare_input(source, CpuTarget(), args.work / "run", context)
    (dispatch,) = read_dispatches(tuning_input, context)
    space, applier = CpuContraction(dispatch.problem, dispatch.facts, context), SpecApplier(context)
    builder = Builder(tuning_input, args.work / "builds", jobs=2)
    modules = {}
    for index, (name, knobs) in enumerate(CONFIGS.items()):
        build = builder.compile(index, applier.apply(dispatch.problem, space.compilation_info(knobs)), f"c{index}")
        if build.status != "ok":
            print(f"{name}: {build.detail}", file=sys.stderr)
            return 1
        modules[name] = build.vmfb
    inputs = [f"--input=@{file.path}" for file in tuning_input.invocation.inputs]
    times: dict[str, list[float]] = {name: [] for name in modules}
    for _ in range(args.rounds):
        for name, vmfb in modules.items():
            out = subprocess.run(
                [
                    tool_path("iree-benchmark-module"),
                    f"--module={vmfb}",
                    "--device=local-task",
                    f"--function={tuning_input.invocation.function}",
                    "--benchmark_min_time=0.3s",
                    *inputs,
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            times[name].append(float(re.search(r"BM_\S+\s+([\d.]+) ms", out).group(1)))
    print(f"| config | ms per call, median (min-max) over {args.rounds} rounds |\n| --- | --- |")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
