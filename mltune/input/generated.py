"""Seeded random arguments for a function whose user gave none.

Integer arguments of exported models are token ids, positions, attention masks and segment ids: indices that
must lie in a table (an id past the vocabulary reads out of bounds, a negative position is no position) or
flags that must be 0 or 1. So integers are drawn from a small non-negative range, `[0, 2)` unless
`--int-range` says otherwise, valid for every such argument of every model; booleans (i1) are true or
false whatever the range; floats are drawn from [-1, 1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from mltune.errors import UserError
from mltune.input.abi import AbiValue
from mltune.input.files import InputFile, numpy_type
from mltune.input.int_range import DEFAULT_INT_RANGE, IntRange

FLOAT_LOW, FLOAT_HIGH = -1.0, 1.0


def _check_fits(argument: AbiValue, index: int, ints: IntRange) -> None:
    info = np.iinfo(numpy_type(argument.element_type))
    bounds = IntRange(int(info.min), int(info.max) + 1)
    if ints.low < bounds.low or ints.high > bounds.high:
        raise UserError(f"--int-range {ints}: argument {index} ({argument.text}) holds only {bounds.describe()}")


def describe_generated(argument: AbiValue, ints: IntRange) -> str:
    """What a generated argument holds, for the report."""
    dtype = np.dtype(numpy_type(argument.element_type))
    if dtype.kind == "b":
        return f"{argument.text}: generated, booleans (true or false, equally likely)"
    if dtype.kind in "iu":
        return f"{argument.text}: generated, integers uniform in {ints.describe()} (--int-range)"
    return f"{argument.text}: generated, uniform in [{FLOAT_LOW:g}, {FLOAT_HIGH:g})"


def generate_inputs(
    arguments: Sequence[AbiValue], directory: Path, seed: int, ints: IntRange = DEFAULT_INT_RANGE
) -> tuple[InputFile, ...]:
    """One file of seeded random values per argument; each must be a statically shaped tensor."""
    directory.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    files = []
    for index, argument in enumerate(arguments):
        dtype = np.dtype(numpy_type(argument.element_type))
        assert argument.shape is not None and None not in argument.shape
        if dtype.kind == "b":  # a mask: --int-range is for ids and positions
            values = rng.integers(0, 2, size=argument.shape).astype(dtype)
        elif dtype.kind in "iu":
            _check_fits(argument, index, ints)
            values = rng.integers(ints.low, ints.high, size=argument.shape).astype(dtype)
        else:
            values = rng.uniform(FLOAT_LOW, FLOAT_HIGH, size=argument.shape).astype(dtype)
        files.append(InputFile.write(directory, index, values, argument.element_type))
    return tuple(files)
