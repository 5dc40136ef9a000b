"""The shapes a run tunes for: a model with dynamic dimensions is specialised to the shapes the user names, before
anything is compiled (`mltune.input.specialize` says why it must be).

The shapes come from `--input` values, or from `--shape` (the arguments' types alone, values generated). A dynamic
model with neither is refused in one line before any compile, as is a shape that contradicts the model.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from iree.compiler import ir

from mltune.emit.spec import link_specs
from mltune.errors import UserError
from mltune.frontend.mlir import new_context, parse_module_file
from mltune.input.abi import FunctionAbi
from mltune.input.tuning_input import is_dispatch_benchmark
from mltune.input.specialize import Specialised, function_abi, has_dynamic_signature, shape_tag, specialise
from mltune.input.specs import ArgumentShape, materialize_inputs, parse_shapes
from mltune.system.progress import display

if TYPE_CHECKING:
    from mltune.tuning.request import TuneRequest

SPECIALISED_NOTE = (
    "IREE matches a tuning spec's configs to ops of these static sizes: build the specialised "
    "module (the command below) for this shape; the dynamic build keeps IREE's default configs"
)


def _format(shape: ArgumentShape) -> str:
    dims, element = shape
    return "x".join([*map(str, dims), element])


def _check_shapes(shapes: tuple[ArgumentShape, ...], abi: FunctionAbi) -> None:
    given = ",".join(_format(s) for s in shapes)
    if len(shapes) != len(abi.arguments):
        raise UserError(
            f"--shape {given}: {len(shapes)} shapes for the {len(abi.arguments)} arguments of "
            f"@{abi.name} ({', '.join(a.text for a in abi.arguments)})"
        )
    for index, ((dims, element), argument) in enumerate(zip(shapes, abi.arguments)):
        where = f"--shape {given}: argument {index} of @{abi.name} is {argument.text}"
        if argument.shape is None or len(argument.shape) != len(dims):
            raise UserError(f"{where}, not a tensor of rank {len(dims)}")
        if any(d is not None and d != g for d, g in zip(argument.shape, dims)):
            raise UserError(f"{where}: {_format((dims, element))} contradicts its static sizes")
        if element != argument.element_type:
            raise UserError(f"{where}: element type {element} given for {argument.element_type}")


def _shapes(request: TuneRequest, abi: FunctionAbi) -> tuple[tuple[int, ...], ...]:
    given = request.call_inputs
    if given.specs:
        files, _ = materialize_inputs(given.specs, abi, request.run_dir / "inputs")
        return tuple(f.shape for f in files)
    if given.shapes:
        _check_shapes(given.shapes, abi)
        return tuple(dims for dims, _ in given.shapes)
    dynamic = ", ".join(f"argument {i} is {a.text}" for i, a in enumerate(abi.arguments) if not a.is_static)
    example = ",".join(
        _format((tuple(d if d is not None else 128 for d in a.shape or ()), a.element_type)) for a in abi.arguments
    )
    raise UserError(
        f"@{abi.name} has dynamic dimensions ({dynamic}): name the shapes to tune for, e.g. "
        f"--shape {example} (repeat --shape for several; one run each), or give --input values"
    )


def specialised_request(request: TuneRequest, context: ir.Context) -> tuple[TuneRequest, Specialised | None]:
    """The request on the model specialised to the user's shapes, where its entry function has dynamic dimensions;
    else the request as it is (a `--shape` that contradicts a static model is refused)."""
    path = request.input_path
    if is_dispatch_benchmark(path) or not has_dynamic_signature(path):
        if request.call_inputs.shapes:
            module = parse_module_file(path, context)
            _check_shapes(request.call_inputs.shapes, function_abi(module, request.function, context))
        return request, None
    module = parse_module_file(path, context)  # once: a model with its weights inlined is large
    abi = function_abi(module, request.function, context)
    shapes = _shapes(request, abi)
    out = request.run_dir / f"{path.stem}.{shape_tag(shapes)}.mlir"
    with display().phase(f"specialise @{abi.name}'s dynamic dimensions to {shape_tag(shapes)}"):
        specialised = specialise(module, abi.name, shapes, out, context)
    print(f"note: tuning {path.name} specialised to {specialised.describe()} ({out}); {SPECIALISED_NOTE}")
    return replace(request, input_path=out), specialised


def shape_note(specialised: Specialised | None) -> tuple[str, ...]:
    """The report's line saying which shapes the run's configs were tuned for."""
    if specialised is None:
        return ()
    return (
        f"tuned for the shapes {specialised.describe()} (the model's dynamic dimensions, specialised: "
        f"{Path(specialised.source).name})",
    )


def bucket_output(output: Path, shape: str) -> Path:
    """Where one shape's result goes when several are tuned: `best_spec.mlir` -> `best_spec.1x128.mlir`."""
    tag = shape_tag([dims for dims, _ in parse_shapes(shape)])
    return output.with_name(f"{output.stem}.{tag}{output.suffix}")


def link_bucket_specs(specs: Sequence[Path], output: Path) -> Path | None:
    """One spec holding every shape's configs (each matches its own static sizes), written to `output`; None when
    no shape's run wrote a spec. A CUDA result is each shape's annotated source, not a spec: those stay apart."""
    texts = [path.read_text() for path in specs]
    if not texts or any("transform.with_named_sequence" not in text for text in texts):
        return None
    with tempfile.TemporaryDirectory(prefix="mltune-link-") as work:
        output.write_text(link_specs(texts, new_context(), Path(work)))
    return output
