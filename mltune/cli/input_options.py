"""`mltune tune`'s options for calling and building the model as IREE's tools and the SHARK tuner take them:
`--input`, `--parameters`, `--int-range`, `--compile-flags-file`, `--benchmark-flags-file` (read by
`mltune.input.call`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from mltune.input.int_range import DEFAULT_INT_RANGE, int_range


def add_input_arguments(tune: argparse.ArgumentParser) -> None:
    tune.add_argument("--input", action="append", default=[], dest="inputs", metavar="VALUE",
                      help="one argument of the model, in the syntax of IREE's tools (iree-run-module --input): "
                           "@file.npy, 1x128xi64=@file.bin (raw), 1x128xi64=1 (one value fills the tensor), "
                           "2xf32=1,2 (values); repeat once per argument, in order. Each is checked against the "
                           "argument types of the compiled model. Default: seeded random values (see --int-range)")
    tune.add_argument("--shape", action="append", default=[], dest="shapes", metavar="TYPES",
                      help="for a model exported with dynamic dimensions: the arguments' types to tune for, in IREE's "
                           "syntax, comma-separated (e.g. 1x128xi64); the model is specialised to them and their "
                           "values generated (see --int-range). Repeat for several shapes: one run each, and one "
                           "spec linking every shape's configs (-o)")
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
