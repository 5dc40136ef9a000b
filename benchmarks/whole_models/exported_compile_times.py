"""What a real exported model costs with the plain IREE tools: file size, `iree-compile` time, one run.

For every `STEM.mlir` with a `STEM.flags` beside it (the layout examples/export/export_models.py writes):
the size of the MLIR (and of its `.irpa` archive), `iree-compile` for llvm-cpu on the host CPU (wall
time, CPU time of the compiler process, its peak memory) and `iree-run-module` on the flags file, run
from its folder. Compiles are not timing measurements of kernels, so they hold `--lock` shared (one model at
a time); the CPU time is the number to compare when the machine is shared, the wall time moves with the load.
Prints a Markdown table: median (min-max) over the rounds, the models interleaved in each round.

    python benchmarks/whole_models/exported_compile_times.py [--rounds 3] [--lock /tmp/mltune-cpu.lock] [--timeout 900] FOLDER
        [STEM ...]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from mltune.system.tools import tool_path

CPU_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
]


@dataclass(frozen=True)
class Cost:
    """One model's sizes and the costs of compiling and running it once."""

    stem: str
    mlir_mb: float
    irpa_mb: float
    compile_wall_s: float
    compile_cpu_s: float
    compile_peak_gib: float
    vmfb_mb: float
    run_wall_s: float
    run_ok: bool


def _timed(command: list[str], timeout: float, cwd: Path | None = None) -> tuple[float, float, float, int]:
    """Wall seconds, CPU seconds and peak RSS (GiB) of one child process, and its exit status (killed at timeout)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL)
    killer = threading.Timer(timeout, child.kill)
    killer.start()
    _, status, usage = os.wait4(child.pid, 0)
    killer.cancel()
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 2**20, os.waitstatus_to_exitcode(status)


def _megabytes(path: Path) -> float:
    return path.stat().st_size / 1e6 if path.exists() else 0.0


def measure(folder: Path, stem: str, lock: Path, timeout: float, work: Path) -> Cost:
    mlir, irpa, vmfb = folder / f"{stem}.mlir", folder / f"{stem}.irpa", work / f"{stem}.vmfb"
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_SH)
        wall, cpu, peak, status = _timed([tool_path("iree-compile"), str(mlir), *CPU_FLAGS, "-o", str(vmfb)], timeout)
        if status != 0:
            raise SystemExit(f"iree-compile failed on {mlir} (exit {status})")
        run_wall, _, _, run_status = _timed(
            [tool_path("iree-run-module"), f"--module={vmfb}", "--device=local-task", f"--flagfile={stem}.flags"],
            timeout,
            cwd=folder,
        )
    cost = Cost(stem, _megabytes(mlir), _megabytes(irpa), wall, cpu, peak, _megabytes(vmfb), run_wall, run_status == 0)
    vmfb.unlink()
    return cost


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("stems", nargs="*", help="default: every STEM.mlir with a STEM.flags")
    parser.add_argument("--rounds", type=int, default=3, help="compiles per model, the models interleaved")
    parser.add_argument("--lock", type=Path, default=Path("/tmp/mltune-cpu.lock"))
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per compile or run")
    args = parser.parse_args()
    stems = args.stems or sorted(p.stem for p in args.folder.glob("*.mlir") if p.with_suffix(".flags").exists())
    print(f"load before: {os.getloadavg()}")
    costs: dict[str, list[Cost]] = {stem: [] for stem in stems}
    with tempfile.TemporaryDirectory() as work:
        for _ in range(args.rounds):
            for stem in stems:
                costs[stem].append(measure(args.folder, stem, args.lock, args.timeout, Path(work)))
    print(f"load after: {os.getloadavg()}")
    print(
        f"median (min-max) over {args.rounds} rounds\n"
        "| export | MLIR MB | .irpa MB | compile wall s | compile CPU s | compile peak GiB | vmfb MB | run s "
        "| runs |\n|---|---|---|---|---|---|---|---|---|"
    )
    for stem, runs in costs.items():
        c = runs[0]
        print(
            f"| {stem} | {c.mlir_mb:.1f} | {c.irpa_mb:.1f} | {_spread([r.compile_wall_s for r in runs])} "
            f"| {_spread([r.compile_cpu_s for r in runs])} | {max(r.compile_peak_gib for r in runs):.2f} "
            f"| {c.vmfb_mb:.1f} | {_spread([r.run_wall_s for r in runs])} "
            f"| {'yes' if all(r.run_ok for r in runs) else 'NO'} |"
        )


if __name__ == "__main__":
    main()
