"""Function arguments on disk, readable without the compiler (the timing worker loads them)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from mltune.errors import UserError

NUMPY_TYPES = {
    "f32": np.float32,
    "f16": np.float16,
    "f64": np.float64,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "i1": np.bool_,
}


def numpy_type(name: str):
    if name == "bf16":
        import ml_dtypes  # shipped with iree-base-runtime

        return ml_dtypes.bfloat16
    if name not in NUMPY_TYPES:
        raise UserError(f"unsupported function argument element type {name}")
    return NUMPY_TYPES[name]


@dataclass(frozen=True)
class ParameterArchive:
    """Weights kept outside the module: IREE's `--parameters=SCOPE=PATH` (an `.irpa`, `.gguf` or `.safetensors`
    file whose entries the module's globals name as `SCOPE::KEY`)."""

    scope: str
    path: Path

    @property
    def flag(self) -> str:
        """The `--parameters=` flag of IREE's tools for this archive."""
        return f"--parameters={self.scope}={self.path}" if self.scope else f"--parameters={self.path}"


ScopedPath = tuple[str, str]  # one archive as (scope, path), as it travels to a process that runs the model


def scoped_paths(archives: Sequence[ParameterArchive]) -> list[ScopedPath]:
    """The archives as plain pairs, for a request that crosses a process boundary (JSON, command lines)."""
    return [(archive.scope, str(archive.path)) for archive in archives]


@dataclass(frozen=True)
class InputFile:
    """One function argument on disk: `.npy`, or raw `.bin` for bf16 (which `.npy` cannot name)."""

    path: Path
    shape: tuple[int, ...]
    element_type: str

    @property
    def flag(self) -> str:
        """The `--input=` flag of IREE's tools for this file."""
        if self.path.suffix == ".npy":
            return f"--input=@{self.path}"
        return f"--input={'x'.join(map(str, self.shape))}x{self.element_type}=@{self.path}"

    @staticmethod
    def write(directory: Path, index: int, values: np.ndarray, element_type: str) -> InputFile:
        """Argument `index`'s values as `directory/input<index>.npy` (`.bin` for bf16, which `.npy` cannot name)."""
        if element_type == "bf16":
            path = directory / f"input{index}.bin"
            values.tofile(path)
        else:
            path = directory / f"input{index}.npy"
            np.save(path, values)
        return InputFile(path, tuple(values.shape), element_type)

    def load(self) -> np.ndarray:
        if self.path.suffix == ".npy":
            return np.load(self.path)
        return np.fromfile(self.path, dtype=numpy_type(self.element_type)).reshape(self.shape)
