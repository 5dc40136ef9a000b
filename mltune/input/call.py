"""The values of `mltune tune`'s options for calling and building the model (`mltune.tuning.options`), checked
and read together, for the command line and `mltune.api.tune` alike."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from mltune.errors import UserError
from mltune.input.checks import check_input_file
from mltune.input.flag_files import parse_parameters, read_compile_flags, read_runtime_flags
from mltune.input.int_range import DEFAULT_INT_RANGE, int_range
from mltune.input.call_inputs import CallInputs
from mltune.input.specs import parse_input, parse_shapes


@dataclass(frozen=True)
class ModelCall:
    """The model's call and build options, from the command line and the flags files together."""

    inputs: CallInputs
    compile_flags: tuple[str, ...]
    function: str | None

    def record(self) -> dict:
        """As plain data, for `call.json`: what a continued run must call and build the same way."""
        return {
            "inputs": [s.text for s in self.inputs.specs],
            "parameters": [p.flag for p in self.inputs.parameters],
            "int_range": str(self.inputs.int_range),
            "compile_flags": list(self.compile_flags),
            "function": self.function,
            "shape": [[list(dims), element] for dims, element in self.inputs.shapes],
        }


def model_call(
    inputs: Sequence[str],
    parameters: Sequence[str],
    int_range_text: str | None,
    function: str | None,
    compile_flags_file: Path | None,
    benchmark_flags_file: Path | None,
    shape: str | None = None,
) -> ModelCall:
    """Read the flags files and check every input value and parameter archive (files exist, syntax holds)."""
    try:
        ints = DEFAULT_INT_RANGE if int_range_text is None else int_range(str(int_range_text))
    except argparse.ArgumentTypeError as err:
        raise UserError(f"--int-range: {err}") from None
    compile_flags: tuple[str, ...] = ()
    if compile_flags_file is not None:
        compile_flags = read_compile_flags(check_input_file(compile_flags_file, "--compile-flags-file"))
    inputs, parameters = list(inputs), list(parameters)
    if benchmark_flags_file is not None:
        runtime = read_runtime_flags(check_input_file(benchmark_flags_file, "--benchmark-flags-file"))
        if runtime.inputs and inputs:
            raise UserError(
                "give the model's --input values on the command line or in --benchmark-flags-file, not in both"
            )
        if runtime.function is not None and function is not None and runtime.function != function:
            raise UserError(
                f"--function {function} differs from --function={runtime.function} in "
                f"--benchmark-flags-file {benchmark_flags_file}"
            )
        inputs = inputs or list(runtime.inputs)
        parameters = [*runtime.parameters, *parameters]
        function = function or runtime.function
    if shape is not None and inputs:
        raise UserError("give the model's --input values or its --shape, not both (a shape's values are generated)")
    call = CallInputs(
        tuple(parse_input(text) for text in inputs),
        tuple(parse_parameters(p) for p in parameters),
        ints,
        parse_shapes(shape) if shape is not None else (),
    )
    return ModelCall(call, compile_flags, function)
