"""What the user handed us: a whole model (source MLIR of any frontend IREE reads) or one dumped dispatch benchmark.

A model is compiled once with the tuner attributes to dump its dispatches; the function to tune and its
argument types are read from that build (`mltune.input.abi`), and its arguments are the user's `--input` values
(`mltune.input.specs`) or seeded random ones (`mltune.input.generated`), written as files so that every
measurement (and the user's own `iree-benchmark-module --flagfile=inputs/flags.txt`) runs on the same data.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from iree.compiler import ir
from iree.compiler.dialects import iree_codegen

from mltune.errors import UserError
from mltune.frontend.dump_constants import restore_dropped_constants
from mltune.frontend.mlir import parse_module_file
from mltune.input.call_inputs import CallInputs
from mltune.input.abi import BUFFER_VIEW, AbiValue, FunctionAbi, choose_function, read_function_abi
from mltune.input.export_hints import export_hint
from mltune.input.files import InputFile, ParameterArchive
from mltune.input.generated import describe_generated, generate_inputs
from mltune.input.int_range import KERNEL_INT_RANGE, IntRange
from mltune.input.specs import materialize_inputs
from mltune.system.tools import run_compiler, run_tool, tool_path
from mltune.targets import Target

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
    arguments: tuple[str, ...] = ()  # per argument of a model: its type and where its values came from


DISPATCH_MARK = b"executable.variant"  # in the text (`hal.executable.variant`) and in MLIR bytecode alike
READ_CHUNK = 1 << 24
INPUT_FLAG_PREFIX = "--iree-input-"


def is_dispatch_benchmark(path: Path) -> bool:
    """Whether `path` is a dumped dispatch benchmark (it holds a `hal.executable.variant`), found by reading its
    bytes rather than parsing it: a model's hundreds of megabytes of weights stay out of Python."""
    carry = b""
    with open(path, "rb") as handle:
        while chunk := handle.read(READ_CHUNK):
            if DISPATCH_MARK in carry + chunk:
                return True
            carry = chunk[-len(DISPATCH_MARK) :]
    return False


def _public_functions(module: ir.Module) -> list[str]:
    names = []
    for op in module.body.operations:
        if op.operation.name not in ("func.func", "util.func"):
            continue
        visibility = op.attributes["sym_visibility"].value if "sym_visibility" in op.attributes else "public"
        if visibility == "public" and len(op.regions[0].blocks) > 0:
            names.append(op.attributes["sym_name"].value)
    return names


def write_tool_flags(
    directory: Path,
    inputs: Sequence[InputFile],
    parameters: Sequence[ParameterArchive] = (),
    function: str | None = None,
) -> None:
    """`flags.txt`: the call as flags of `iree-run-module` / `iree-benchmark-module --flagfile`."""
    lines = ([f"--function={function}"] if function else []) + [p.flag for p in parameters] + [f.flag for f in inputs]
    (directory / "flags.txt").write_text("".join(f"{line}\n" for line in lines))


def write_random_inputs(
    function: ir.Operation, directory: Path, seed: int, int_range: IntRange = KERNEL_INT_RANGE
) -> tuple[InputFile, ...]:
    """Seeded random arguments for a function of mltune's own (a one-op model), from its IR, with `flags.txt`."""
    arguments = [AbiValue.of_type(t) for t in function.attributes["function_type"].value.inputs]
    for index, argument in enumerate(arguments):
        if not argument.is_static:
            raise UserError(f"argument {index} has type {argument.text}: only statically shaped tensors are supported")
    files = generate_inputs(arguments, directory, seed, int_range)
    write_tool_flags(directory, files)
    return files


def check_generatable(abi: FunctionAbi) -> None:
    """Every argument must be a statically shaped tensor for mltune to make up its values."""
    for index, argument in enumerate(abi.arguments):
        where = f"argument {index} of @{abi.name}"
        if argument.text == BUFFER_VIEW:
            raise UserError(
                f"{where} is never read by the model, so IREE records no type for it: give every argument with --input"
            )
        if not argument.is_tensor:
            raise UserError(
                f"{where} is {argument.text}, not a tensor: mltune times functions of tensor arguments "
                "only (export the model with tensor arguments)"
            )
        if not argument.is_static:
            raise UserError(
                f"{where} has a dynamic dimension ({argument.text}): export with static shapes, or give "
                "--input with a concrete shape"
            )


def model_arguments(
    abi: FunctionAbi, given: CallInputs, directory: Path, seed: int
) -> tuple[tuple[InputFile, ...], tuple[str, ...]]:
    """The model's arguments as files, the user's or generated, and where each came from."""
    if given.specs:
        return materialize_inputs(given.specs, abi, directory)
    check_generatable(abi)
    files = generate_inputs(abi.arguments, directory, seed, given.int_range)
    return files, tuple(describe_generated(a, given.int_range) for a in abi.arguments)


DUMP_FOLDER = "dispatches"  # in a run's folder: the dumped dispatches and the module the dump's compile writes
DUMPED_BUILD = "model.vmfb"


