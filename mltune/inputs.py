"""What the user handed us: a whole model (source MLIR) or one dumped dispatch benchmark.

A model is compiled once with the tuner attributes to dump its dispatches; its public
function and the argument types come from the IR, and seeded random arguments are
written as `.npy` files so that every measurement (and the user's own
`iree-benchmark-module --input=@file.npy`) runs on the same data.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
from iree.compiler import ir
from iree.compiler.dialects import iree_codegen

from mltune.errors import UserError
from mltune.input_files import InputFile, ParameterArchive, numpy_type
from mltune.mlir import parse_module_file
from mltune.targets import Target
from mltune.tools import run_tool, tool_path

DUMP_TIMEOUT_S = 600


@dataclass(frozen=True)
class Invocation:
    """How to run the compiled input: a function and its arguments, or a dispatch benchmark."""

    function: str
    inputs: tuple[InputFile, ...]
    dispatch_level: bool  # a dumped dispatch benchmark: the function takes a dispatch count
    parameters: tuple[ParameterArchive, ...] = ()  # weights every build of the model is run with


@dataclass(frozen=True)
class TuningInput:
    """The source to compile for every candidate, how to run it, and its dispatch benchmark files."""

    source: Path
    invocation: Invocation
    dispatch_files: tuple[Path, ...]
    compile_flags: tuple[str, ...]


def _public_functions(module: ir.Module) -> dict[str, ir.Operation]:
    functions = {}
    for op in module.body.operations:
        if op.operation.name not in ("func.func", "util.func"):
            continue
        visibility = op.attributes["sym_visibility"].value if "sym_visibility" in op.attributes else "public"
        if visibility == "public" and len(op.regions[0].blocks) > 0:
            functions[op.attributes["sym_name"].value] = op
    return functions


def _choose_function(functions: dict[str, ir.Operation], requested: str | None, path: Path) -> str:
    if requested is not None:
        if requested not in functions:
            raise UserError(f"{path}: no public function @{requested} (found: {', '.join(sorted(functions)) or 'none'})")
        return requested
    if "main" in functions:
        return "main"
    if len(functions) == 1:
        return next(iter(functions))
    if not functions:
        raise UserError(f"{path}: no public function to benchmark")
    raise UserError(f"{path}: several public functions ({', '.join(sorted(functions))}); choose one with --function")


def write_random_inputs(function: ir.Operation, directory: Path, seed: int) -> tuple[InputFile, ...]:
    """One file of seeded random values per tensor argument (static shapes only), and `flags.txt`
    holding the matching `--input=` flags for `iree-run-module` / `iree-benchmark-module --flagfile`."""
    directory.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    files = []
    for index, arg_type in enumerate(function.attributes["function_type"].value.inputs):
        if not isinstance(arg_type, ir.RankedTensorType) or not arg_type.has_static_shape:
            raise UserError(f"argument {index} has type {arg_type}: only statically shaped tensor arguments are supported")
        element = str(arg_type.element_type)
        dtype = np.dtype(numpy_type(element))
        if np.issubdtype(dtype, np.integer) or dtype == np.bool_:
            values = rng.integers(-4, 5, size=arg_type.shape).astype(dtype)
        else:
            values = rng.uniform(-1.0, 1.0, size=arg_type.shape).astype(dtype)
        if element == "bf16":
            path = directory / f"input{index}.bin"
            values.tofile(path)
        else:
            path = directory / f"input{index}.npy"
            np.save(path, values)
        files.append(InputFile(path, tuple(arg_type.shape), element))
    (directory / "flags.txt").write_text("".join(f"{f.flag}\n" for f in files))
    return tuple(files)


def _dump_dispatches(source: Path, compile_flags: Sequence[str], dump_dir: Path) -> tuple[Path, ...]:
    result = run_tool(
        [tool_path("iree-compile"), str(source), *compile_flags, "--iree-codegen-add-tuner-attributes",
         f"--iree-hal-dump-executable-benchmarks-to={dump_dir}", "-o", str(dump_dir / "model.vmfb")],
        timeout_s=DUMP_TIMEOUT_S,
    )
    if not result.ok:
        raise UserError(f"iree-compile cannot compile {source}: {result.describe_failure()}")
    return tuple(sorted(dump_dir.glob("*_benchmark.mlir")))


def strip_configuration(bench: Path, out: Path) -> None:
    result = run_tool([tool_path("iree-opt"), str(bench), "--iree-codegen-strip-compilation-info", "-o", str(out)], 120)
    if not result.ok:
        raise UserError(f"iree-opt cannot strip the configuration of {bench}: {result.describe_failure()}")


def default_build(path: Path, target: Target, work_dir: Path, context: ir.Context,
                  extra_flags: Sequence[str] = ()) -> tuple[Path, tuple[str, ...]]:
    """The source and flags with which `iree-compile` builds the model at `path` for `target` with IREE's
    defaults: the tuner's baseline, and what anyone re-timing a result must compare against. For sm_90
    the source is a copy in `work_dir` carrying its device target, and the target adds no flags."""
    return target.prepare_source(path, work_dir, context), (*target.compile_flags(), *extra_flags)


def prepare_input(path: Path, target: Target, work_dir: Path, context: ir.Context,
                  function: str | None = None, seed: int = 0, extra_flags: Sequence[str] = ()) -> TuningInput:
    """Classify the input, dump its dispatches if it is a model (compiled with the target's flags and
    `extra_flags`), and write its arguments."""
    if not path.is_file():
        raise UserError(f"input file not found: {path}")
    module = parse_module_file(path, context)
    with context:
        if iree_codegen.get_executable_variant_ops(module):
            stripped = work_dir / "dispatch_stripped.mlir"
            strip_configuration(path, stripped)
            functions = _public_functions(module)
            name = _choose_function(functions, function, path)
            return TuningInput(stripped, Invocation(name, (), True), (path,), ())
        functions = _public_functions(module)
        name = _choose_function(functions, function, path)
        inputs = write_random_inputs(functions[name], work_dir / "inputs", seed)
    dump_dir = work_dir / "dispatches"
    dump_dir.mkdir(parents=True, exist_ok=True)
    source, compile_flags = default_build(path, target, work_dir, context, extra_flags)
    dispatches = _dump_dispatches(source, compile_flags, dump_dir)
    return TuningInput(source, Invocation(name, inputs, False), dispatches, compile_flags)
