"""What reading a model's signature costs, on a torch-dialect model with large inlined weights.

mltune reads a model's entry point from IREE's build (`mltune.input.abi`): for a torch-dialect function, which carries
no reflection, through IREE's ABI lowering (`iree-compile --compile-to=abi`, weights elided from its output).
This compares, in child processes (wall and CPU seconds and peak memory, from GNU time):
  parse      what mltune did before: the source read into Python and parsed with the bindings;
  sniff      what it does now before compiling: the bytes scanned for `executable.variant`;
  abi        the ABI lowering it now adds for a torch-dialect model;
  dump       the build that dumps the dispatches, which every run of a model makes anyway.
The model is written here: LAYERS linear layers (`torch.aten.mm` and `tanh`) of SIZE x SIZE f32 weights as
`dense_resource` blobs, as iree-turbine's `save_mlir` writes inlined weights. Compiles are not kernel timings:
hold the lock shared; the CPU time is the number to compare when the machine is shared.

    flock -s /tmp/mltune-cpu.lock python benchmarks/studies/whole_models/abi_reading_cost.py [--layers 12] [--size 1024] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from mltune.frontend.mlir import ELIDE_WEIGHTS
from mltune.system.tools import tool_path

TIME = "/usr/bin/time"  # GNU time
CPU_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
]


def write_model(path: Path, layers: int, size: int) -> None:
    """A torch-dialect chain of `layers` matmuls with inlined weights (seeded values)."""
    rng = np.random.default_rng(0)
    vt = f"!torch.vtensor<[1,{size}],f32>"
    wt = f"!torch.vtensor<[{size},{size}],f32>"
    with open(path, "w") as out:
        out.write(f"module @module {{\n  func.func @main(%x0: {vt}) -> {vt} {{\n")
        for i in range(layers):
            out.write(
                f"    %w{i} = torch.vtensor.literal(dense_resource<w{i}> : tensor<{size}x{size}xf32>) : {wt}\n"
                f"    %m{i} = torch.aten.mm %x{i}, %w{i} : {vt}, {wt} -> {vt}\n"
                f"    %x{i + 1} = torch.aten.tanh %m{i} : {vt} -> {vt}\n"
            )
        out.write(f"    return %x{layers} : {vt}\n  }}\n}}\n\n{{-#\n  dialect_resources: {{\n    builtin: {{\n")
        for i in range(layers):
            blob = (np.uint32(4).tobytes() + rng.standard_normal((size, size), np.float32).tobytes()).hex().upper()
            out.write(f'      w{i}: "0x{blob}"{"," if i < layers - 1 else ""}\n')
        out.write("    }\n  }\n#-}\n")


def child_cost(args: list[str], work: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak resident MB of one child process, from GNU time (a child forked by this
    Python would start with this process's own peak as its floor)."""
    report = work / "time.txt"
    proc = subprocess.run(
        [TIME, "-f", "%e %U %S %M", "-o", str(report), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{args[:3]} failed: {proc.stderr[-2000:]}")
    wall, user, system, kilobytes = report.read_text().split()[-4:]
    return float(wall), float(user) + float(system), float(kilobytes) / 1024


def steps(model: Path, work: Path) -> dict[str, list[str]]:
    python = [sys.executable, "-c"]
    return {
        "parse": [
            *python,
            "import sys; from pathlib import Path; from mltune.frontend.mlir import new_context, "
            "parse_module_file; parse_module_file(Path(sys.argv[1]), new_context())",
            str(model),
        ],
        "sniff": [
            *python,
            "import sys; from pathlib import Path; from mltune.input.tuning_input import is_dispatch_benchmark; "
            "assert not is_dispatch_benchmark(Path(sys.argv[1]))",
            str(model),
        ],
        "abi": [
            tool_path("iree-compile"),
            str(model),
            *CPU_FLAGS,
            "--compile-to=abi",
            *ELIDE_WEIGHTS,
            "-o",
            str(work / "abi.mlir"),
        ],
        "dump": [
            tool_path("iree-compile"),
            str(model),
            *CPU_FLAGS,
            "--iree-codegen-add-tuner-attributes",
            f"--iree-hal-dump-executable-benchmarks-to={work / 'dump'}",
            "-o",
            str(work / "model.vmfb"),
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        model = work / "model.mlir"
        write_model(model, args.layers, args.size)
        costs: dict[str, list[tuple[float, float, float]]] = {}
        for _ in range(args.rounds):
            for name, command in steps(model, work).items():
                costs.setdefault(name, []).append(child_cost(command, work))
        print(
            f"model: {model.stat().st_size / 1e6:.0f} MB of torch-dialect MLIR ({args.layers} layers of "
            f"{args.size}x{args.size} f32), {args.rounds} rounds; load before/after: see /proc/loadavg\n"
        )
        print("| step | wall s | CPU s | peak MB |\n|---|---|---|---|")
        for name, rows in costs.items():
            cells = []
            for column in range(3):
                values = [row[column] for row in rows]
                cells.append(f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})")
            print(f"| {name} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