def dumped_build(work_dir: Path) -> Path:
    """IREE's default build of the model as given, which the compile that dumps its dispatches writes: the dump's
    flags write files beside it and change nothing in it (`tests/test_weights.py` checks it byte for byte), so the
    result timed as the user builds it needs no second default compile."""
    return work_dir / DUMP_FOLDER / DUMPED_BUILD


def _dump_dispatches(source: Path, compile_flags: Sequence[str], dump_dir: Path) -> tuple[Path, ...]:
    result = run_compiler(
        [
            tool_path("iree-compile"),
            str(source),
            *compile_flags,
            "--iree-codegen-add-tuner-attributes",
            f"--iree-hal-dump-executable-benchmarks-to={dump_dir}",
            "-o",
            str(dump_dir / DUMPED_BUILD),
        ],
        timeout_s=DUMP_TIMEOUT_S,
    )
    if not result.ok:
        hint = export_hint(result.stderr)
        raise UserError(
            f"iree-compile cannot compile {source}: {result.describe_failure()}" + (f" (fix: {hint})" if hint else "")
        )
    return tuple(sorted(dump_dir.glob("*_benchmark.mlir")))


# A dump holds the model after dispatch creation: compiled from the start, global optimization runs again on the
# executable's ops, and IREE 3.13 then folds a batch-1 contraction's unit loop into a new op without the candidate's
# config (`tests/test_gpu_simt.py`); the model it came from is configured without that fold.
DUMP_PHASE_FLAG = "--compile-from=flow"


def executable_flags(flags: Sequence[str]) -> tuple[str, ...]:
    """The user's flags that apply to a dispatch benchmark: all but the input conversion's (`--iree-input-*`), which
    runs before dispatches exist and rejects a dump (`--iree-input-type=onnx` and `--iree-input-demote-i64-to-i32`
    both fail on one in IREE 3.13), and the dump compiled from the phase it was dumped at (`DUMP_PHASE_FLAG`)."""
    return (*(flag for flag in flags if not flag.startswith(INPUT_FLAG_PREFIX)), DUMP_PHASE_FLAG)


def strip_configuration(bench: Path, out: Path) -> None:
    result = run_tool([tool_path("iree-opt"), str(bench), "--iree-codegen-strip-compilation-info", "-o", str(out)], 120)
    if not result.ok:
        raise UserError(f"iree-opt cannot strip the configuration of {bench}: {result.describe_failure()}")


def default_build(
    path: Path, target: Target, work_dir: Path, context: ir.Context, extra_flags: Sequence[str] = ()
) -> tuple[Path, tuple[str, ...]]:
    """The source and flags with which `iree-compile` builds the model at `path` for `target` with IREE's
    defaults: the tuner's baseline, and what anyone re-timing a result must compare against. For sm_90
    the source is a copy in `work_dir` carrying its device target, and the target adds no flags."""
    return target.prepare_source(path, work_dir, context), (*target.compile_flags(), *extra_flags)


def prepare_input(
    path: Path,
    target: Target,
    work_dir: Path,
    context: ir.Context,
    function: str | None = None,
    seed: int = 0,
    extra_flags: Sequence[str] = (),
    given: CallInputs = CallInputs(),
) -> TuningInput:
    """Classify the input; a model's dispatches are dumped (compiled with the target's flags and `extra_flags`),
    its function read from that build and its arguments written. A dispatch benchmark names its target itself and
    is compiled with `extra_flags` alone (`executable_flags`), so that it is built as the model it came from is; the
    constants its dump names without holding (a convolution's fused batch norm) are restored as zeros, or no build
    of it compiles (its time does not depend on their values: `dump_constants`)."""
    if not path.is_file():
        raise UserError(f"input file not found: {path}")
    if is_dispatch_benchmark(path):
        module = parse_module_file(path, context)
        with context:
            if iree_codegen.get_executable_variant_ops(module):
                stripped = work_dir / "dispatch_stripped.mlir"
                strip_configuration(path, stripped)
                source = restore_dropped_constants(stripped, work_dir / "dispatch_restored.mlir")
                name = choose_function(_public_functions(module), function, path)
                return TuningInput(source, Invocation(name, (), True), (path,), executable_flags(extra_flags))
    dump_dir = work_dir / DUMP_FOLDER
    dump_dir.mkdir(parents=True, exist_ok=True)
    source, compile_flags = default_build(path, target, work_dir, context, extra_flags)
    dispatches = _dump_dispatches(source, compile_flags, dump_dir)
    abi = read_function_abi(dump_dir / DUMPED_BUILD, source, compile_flags, work_dir, context, function)
    inputs_dir = work_dir / "inputs"
    inputs, arguments = model_arguments(abi, given, inputs_dir, seed)
    write_tool_flags(inputs_dir, inputs, given.parameters, abi.name)
    invocation = Invocation(abi.name, inputs, False, given.parameters)
    return TuningInput(source, invocation, dispatches, compile_flags, arguments)
