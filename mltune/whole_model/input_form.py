"""A model's ops in IREE's input form, for a target whose candidates are the source annotated (CUDA: IREE 3.13
ignores tuning specs there, `docs/cuda-tuning-specs.md`). mltune writes a candidate's `compilation_info` onto the
source's `linalg` op; a model as a frontend exports it (iree-turbine's and ONNX's torch ops, JAX's StableHLO) has
none, so it is lowered once, with the user's flags, by `iree-compile --compile-to=input`. Every build, IREE's
default included, then starts from that form, which compiles as the original does (the phases after the input
conversion see the same IR)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Sequence

from mltune.emit.apply import annotates_source
from mltune.errors import UserError
from mltune.input.tuning_input import TuningInput
from mltune.system.tools import run_compiler, tool_path

# ops of the frontends IREE converts in its input phase (a constant's name may hold `torch.float32`: not an op)
FRONTEND_OPS = (b"torch.aten.", b"torch.operator ", b"torch.prim.", b"stablehlo.", b"chlo.", b"tosa.")
LOWERING_TIMEOUT_S = 1800


def has_frontend_ops(source: Path) -> bool:
    data = source.read_bytes()
    return any(marker in data for marker in FRONTEND_OPS)


def in_input_form(tuning_input: TuningInput, target_kind: str, work_dir: Path) -> TuningInput:
    """The tuning input with its source lowered to IREE's input form where candidates annotate it and it holds a
    frontend's ops; else as it is."""
    if tuning_input.invocation.dispatch_level or not annotates_source(target_kind):
        return tuning_input
    return replace(tuning_input, source=input_form(tuning_input.source, tuning_input.compile_flags, work_dir))


def input_form(source: Path, compile_flags: Sequence[str], work_dir: Path) -> Path:
    """`source` in IREE's input form: itself where it holds no frontend's ops, else lowered by `iree-compile
    --compile-to=input` with `compile_flags` into `work_dir`."""
    if not has_frontend_ops(source):
        return source
    work_dir.mkdir(parents=True, exist_ok=True)
    lowered = work_dir / f"{source.stem}.input.mlir"
    result = run_compiler(
        [tool_path("iree-compile"), str(source), *compile_flags, "--compile-to=input", "-o", str(lowered)],
        timeout_s=LOWERING_TIMEOUT_S,
    )
    if not result.ok:
        raise UserError(f"iree-compile cannot lower {source} to its input form: {result.describe_failure()}")
    return lowered
