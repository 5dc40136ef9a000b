"""What moves a speed ratio on a busy machine, and which estimator resists it.

For each example pair (IREE's default build against itself, A/A, and against a tuned build, A/B),
and for each kind of background load this script starts itself, the timing worker records every
call of an interleaved (B C C B ...) run in rounds (`mltune.execution.timing_worker`, raw mode). The
raw calls are saved, then every estimator is computed from the same calls:

- `p25 rounds`: per round the 25th percentile of each side's calls, ratio per round, median over rounds;
- `min rounds`: the same with each side's fastest call of the round;
- `pair median`: the median over all adjacent (baseline, candidate) call pairs of their ratio;
- `pair rounds`: per round the median of its pair ratios, median over rounds;
- `pooled p25`: the 25th percentile of all candidate calls over that of all baseline calls.

For each estimator it prints the full-run value, its bias against the same pair measured on the quiet
machine (first condition), and the spread over disjoint windows of `--window` rounds (what a screening
measurement of that many rounds would have said). Loads: `quiet`; `busy1` (one core kept busy by a
spinning process); `busy2` (both cores); `compile` (a loop of `iree-compile` runs, many threads);
`bursty` (one core busy for 0.5 s out of every 1.5 s, so the load comes and goes within a round).

    python benchmarks/timing/timing_protocol.py --spec matmul_f32=PATH [--spec NAME=PATH ...] [--rounds 24]
        [--out DIR] [--loads quiet,busy1,busy2,compile,bursty]

`--reuse DIR` re-analyses a saved run without measuring.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CPU_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
]
SPIN = "import time\nwhile True:\n    pass\n"
BURST = (
    "import time\nwhile True:\n    end = time.monotonic() + 0.5\n    while time.monotonic() < end:\n        pass\n"
    "    time.sleep(1.0)\n"
)


@dataclass
class Load:
    """A background load: the processes it started, stopped together."""

    name: str
    processes: list[subprocess.Popen]

    def stop(self) -> None:
        for proc in self.processes:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def start_load(name: str, work: Path) -> Load:
    def spawn(command: list[str]) -> subprocess.Popen:
        return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    python = [sys.executable, "-c"]
    if name == "quiet":
        return Load(name, [])
    if name == "busy1":
        return Load(name, [spawn(python + [SPIN])])
    if name == "busy2":
        return Load(name, [spawn(python + [SPIN]), spawn(python + [SPIN])])
    if name == "bursty":
        return Load(name, [spawn(python + [BURST])])
    if name == "compile":
        source = ROOT / "examples" / "matmul_nt_f16.mlir"
        loop = f"while true; do iree-compile {source} {' '.join(CPU_FLAGS)} -o {work / 'load.vmfb'}; done"
        return Load(name, [spawn(["bash", "-c", loop])])
    raise SystemExit(f"unknown load {name}")


def compile_pair(name: str, spec: Path, work: Path) -> tuple[Path, Path, list]:
    """IREE's default build and the tuned build of `examples/NAME.mlir`, and its random inputs."""
    from mltune.frontend.mlir import new_context, parse_module_file
    from mltune.input.tuning_input import write_random_inputs

    source = ROOT / "examples" / f"{name}.mlir"
    default, tuned = work / f"{name}_default.vmfb", work / f"{name}_tuned.vmfb"
    subprocess.run(["iree-compile", str(source), *CPU_FLAGS, "-o", str(default)], check=True)
    subprocess.run(
        ["iree-compile", str(source), *CPU_FLAGS, f"--iree-codegen-tuning-spec-path={spec}", "-o", str(tuned)],
        check=True,
    )
    context = new_context()
    module = parse_module_file(source, context)
    with context:
        function = next(op for op in module.body.operations if op.operation.name == "func.func")
        inputs = list(write_random_inputs(function, work / f"{name}_inputs", seed=0))
    return default, tuned, inputs


def sample(
    baseline: Path,
    candidate: Path,
    inputs: list,
    rounds: int,
    work: Path,
    cpu: bool = False,
    pairs: int | None = None,
    function: str = "main",
) -> list:
    """Raw calls of one interleaved run: per round, [candidate calls, baseline calls] in microseconds; with
    `cpu`, each call is [wall, most CPU time of one thread, CPU time of all threads]. A round fills 0.25 s with at
    least 5 call pairs, or holds exactly `pairs`."""
    calls = (
        {"round_seconds": 0.25, "min_calls": 5, "max_calls": 400}
        if pairs is None
        else {"round_seconds": 0.0, "min_calls": pairs, "max_calls": pairs}
    )
    request = {
        "device": "local-task",
        "function": function,
        "dispatch_level": False,
        "inputs": [(str(f.path), f.shape, f.element_type) for f in inputs],
        "baseline": str(baseline),
        "candidates": [(0, str(candidate))],
        "rounds": rounds,
        **calls,
        "slow_factor": 1e9,
        "raw": True,
        "cpu": cpu,
    }
    path = work / "request.json"
    path.write_text(json.dumps(request))
    out = subprocess.run(
        [sys.executable, "-m", "mltune.execution.timing_worker", str(path)], capture_output=True, text=True, check=True
    ).stdout
    return next(json.loads(line)["raw"] for line in out.splitlines() if '"raw"' in line)


