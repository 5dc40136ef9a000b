"""Does a config change what the code computes? Run both builds on the same inputs and compare, element by element.

Tiling changes the order of floating-point accumulation, so exact equality is the wrong test.
Each float element must satisfy |tuned - reference| <= rtol * (|reference| + RMS(reference)),
with `rtol` set by the element type (`TOLERANCE`); the RMS term keeps elements near zero, where
cancellation leaves rounding noise of the output's typical size, from failing alone. Rounding
noise is unbiased, so an error shared by every element (a shift) is tested on its own: the mean
difference must stay under 1 % of the tolerance at the RMS, plus six standard errors of the mean.
Integers and booleans must match exactly. The code runs in a child process (`python -m
mltune.whole_model.numerics VMFB ...`, with the model's parameter archives) so that a build which crashes at run time
is reported, not fatal.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from mltune.input.files import InputFile, scoped_paths
from mltune.input.tuning_input import Invocation
from mltune.system.tools import run_tool

RUN_TIMEOUT_S = 300
TOLERANCE = {"float64": 1e-9, "float32": 1e-4, "float16": 1e-2, "bfloat16": 4e-2}  # rtol per element
BIAS_FRACTION = 0.01  # a shift of every element beyond 1 % of the tolerance at the RMS is an error
MIN_ELEMENTS_FOR_BIAS = 16  # a mean over fewer elements says nothing about a shift


@dataclass(frozen=True)
class Comparison:
    """The verdict on one pair of runs, with the worst output for the message."""

    ok: bool
    detail: str


Judge = Callable[[Sequence[np.ndarray], Sequence[np.ndarray]], Comparison]  # reference outputs, a build's: a verdict


def _runtime_error(stderr: str) -> str:
    """The reason in a failed run's traceback: the exception line, without IREE's source locations."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    found = next(
        (line for line in reversed(lines) if re.match(r"\w+(Error|Exception): ", line)), lines[-1] if lines else ""
    )
    return re.sub(r"\S+\.(c|cc|h):\d+: ", "", found.replace("Error invoking function: ", ""))[:300]


def run_outputs(vmfb: Path, invocation: Invocation, device: str, out: Path) -> list[np.ndarray]:
    """The function's results for the invocation's inputs, computed in a child process."""
    out = out.with_suffix(".npz")  # numpy adds it anyway
    args = [
        sys.executable,
        "-m",
        "mltune.whole_model.numerics",
        str(vmfb),
        device,
        invocation.function,
        str(out),
        json.dumps(scoped_paths(invocation.parameters)),
        *(f"{f.path}|{'x'.join(map(str, f.shape))}|{f.element_type}" for f in invocation.inputs),
    ]
    proc = run_tool(args, timeout_s=RUN_TIMEOUT_S)
    if proc.timed_out:
        raise RuntimeError(f"running {vmfb} took more than {RUN_TIMEOUT_S} s")
    if not proc.ok:
        raise RuntimeError(f"running {vmfb} failed: {_runtime_error(proc.stderr) or f'exit code {proc.returncode}'}")
    with np.load(out) as saved:
        outputs = []
        for i in range(len(saved.files)):
            if f"out{i}.bf16" in saved.files:
                import ml_dtypes

                outputs.append(saved[f"out{i}.bf16"].view(ml_dtypes.bfloat16))
            else:
                outputs.append(saved[f"out{i}"])
        return outputs


def _float_error(ref: np.ndarray, got: np.ndarray, rtol: float) -> str | None:
    """Why two float outputs of one dtype differ beyond rounding (None: they do not)."""
    ref64, got64 = ref.astype(np.float64).ravel(), got.astype(np.float64).ravel()
    if not np.array_equal(np.isnan(ref64), np.isnan(got64)):
        return "has NaNs where the reference has none (or the reverse)"
    finite = np.isfinite(ref64)
    if not np.array_equal(ref64[~finite & ~np.isnan(ref64)], got64[~finite & ~np.isnan(ref64)]):
        return "has infinities where the reference differs"
    ref64, got64 = ref64[finite], got64[finite]
    if not ref64.size:
        return None
    scale = max(float(np.sqrt(np.mean(ref64**2))), float(np.finfo(np.float32).tiny))
    difference = got64 - ref64
    bad = np.abs(difference) > rtol * (np.abs(ref64) + scale)
    if bad.any():
        worst = float(np.max(np.abs(difference) / (np.abs(ref64) + scale)))
        return (
            f"{int(bad.sum())} of {ref64.size} elements differ by more than {rtol:.0e} x (|reference| + its RMS "
            f"{scale:.3g}); worst {worst:.1e}"
        )
    if difference.size >= MIN_ELEMENTS_FOR_BIAS:
        bias, spread = float(np.mean(difference)), float(np.std(difference)) / np.sqrt(difference.size)
        if abs(bias) > BIAS_FRACTION * rtol * scale + 6 * spread:
            return (
                f"is shifted: every element differs by {bias:+.2e} on average ({abs(bias) / scale:.1e} of its RMS "
                f"{scale:.3g}), rounding noise is unbiased"
            )
    return None


def compare(reference: Sequence[np.ndarray], candidate: Sequence[np.ndarray]) -> Comparison:
    """Dtype-aware, per-element closeness of two lists of outputs (see the module docstring)."""
    if len(reference) != len(candidate):
        return Comparison(False, f"{len(candidate)} outputs instead of {len(reference)}")
    for index, (ref, got) in enumerate(zip(reference, candidate)):
        if ref.shape != got.shape or ref.dtype != got.dtype:
            return Comparison(
                False, f"output {index} is {got.dtype}{list(got.shape)}, expected {ref.dtype}{list(ref.shape)}"
            )
        if ref.dtype.name not in TOLERANCE:
            if not np.array_equal(ref, got):
                return Comparison(False, f"output {index} ({ref.dtype}) differs in {int((ref != got).sum())} elements")
            continue
        error = _float_error(ref, got, TOLERANCE[ref.dtype.name])
        if error:
            return Comparison(False, f"output {index} ({ref.dtype}) {error}")
    return Comparison(True, "outputs agree element by element within the tolerance")


def _main(vmfb: str, device: str, function: str, out: str, parameters: str, inputs: Sequence[str]) -> None:
    import iree.runtime as rt

    from mltune.execution.loaded_module import Parameters, load_module

    config = rt.Config(device)
    loaded = load_module(Parameters(config, json.loads(parameters)), vmfb, function)
    files = []
    for spec in inputs:
        path, shape, element = spec.split("|")
        files.append(InputFile(Path(path), tuple(int(d) for d in shape.split("x") if d), element))
    results = loaded.function(*[rt.asdevicearray(config.device, f.load()) for f in files])
    if not isinstance(results, (list, tuple)):
        results = [results]
    arrays = [np.asarray(r.to_host() if hasattr(r, "to_host") else r) for r in results]
    # .npz cannot name bfloat16: store its bits, and say so in the key
    np.savez(
        out,
        **{
            (f"out{i}.bf16" if a.dtype.name == "bfloat16" else f"out{i}"): (
                a.view(np.uint16) if a.dtype.name == "bfloat16" else a
            )
            for i, a in enumerate(arrays)
        },
    )


if __name__ == "__main__":
    _main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:])
