"""Models as users export them, tuned unchanged: one table row per exported model.

Each model is a folder's `NAME.mlir` with its benchmark flags file `NAME.flags` (inputs, parameters, function),
as `examples/export/export_models.py` writes them; `mltune tune NAME.mlir --benchmark-flags-file NAME.flags` runs
in that folder, as a user would. The row says whether mltune accepted the file, how many dispatches the profile
counted, the share of the model's time in dispatches mltune tunes, the candidates benchmarked per minute of the
whole run, mltune's own end-to-end verdict, and the numerics verdict. When mltune recommends a build, the user's
file is compiled with plain `iree-compile` with and without it (`RUN_DIR/compile_command.txt`) and both are timed
with `iree-benchmark-module` on the run's inputs (`RUN_DIR/inputs/flags.txt`), interleaved over `--rounds`
rounds, alternating which goes first: the median per-round ratio and its range.

    python benchmarks/whole_models/real_models.py /work/exports/bert /work/exports/resnet50 --budget 50 --rounds 6 \\
        --lock /tmp/mltune-cpu.lock
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from measure_lock import held
from whole_models.tune_examples import benchmark_ms
from whole_models.tune_model import tuned_build_args

from mltune.system.tools import run_tool
from mltune.targets import parse_target


@dataclass
class Row:
    model: str
    accepted: str
    dispatches: int = 0
    tunable_share: float = 0.0
    benchmarked: int = 0
    wall_s: float = 0.0
    mltune_says: str = "-"
    plain_tools: str = "-"
    numerics: str = "-"

    def cells(self) -> list[str]:
        per_minute = f"{60 * self.benchmarked / self.wall_s:.1f}" if self.wall_s else "-"
        return [
            self.model,
            self.accepted,
            str(self.dispatches),
            f"{100 * self.tunable_share:.0f} %",
            str(self.benchmarked),
            per_minute,
            f"{self.wall_s:.0f}",
            self.mltune_says,
            self.plain_tools,
            self.numerics,
        ]


HEADER = [
    "model",
    "accepted",
    "dispatches",
    "time in tuned kinds",
    "benchmarked",
    "per minute",
    "wall s",
    "mltune end to end",
    "plain tools",
    "numerics",
]


def tune(
    stem: Path, budget: int, run_dir: Path, extra: Sequence[str] = ()
) -> tuple[subprocess.CompletedProcess, float]:
    """`mltune tune` in the model's own folder, on its flags file, as a user runs it (with `extra` options)."""
    command = [
        sys.executable,
        "-m",
        "mltune.cli",
        "tune",
        stem.with_suffix(".mlir").name,
        *extra,
        "--budget",
        str(budget),
        "--benchmark-flags-file",
        stem.with_suffix(".flags").name,
        "--run-dir",
        str(run_dir),
        "--dataset-dir",
        str(run_dir.parent / "datasets"),
        "-o",
        str(run_dir.parent / f"{stem.name}_spec.mlir"),
    ]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=stem.parent, capture_output=True, text=True)
    return done, time.perf_counter() - started


def numerics_verdict(summary: dict) -> str:
    checked = summary.get("numerics")
    if not checked:
        return "not checked (nothing kept)"
    return "agree" if checked["ok"] else f"refused: {checked['detail']}"


def end_to_end(summary: dict) -> str:
    """mltune's own end-to-end verdict: the timing as the user builds the model where there was one (a model split
    from its weights), else the recommended build's end-to-end timing."""
    if summary.get("as_built"):
        return f"{summary['as_built']['interval']} as built"
    e2e = summary.get("end_to_end")
    if not e2e:
        return summary.get("refused") or summary.get("withdrawn") or "no config kept"
    return e2e["recommended"]["interval"]


PLAIN_COMPILE_TIMEOUT_S = 1200.0  # a full-size model compiles in 1-4 minutes on 2 cores


def compile_patiently(args: Sequence[str], cwd: Path | None = None) -> None:
    """Run one plain `iree-compile`; one that waits past `PLAIN_COMPILE_TIMEOUT_S` (`iree-compile` sometimes hangs on
    a futex without using the CPU) is killed with its process group and run once more; a failure raises."""
    for _ in range(2):
        done = run_tool(args, PLAIN_COMPILE_TIMEOUT_S, cwd)
        if done.returncode is not None:
            break
    if not done.ok:
        raise RuntimeError(f"plain compile failed: {done.stderr.strip()[-300:] or 'killed after its timeout twice'}")


def retime(stem: Path, run_dir: Path, rounds: int) -> str:
    """The user's file built by plain `iree-compile` as IREE's default and as recommended, interleaved."""
    tuned_vmfb, default_vmfb = run_dir / "plain_tuned.vmfb", run_dir / "plain_default.vmfb"
    tuned_args = tuned_build_args(run_dir, tuned_vmfb)
    if tuned_args is None:
        return "1.00x (IREE's default kept)"
    target_flags = parse_target("host").compile_flags()
    compile_patiently(["iree-compile", str(stem.with_suffix(".mlir")), *target_flags, "-o", str(default_vmfb)])
    compile_patiently(tuned_args, cwd=stem.parent)  # names the file as given
    flags = run_dir / "inputs" / "flags.txt"
    ratios = []
    for index in range(rounds):
        order = (default_vmfb, tuned_vmfb) if index % 2 == 0 else (tuned_vmfb, default_vmfb)
        times = {vmfb: benchmark_ms(vmfb, flags) for vmfb in order}
        ratios.append(times[default_vmfb] / times[tuned_vmfb])
    return f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}, {rounds} rounds)"


def measure(stem: Path, budget: int, rounds: int, work: Path) -> Row:
    run_dir = work / stem.name
    if (run_dir / "summary.json").is_file():  # tuned by an earlier call with this --work: re-time only
        wall = json.loads((run_dir / "summary.json").read_text())["wall_seconds"]
    else:
        done, wall = tune(stem, budget, run_dir)
        (work / f"{stem.name}.log").write_text(done.stdout + done.stderr)
    if not (run_dir / "summary.json").is_file():
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return Row(stem.name, f"no (exit {done.returncode}: {last[:80]})")
    summary = json.loads((run_dir / "summary.json").read_text())
    profile = summary["profile"]
    row = Row(
        stem.name,
        "yes",
        len(profile),
        sum(p["share"] for p in profile if p["problem"]),
        sum(d["benchmarked"] for d in summary["dispatches"]),
        wall,
        end_to_end(summary),
        numerics=numerics_verdict(summary),
    )
    row.plain_tools = retime(stem, run_dir, rounds)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", type=Path, help="NAME paths: NAME.mlir and NAME.flags beside it")
    parser.add_argument("--budget", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--work", type=Path, default=Path("/tmp") / f"real-models-{time.strftime('%Y%m%d-%H%M%S')}")
    parser.add_argument("--lock", type=Path, default=None, help="flock file held for each model (the machine alone)")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print("| " + " | ".join(HEADER) + " |\n|" + " --- |" * len(HEADER), flush=True)
    for stem in args.models:
        with held(args.lock):
            load = os.getloadavg()[0]
            row = measure(stem.resolve(), args.budget, args.rounds, args.work)
        print("| " + " | ".join(row.cells()) + f" |  <!-- load {load:.1f} -> {os.getloadavg()[0]:.1f} -->", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