def p25_rounds(raw: list) -> float:
    return float(np.median([np.percentile(c, 25) / np.percentile(b, 25) for c, b in raw]))


def min_rounds(raw: list) -> float:
    return float(np.median([min(c) / min(b) for c, b in raw]))


def pair_median(raw: list) -> float:
    return float(np.median([ci / bi for c, b in raw for ci, bi in zip(c, b)]))


def pair_rounds(raw: list) -> float:
    return float(np.median([np.median(np.array(c) / np.array(b)) for c, b in raw]))


def pooled_p25(raw: list) -> float:
    return float(np.percentile([x for c, _ in raw for x in c], 25) / np.percentile([x for _, b in raw for x in b], 25))


ESTIMATORS = {
    "p25 rounds": p25_rounds,
    "min rounds": min_rounds,
    "pair median": pair_median,
    "pair rounds": pair_rounds,
    "pooled p25": pooled_p25,
}


METRICS = {"wall": 0, "busiest thread CPU": 1, "all threads CPU": 2}


def split_metrics(runs: dict) -> dict:
    """Raw runs with [wall, thread CPU, process CPU] per call as one run per metric, each like a wall-only run."""
    split: dict = {}
    for pair, by_load in runs.items():
        for metric, column in METRICS.items():
            split[f"{pair}, {metric}"] = {
                load: {"raw": [[[call[column] for call in c], [call[column] for call in b]] for c, b in data["raw"]]}
                for load, data in by_load.items()
            }
    return split


def analyse(runs: dict, window: int) -> None:
    """One table per pair: estimator x load, value / bias against quiet / window spread."""
    first = next(iter(next(iter(runs.values())).values()))["raw"]
    if first and isinstance(first[0][0][0], list):
        runs = split_metrics(runs)
    for pair, by_load in runs.items():
        print(f"\n{pair}: value over all rounds | bias vs quiet | min-max over windows of {window} rounds")
        loads = list(by_load)
        print(f"  {'estimator':<12}" + "".join(f"{load:>30}" for load in loads))
        for name, estimator in ESTIMATORS.items():
            quiet = estimator(by_load["quiet"]["raw"]) if "quiet" in by_load else float("nan")
            cells = []
            for load in loads:
                raw = by_load[load]["raw"]
                value = estimator(raw)
                windows = [estimator(raw[i : i + window]) for i in range(0, len(raw) - window + 1, window)]
                cells.append(f"{value:7.3f} {100 * (value / quiet - 1):+6.1f}% {min(windows):6.3f}-{max(windows):6.3f}")
            print(f"  {name:<12}" + "".join(f"{cell:>30}" for cell in cells))
        base = "  baseline median call us " + "".join(
            f"{np.median([x for _, b in by_load[load]['raw'] for x in b]):>30.1f}" for load in loads
        )
        print(base)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--spec",
        action="append",
        default=[],
        metavar="EXAMPLE=SPEC",
        help="an example of examples/ and a tuning spec for it",
    )
    parser.add_argument("--rounds", type=int, default=24)
    parser.add_argument("--window", type=int, default=3)
    parser.add_argument("--loads", default="quiet,busy1,busy2,compile,bursty")
    parser.add_argument("--out", type=Path, default=ROOT / "mltune-runs" / "timing_protocol")
    parser.add_argument(
        "--cpu", action="store_true", help="also record each call's CPU time per thread (/proc/self/task/*/schedstat)"
    )
    parser.add_argument("--reuse", type=Path, default=None, help="analyse the raw.json of an earlier run")
    args = parser.parse_args()
    if args.reuse:
        analyse(json.loads((args.reuse / "raw.json").read_text()), args.window)
        return
    args.out.mkdir(parents=True, exist_ok=True)
    runs: dict = {}
    for item in args.spec:
        name, spec = item.split("=", 1)
        default, tuned, inputs = compile_pair(name, Path(spec), args.out)
        for label, candidate in ((f"{name} A/A", default), (f"{name} A/B", tuned)):
            runs[label] = {}
            for load_name in args.loads.split(","):
                load = start_load(load_name, args.out)
                try:
                    time.sleep(1.0)  # let the load settle
                    uptime = os.getloadavg()[0]
                    runs[label][load_name] = {
                        "raw": sample(default, candidate, inputs, args.rounds, args.out, args.cpu),
                        "loadavg_1min": uptime,
                    }
                finally:
                    load.stop()
                print(f"{label} under {load_name}: done (load average {uptime:.2f})", flush=True)
    (args.out / "raw.json").write_text(json.dumps(runs))
    analyse(runs, args.window)


if __name__ == "__main__":
    main()
