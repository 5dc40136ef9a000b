"""The `Target` interface shared by llvm-cpu and GPU targets, and `--target` parsing."""

from __future__ import annotations

import difflib
import re
import tempfile
from pathlib import Path
from typing import Protocol, Union

from iree.compiler import ir
from iree.compiler.dialects import iree_codegen

from mltune.errors import UserError
from mltune.frontend.mlir import new_context, parse_module_file
from mltune.frontend.one_op_model import ContractionShape, contraction_model
from mltune.system.tools import ToolResult, run_compiler, tool_path
from mltune.targets.cpu import CpuInfo, CpuTarget
from mltune.targets.gpu import GpuInfo, GpuTarget, gpu_target

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


def _probe_compile(target: Target, work_dir: Path, context: ir.Context, stage: str) -> tuple[ToolResult, Path]:
    """Compile a tiny module for `target` up to `stage` (`--compile-to`): the compiler checks the target's names."""
    source = work_dir / "probe.mlir"
    source.write_text(contraction_model(_PROBE))
    source = target.prepare_source(source, work_dir, context)
    out = work_dir / "out.mlir"
    result = run_compiler(
        [tool_path("iree-compile"), str(source), *target.compile_flags(), f"--compile-to={stage}", "-o", str(out)],
        timeout_s=120,
    )
    return result, out


def compiler_facts(target: GpuTarget) -> GpuInfo:
    """The facts the compiler resolves for a GPU target, from a tiny module compiled to executable configurations;
    a target the compiler does not know is a one-line `UserError`."""
    context = new_context()
    with tempfile.TemporaryDirectory(prefix="mltune_probe_") as tmp:
        result, out = _probe_compile(target, Path(tmp), context, "executable-configurations")
        if not result.ok:
            errors = [line.split("error:", 1)[1].strip() for line in result.stderr.splitlines() if "error:" in line]
            raise UserError(
                f"--target {target.name}: IREE does not know this {target.api.upper()} target "
                f"({errors[0] if errors else result.describe_failure()})"
            )
        module = parse_module_file(out, context)
        with context:
            variants = iree_codegen.get_executable_variant_ops(module)
            return GpuInfo.from_executable_target(variants[0].attributes["target"])


def check_cpu_name(target: CpuTarget) -> None:
    """An LLVM CPU name the compiler does not know fails in one line (LLVM itself aborts with "64-bit code
    requested on a subtarget that doesn't support it"), suggesting the closest names LLVM lists."""
    with tempfile.TemporaryDirectory(prefix="mltune_probe_") as tmp:
        result, _ = _probe_compile(target, Path(tmp), new_context(), "hal")
    if result.ok:
        return
    known = re.search(r"List of accepted CPUs: (.*)", result.stderr)
    if known is None:
        raise UserError(
            f"--target {target.cpu}: iree-compile cannot compile for this CPU ({result.describe_failure()})"
        )
    names = [n.strip() for n in known.group(1).split(",") if n.strip()]
    arch = re.search(r"Unknown CPU for target architecture (\S+?)\.?$", result.stderr, re.MULTILINE)
    close = difflib.get_close_matches(target.cpu, names, n=3)
    hint = (
        f"did you mean {' or '.join(close)}?"
        if close
        else f"LLVM knows {', '.join(names[:8])}, ... ({len(names)} names)"
    )
    raise UserError(
        f"unknown --target {target.cpu}: not an LLVM CPU name{' for ' + arch.group(1) if arch else ''} "
        f"(use host, or {hint})"
    )


def parse_target(name: str, probe: bool = True) -> Target:
    """`host` or an LLVM CPU name, a ROCm arch or product (gfx942, mi300x, ...) or a CUDA arch (sm_80 ...).

    CPU and GPU names are checked by the compiler itself (a tiny compile), so an unknown one fails here, in
    one line, before any work.
    """
    if not name or not re.fullmatch(r"[A-Za-z0-9_.+-]+", name):
        raise UserError(
            f"invalid --target {name!r}: expected 'host', an LLVM CPU name, a ROCm name (gfx942, mi300x) "
            "or a CUDA arch (sm_80)"
        )
    gpu = gpu_target(name)
    if gpu is None:
        if name.lower().startswith(("sm", "gfx", "mi", "cuda", "rocm", "hip", "nvidia", "amd")):
            raise UserError(f"unknown --target {name}: ROCm targets look like gfx942 or mi300x, CUDA ones like sm_80")
        cpu = CpuTarget(cpu=name)
        if probe and name != "host":
            check_cpu_name(cpu)
        return cpu
    if probe:
        compiler_facts(gpu)
    return gpu
