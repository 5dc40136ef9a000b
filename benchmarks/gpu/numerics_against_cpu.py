"""Which GPU build computes the model right: IREE's default or a tuned candidate the numerics check refused?

mltune refuses a winner whose outputs differ from IREE's default build on the same device. That check cannot say
which of the two is wrong. This script asks a third party: the same exported file built for llvm-cpu by plain
`iree-compile` and run by `iree-run-module` on the run's own inputs. It compares, against that CPU reference, IREE's
default GPU outputs (`outputs_default.npz`, written by the run) and every candidate the run checked
(`numerics/DISPATCH/candidate_N/outputs.npz`), with mltune's tolerance (`mltune.whole_model.numerics.compare`) and the
error's RMS and largest element relative to the reference's RMS. The reference may be the f32 export of the same
seeded model (`export_models.py` casts after the draw): its outputs are cast to the candidate's type first.

    python benchmarks/gpu/numerics_against_cpu.py RUN_DIR SOURCE.mlir FLAGS_FILE [--module VMFB --device DEV]

`--module` adds modules built by hand (e.g. plain `iree-compile --iree-cuda-target=sm_80`), each run on `--device`.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from mltune.whole_model.host_reference import relative_error
from mltune.whole_model.numerics import compare
from mltune.system.tools import tool_path
from mltune.targets import CpuTarget


def run_flags_file(vmfb: Path, device: str, flags_file: Path, out: Path) -> list[np.ndarray]:
    """`vmfb` run by plain `iree-run-module` on `device` with the flags file's function and inputs."""
    args = [a for a in shlex.split(flags_file.read_text()) if a.startswith(("--function=", "--input="))]
    subprocess.run(
        [tool_path("iree-run-module"), f"--module={vmfb.resolve()}", f"--device={device}", *args, f"--output=@{out}"],
        check=True,
        cwd=flags_file.parent,
        stdout=subprocess.DEVNULL,
    )
    return [np.load(out)]


def cpu_reference(source: Path, flags_file: Path, work: Path) -> list[np.ndarray]:
    """The model's outputs computed on the CPU by plain tools, on the arguments its flags file names."""
    host, vmfb = CpuTarget(), work / "cpu.vmfb"
    subprocess.run([tool_path("iree-compile"), str(source), *host.compile_flags(), "-o", str(vmfb)], check=True)
    return run_flags_file(vmfb, host.runtime_device, flags_file, work / "cpu_out0.npy")


def _outputs(path: Path) -> list[np.ndarray]:
    with np.load(path) as saved:
        return [saved[f"out{i}"] for i in range(len(saved.files))]


def report(label: str, reference: list[np.ndarray], outputs: list[np.ndarray]) -> str:
    ref, got = reference[0].astype(np.float64), outputs[0].astype(np.float64)
    rms = float(np.sqrt(np.mean(ref**2))) or 1.0
    verdict = compare([r.astype(o.dtype) for r, o in zip(reference, outputs)], outputs)  # an f32 export's too
    return (
        f"{label:60s} error RMS / reference RMS {relative_error(ref, got):8.2e}, "
        f"largest {np.max(np.abs(got - ref)) / rms:8.2e}  "
        f"{'agrees' if verdict.ok else 'DIFFERS: ' + verdict.detail}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path, help="a tuning run's folder (`-` for none)")
    parser.add_argument("source", type=Path, help="the exported file as the user has it")
    parser.add_argument("flags_file", type=Path, help="its flags file (--function, --input)")
    parser.add_argument(
        "--module",
        type=Path,
        action="append",
        default=[],
        help="also a module built by hand, run on --device (repeatable)",
    )
    parser.add_argument("--device", default="cuda://0")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        reference = cpu_reference(args.source, args.flags_file, Path(work))
        print(f"reference: {args.source.name} on llvm-cpu (host), plain iree-compile + iree-run-module")
        for module in args.module:
            outputs = run_flags_file(module, args.device, args.flags_file, Path(work) / f"{module.stem}.npy")
            print(report(f"{module.name} on {args.device}", reference, outputs))
    if str(args.run_dir) != "-":
        print(
            report(
                "IREE's default build on the run's device", reference, _outputs(args.run_dir / "outputs_default.npz")
            )
        )
        for path in sorted((args.run_dir / "numerics").glob("*/candidate_*/outputs.npz")):
            print(report(f"{path.parent.parent.name} {path.parent.name}", reference, _outputs(path)))


if __name__ == "__main__":
    sys.exit(main())
