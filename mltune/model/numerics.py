"""Does a spec change what the model computes? Run both builds on the same inputs and compare.

Tiling changes the order of floating-point accumulation, so exact equality is the wrong test;
the tolerance depends on the element type: the largest absolute difference, relative to the
largest magnitude of the reference output, must stay under `TOLERANCE[dtype]`. Integers must
match exactly. The model runs in a child process (`python -m mltune.model.numerics VMFB ...`)
so that a build which crashes at run time is reported, not fatal.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from mltune.inputs import Invocation
from mltune.input_files import InputFile
from mltune.tools import run_tool

RUN_TIMEOUT_S = 300
TOLERANCE = {"float64": 1e-9, "float32": 1e-4, "float16": 1e-2, "bfloat16": 4e-2}


@dataclass(frozen=True)
class Comparison:
    """The verdict on one pair of runs, with the worst output for the message."""

    ok: bool
    detail: str


def run_outputs(vmfb: Path, invocation: Invocation, device: str, out: Path) -> list[np.ndarray]:
    """The function's results for the invocation's inputs, computed in a child process."""
    out = out.with_suffix(".npz")  # numpy adds it anyway
    args = [sys.executable, "-m", "mltune.model.numerics", str(vmfb), device, invocation.function, str(out),
            *(f"{f.path}|{'x'.join(map(str, f.shape))}|{f.element_type}" for f in invocation.inputs)]
    proc = run_tool(args, timeout_s=RUN_TIMEOUT_S)
    if proc.timed_out:
        raise RuntimeError(f"running {vmfb} took more than {RUN_TIMEOUT_S} s")
    if not proc.ok:
        tail = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        raise RuntimeError(f"running {vmfb} failed: {tail[:300]}")
    with np.load(out) as saved:
        outputs = []
        for i in range(len(saved.files)):
            if f"out{i}.bf16" in saved.files:
                import ml_dtypes

                outputs.append(saved[f"out{i}.bf16"].view(ml_dtypes.bfloat16))
            else:
                outputs.append(saved[f"out{i}"])
        return outputs


def compare(reference: Sequence[np.ndarray], candidate: Sequence[np.ndarray]) -> Comparison:
    """Dtype-aware closeness of two lists of outputs (see the module docstring)."""
    if len(reference) != len(candidate):
        return Comparison(False, f"{len(candidate)} outputs instead of {len(reference)}")
    for index, (ref, got) in enumerate(zip(reference, candidate)):
        if ref.shape != got.shape or ref.dtype != got.dtype:
            return Comparison(False, f"output {index} is {got.dtype}{list(got.shape)}, expected {ref.dtype}{list(ref.shape)}")
        if ref.dtype.name not in TOLERANCE:
            if not np.array_equal(ref, got):
                return Comparison(False, f"output {index} ({ref.dtype}) differs in {int((ref != got).sum())} elements")
            continue
        ref64, got64 = ref.astype(np.float64), got.astype(np.float64)
        if not np.array_equal(np.isnan(ref64), np.isnan(got64)):
            return Comparison(False, f"output {index} has NaNs where the reference has none (or the reverse)")
        finite = ~np.isnan(ref64)
        scale = max(float(np.abs(ref64[finite]).max(initial=0.0)), np.finfo(np.float32).tiny)
        error = float(np.abs(ref64[finite] - got64[finite]).max(initial=0.0)) / scale
        if not error <= TOLERANCE[ref.dtype.name]:
            return Comparison(False, f"output {index} ({ref.dtype}) differs by {error:.2e} of its largest value "
                                     f"(tolerance {TOLERANCE[ref.dtype.name]:.0e})")
    return Comparison(True, "outputs agree within the tolerance")


def _main(vmfb: str, device: str, function: str, out: str, inputs: Sequence[str]) -> None:
    import iree.runtime as rt

    config = rt.Config(device)
    context = rt.SystemContext(config=config)
    context.add_vm_module(rt.VmModule.mmap(config.vm_instance, vmfb))
    files = []
    for spec in inputs:
        path, shape, element = spec.split("|")
        files.append(InputFile(Path(path), tuple(int(d) for d in shape.split("x") if d), element))
    results = context.modules.module[function](*[rt.asdevicearray(config.device, f.load()) for f in files])
    if not isinstance(results, (list, tuple)):
        results = [results]
    arrays = [np.asarray(r.to_host() if hasattr(r, "to_host") else r) for r in results]
    # .npz cannot name bfloat16: store its bits, and say so in the key
    np.savez(out, **{(f"out{i}.bf16" if a.dtype.name == "bfloat16" else f"out{i}"):
                     (a.view(np.uint16) if a.dtype.name == "bfloat16" else a) for i, a in enumerate(arrays)})


if __name__ == "__main__":
    _main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
