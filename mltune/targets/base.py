"""The `Target` interface shared by llvm-cpu and GPU targets, and `--target` parsing."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Protocol, Union

from iree.compiler import ir
from iree.compiler.dialects import iree_codegen

from mltune.errors import UserError
from mltune.mlir import new_context, parse_module_file
from mltune.one_op_model import ContractionShape, contraction_model
from mltune.targets.cpu import CpuInfo, CpuTarget
from mltune.targets.gpu import GpuInfo, GpuTarget, gpu_target
from mltune.tools import run_tool, tool_path

TargetFacts = Union[CpuInfo, GpuInfo]
_PROBE = ContractionShape(32, 32, 32, in_type="f16", out_type="f32")  # the module that asks the compiler


class Target(Protocol):
    """What the tuner asks of a target: how to compile for it, and which runtime driver runs it."""

    name: str

    @property
    def kind(self) -> str: ...  # cpu | rocm | cuda

    def compile_flags(self) -> list[str]: ...

    def prepare_source(self, source: Path, work_dir: Path, context: ir.Context) -> Path: ...


def facts_from_executable_target(target_attr: ir.Attribute) -> TargetFacts:
    """CPU or GPU facts from a `#hal.executable.target` attribute (dumped dispatch)."""
    text = str(target_attr)
    if text.startswith(('#hal.executable.target<"rocm"', '#hal.executable.target<"cuda"')):
        return GpuInfo.from_executable_target(target_attr)
    return CpuInfo.from_executable_target(text)


def compiler_facts(target: GpuTarget) -> GpuInfo:
    """The facts the compiler resolves for a GPU target, from a tiny module compiled to executable configurations;
    a target the compiler does not know is a one-line `UserError`."""
    context = new_context()
    with tempfile.TemporaryDirectory(prefix="mltune_probe_") as tmp:
        source = Path(tmp) / "probe.mlir"
        source.write_text(contraction_model(_PROBE))
        source = target.prepare_source(source, Path(tmp), context)
        out = Path(tmp) / "out.mlir"
        result = run_tool([tool_path("iree-compile"), str(source), *target.compile_flags(),
                           "--compile-to=executable-configurations", "-o", str(out)], timeout_s=120)
        if not result.ok:
            errors = [line.split("error:", 1)[1].strip() for line in result.stderr.splitlines() if "error:" in line]
            raise UserError(f"--target {target.name}: IREE does not know this {target.api.upper()} target "
                            f"({errors[0] if errors else result.describe_failure()})")
        module = parse_module_file(out, context)
        with context:
            variants = iree_codegen.get_executable_variant_ops(module)
            return GpuInfo.from_executable_target(variants[0].attributes["target"])


def parse_target(name: str, probe: bool = True) -> Target:
    """`host` or an LLVM CPU name, a ROCm arch or product (gfx942, mi300x, ...) or a CUDA arch (sm_80 ...).

    GPU names are checked by the compiler itself (a tiny compile), so an unknown one fails here, in
    one line, before any work.
    """
    if not name or not re.fullmatch(r"[A-Za-z0-9_.+-]+", name):
        raise UserError(f"invalid --target {name!r}: expected 'host', an LLVM CPU name, a ROCm name (gfx942, mi300x) "
                        "or a CUDA arch (sm_80)")
    gpu = gpu_target(name)
    if gpu is None:
        if name.lower().startswith(("sm", "gfx", "mi", "cuda", "rocm", "hip", "nvidia", "amd")):
            raise UserError(f"unknown --target {name}: ROCm targets look like gfx942 or mi300x, CUDA ones like sm_80")
        return CpuTarget(cpu=name)
    if probe:
        compiler_facts(gpu)
    return gpu
