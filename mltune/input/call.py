"""`mltune tune`'s options for calling and building the model as IREE's tools and the SHARK tuner take them:
`--input`, `--parameters`, `--int-range`, `--compile-flags-file`, `--benchmark-flags-file`; and their values
checked and read together (for the command line and `mltune.api.tune` alike)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from mltune.errors import UserError
from mltune.input.checks import check_input_file
from mltune.input.flag_files import parse_parameters, read_compile_flags, read_runtime_flags
from mltune.input.generated import DEFAULT_INT_RANGE, int_range
from mltune.input.model import CallInputs
from mltune.input.specs import parse_input


def add_input_arguments(tune: argparse.ArgumentParser) -> None:
    tune.add_argument("--input", action="append", default=[], dest="inputs", metavar="VALUE",
                      help="one argument of the model, in the syntax of IREE's tools (iree-run-module --input): "
                           "@file.npy, 1x128xi64=@file.bin (raw), 1x128xi64=1 (one value fills the tensor), "
                           "2xf32=1,2 (values); repeat once per argument, in order. Each is checked against the "
                           "argument types of the compiled model. Default: seeded random values (see --int-range)")
    tune.add_argument("--parameters", action="append", default=[], metavar="[SCOPE=]FILE",
                      help="a parameter archive (.irpa, .gguf, .safetensors) the model's weights are read from, as "
                           "IREE's --parameters=, e.g. model=weights.irpa (repeatable)")
    tune.add_argument("--int-range", type=int_range, default=DEFAULT_INT_RANGE, metavar="LOW:HIGH",
                      help="generated integer arguments are drawn uniformly from LOW to HIGH-1 (default 0:2, i.e. 0 "
                           "or 1: valid token ids, positions, attention masks and segment ids for any model; give "
                           "e.g. 0:30522 for BERT's whole vocabulary). Booleans are true or false, floats drawn "
                           "from [-1, 1)")
    tune.add_argument("--compile-flags-file", type=Path, default=None, metavar="FILE",
                      help="iree-compile flags, one per line, for IREE's default and every candidate alike (as the "
                           "SHARK tuner's --compile-flags-file; blank lines and # comments skipped)")
    tune.add_argument("--benchmark-flags-file", type=Path, default=None, metavar="FILE",
                      help="how to call the model, one flag per line as IREE's tools take them: --input=..., "
                           "--parameters=SCOPE=FILE.irpa, --function=NAME (as the SHARK tuner's "
                           "--model-benchmark-flags-file; other flags are refused). Relative paths in both files "
                           "resolve against the current directory, as in IREE's tools")


@dataclass(frozen=True)
class ModelCall:
    """The model's call and build options, from the command line and the flags files together."""

    inputs: CallInputs
    compile_flags: tuple[str, ...]
    function: str | None

    def record(self) -> dict:
        """As plain data, for `call.json`: what a continued run must call and build the same way."""
        return {"inputs": [s.text for s in self.inputs.specs], "parameters": [p.flag for p in self.inputs.parameters],
                "int_range": str(self.inputs.int_range), "compile_flags": list(self.compile_flags),
                "function": self.function}


def model_call(inputs: Sequence[str], parameters: Sequence[str], int_range_text: str | None, function: str | None,
               compile_flags_file: Path | None, benchmark_flags_file: Path | None) -> ModelCall:
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
            raise UserError("give the model's --input values on the command line or in --benchmark-flags-file, "
                            "not in both")
        if runtime.function is not None and function is not None and runtime.function != function:
            raise UserError(f"--function {function} differs from --function={runtime.function} in "
                            f"--benchmark-flags-file {benchmark_flags_file}")
        inputs = inputs or list(runtime.inputs)
        parameters = [*runtime.parameters, *parameters]
        function = function or runtime.function
    call = CallInputs(tuple(parse_input(text) for text in inputs), tuple(parse_parameters(p) for p in parameters),
                      ints)
    return ModelCall(call, compile_flags, function)
