"""What the user said about calling the model (`CallInputs`), apart from the code that reads the model, so that the
options can be checked before the compiler and the runtime are loaded."""

from __future__ import annotations

from dataclasses import dataclass

from mltune.input.files import ParameterArchive
from mltune.input.int_range import DEFAULT_INT_RANGE, IntRange
from mltune.input.specs import ArgumentShape, InputSpec


@dataclass(frozen=True)
class CallInputs:
    """What the user said about calling the model: `--input` values (none: generated), `--parameters` archives,
    the range of generated integers, and the arguments' shapes (`--shape`: a dynamic model specialised to them)."""

    specs: tuple[InputSpec, ...] = ()
    parameters: tuple[ParameterArchive, ...] = ()
    int_range: IntRange = DEFAULT_INT_RANGE
    shapes: tuple[ArgumentShape, ...] = ()
