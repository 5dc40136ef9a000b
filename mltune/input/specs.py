"""`--input` values in the syntax of IREE's tools (`iree-run-module --help`), checked against the function's ABI.

The forms, as IREE's runtime (`runtime/src/iree/tooling/function_io.c`) reads them:
  `@file.npy`          the first array of a numpy file; `+file.npy` the next array of a file read before;
                       `*file.npy` every array left in it, one argument each;
  `2x3xf32=@file.bin`  raw little-endian contents (`+file.bin` continues where the last read stopped);
  `2x3xf32=1 2 3 4 5 6`, `2xf32=1,2`, `2x2xi32=[[1 2][3 4]]`  values, separated by spaces, commas or brackets;
  `1x128xi64=1`        one value fills the tensor (a splat); `4xf32` or `4xf32=` zeros.
Each value becomes one `.npy` (or `.bin` for bf16) file of the run's `inputs/` folder, so that the run holds the
data it measured and every consumer (timing worker, numerics, IREE's own tools) reads the same bytes. A value
whose shape, element type or count does not match the function's arguments is refused in one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Sequence

import numpy as np

from mltune.errors import UserError
from mltune.input.files import InputFile, numpy_type

if TYPE_CHECKING:
    from mltune.input.abi import AbiValue, FunctionAbi

ELEMENT_TYPES = {
    **{f"{s}i{b}": np.dtype(f"{'u' if s == 'u' else ''}int{b}") for s in ("", "s", "u") for b in (8, 16, 32, 64)},
    "i1": np.dtype(np.bool_),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "bf16": None,
}  # bf16: ml_dtypes, loaded when used
SEPARATORS = re.compile(r"[\s,\[\]]+")
REFUSED = {"(null)": "a null reference", "(ignored)": "a null reference", "&": "output storage (`&`)"}


@dataclass(frozen=True)
class InputSpec:
    """One `--input` value, parsed but not yet read."""

    text: str
    mode: str  # "@" a file from its start, "+" where its last read stopped, "*" every array left; "" inline values
    path: Path | None = None
    shape: tuple[int, ...] | None = None  # given for raw files and inline values
    element_type: str = ""
    values: tuple[str, ...] = ()

    @property
    def is_npy(self) -> bool:
        return self.path is not None and self.shape is None


def _shape_and_type(metadata: str, where: str) -> tuple[tuple[int, ...], str]:
    *dims, element = metadata.split("x")
    if element not in ELEMENT_TYPES or not all(d.isdigit() for d in dims):
        raise UserError(
            f"{where}: expected SHAPExTYPE such as 1x128xi64 or 4xf32, got {metadata!r} (types: "
            f"{', '.join(ELEMENT_TYPES)})"
        )
    return tuple(int(d) for d in dims), element


ArgumentShape = tuple[tuple[int, ...], str]  # one argument's dimensions and element type, as `1x128xi64` names them


def parse_shapes(text: str) -> tuple[ArgumentShape, ...]:
    """One `--shape`: every argument's type in IREE's syntax, separated by commas (`1x128xi64,1x128xi1`)."""
    parts = [part.strip() for part in text.split(",")]
    if not text.strip() or not all(parts):
        raise UserError(
            f"--shape {text!r}: expected each argument's SHAPExTYPE, separated by commas, such as "
            "1x128xi64 or 1x128xi64,1x128xi1"
        )
    shapes = []
    for part in parts:
        if "=" in part:
            raise UserError(f"--shape {text!r}: a shape takes no values (give values with --input)")
        shapes.append(_shape_and_type(part, f"--shape {text!r}"))
    return tuple(shapes)


def parse_input(text: str) -> InputSpec:
    """Read one `--input` value (IREE's syntax, see the module docstring); files are checked to exist."""
    value = text.strip()
    for prefix, what in REFUSED.items():
        if value.startswith(prefix):
            raise UserError(f"--input {text!r}: {what} is not an input mltune can time; give a tensor")
    if not value:
        raise UserError("--input: no value given")
    if value[0] in "@+*":
        path = Path(value[1:])
        if path.suffix != ".npy":
            raise UserError(
                f"--input {text!r}: a file without SHAPExTYPE= must be a numpy .npy file; give raw "
                f"contents as SHAPExTYPE=@{path}"
            )
        return InputSpec(text, value[0], _existing(path, text))
    if "=" not in value and "x" not in value:
        raise UserError(f"--input {text!r}: a scalar; mltune times functions of tensor arguments (give SHAPExTYPE=...)")
    metadata, _, contents = value.partition("=")
    shape, element = _shape_and_type(metadata.strip().strip('"'), f"--input {text!r}")
    contents = contents.strip().strip('"')
    if contents[:1] in ("@", "+"):
        return InputSpec(text, contents[0], _existing(Path(contents[1:]), text), shape, element)
    return InputSpec(text, "", None, shape, element, tuple(v for v in SEPARATORS.split(contents) if v))


def _existing(path: Path, text: str) -> Path:
    if not path.is_file():
        raise UserError(f"--input {text!r}: cannot read {path}: {'a folder' if path.is_dir() else 'not found'}")
    return path


def _dtype(element: str) -> np.dtype:
    return np.dtype(numpy_type("bf16")) if element == "bf16" else ELEMENT_TYPES[element]


def _compatible(given: np.dtype, argument: AbiValue) -> bool:
    """IREE's runtime takes a signed or unsigned integer for a signless one, and bytes for i1."""
    wanted = np.dtype(numpy_type(argument.element_type))
    if given == wanted:
        return True
    if argument.element_type == "i1":
        return given in (np.dtype(np.int8), np.dtype(np.uint8))
    return wanted.kind == "i" and given.kind in "iu" and given.itemsize == wanted.itemsize


def _values(spec: InputSpec) -> np.ndarray:
    assert spec.shape is not None
    dtype = _dtype(spec.element_type)
    count = int(np.prod(spec.shape, dtype=np.int64))
    if not spec.values:
        return np.zeros(spec.shape, dtype)
    if len(spec.values) not in (1, count):
        raise UserError(
            f"--input {spec.text!r}: {len(spec.values)} values for {count} elements (give one value to "
            f"fill the tensor, or all {count})"
        )
    if spec.element_type == "i1" and not all(v in ("00", "01") for v in spec.values):
        raise UserError(f"--input {spec.text!r}: IREE's tools read i1 values as bytes in hex: 00 or 01")
    try:
        parsed = [float(v) if dtype.kind in "fV" else int(v) for v in spec.values]
    except ValueError as err:
        raise UserError(f"--input {spec.text!r}: not a {spec.element_type} value: {err}") from None
    array = np.array(parsed if len(parsed) == count else parsed * count)
    return array.astype(dtype).reshape(spec.shape)


@dataclass
class _Files:
    """The files the inputs read, each at the position its last read left it (IREE shares one stream per path)."""

    open: dict[Path, BinaryIO] = field(default_factory=dict)

    def at(self, path: Path, mode: str) -> BinaryIO:
        handle = self.open.get(path)
        if handle is None:
            handle = self.open[path] = open(path, "rb")
        elif mode == "@":
            handle.seek(0)
        return handle

    def close(self) -> None:
        for handle in self.open.values():
            handle.close()


def _npy_arrays(spec: InputSpec, files: _Files) -> list[np.ndarray]:
    assert spec.path is not None
    handle = files.at(spec.path, spec.mode)
    arrays, size = [], spec.path.stat().st_size
    while True:
        if handle.tell() >= size:
            if spec.mode == "*":
                return arrays
            raise UserError(f"--input {spec.text!r}: {spec.path} holds no more arrays")
        try:
            arrays.append(np.load(handle, allow_pickle=False))
        except (ValueError, OSError, EOFError) as err:
            raise UserError(f"--input {spec.text!r}: {spec.path} is not a numpy .npy file ({err})") from None
        if spec.mode != "*":
            return arrays


def _raw_array(spec: InputSpec, files: _Files) -> np.ndarray:
    assert spec.path is not None and spec.shape is not None
    dtype = _dtype(spec.element_type)
    needed = int(np.prod(spec.shape, dtype=np.int64)) * dtype.itemsize
    handle = files.at(spec.path, spec.mode)
    start = handle.tell()
    data = handle.read(needed)
    if len(data) < needed:
        raise UserError(
            f"--input {spec.text!r}: {spec.path} holds {start + len(data)} bytes, "
            f"{'x'.join(map(str, spec.shape))}x{spec.element_type} needs {needed} from byte {start}"
        )
    return np.frombuffer(data, dtype).reshape(spec.shape)


def _read_all(specs: Sequence[InputSpec]) -> list[tuple[InputSpec, np.ndarray]]:
    files = _Files()
    try:
        arrays = []
        for spec in specs:
            if spec.is_npy:
                arrays.extend((spec, a) for a in _npy_arrays(spec, files))
            elif spec.path is not None:
                arrays.append((spec, _raw_array(spec, files)))
            else:
                arrays.append((spec, _values(spec)))
        for path, handle in files.open.items():  # raw bytes no input read: the shape or the file is wrong
            left = path.stat().st_size - handle.tell()
            if path.suffix != ".npy" and left > 0:
                raise UserError(
                    f"--input: {path} holds {left} bytes after the last value read from it; "
                    f"its size does not match the shapes given"
                )
        return arrays
    finally:
        files.close()


def _check(spec: InputSpec, array: np.ndarray, index: int, abi: FunctionAbi) -> None:
    argument = abi.arguments[index]
    where = f"--input {spec.text!r} (argument {index} of @{abi.name}, {argument.text})"
    if not argument.is_tensor:
        raise UserError(f"{where}: not a tensor; mltune times functions of tensor arguments only")
    given = f"{'x'.join(map(str, array.shape))}x{array.dtype}" if array.ndim else f"a scalar {array.dtype}"
    assert argument.shape is not None
    if array.ndim != len(argument.shape) or any(d is not None and d != g for d, g in zip(argument.shape, array.shape)):
        raise UserError(f"{where}: the value is {given}; its shape does not match")
    if not _compatible(array.dtype, argument):
        raise UserError(f"{where}: the value is {given}; its element type does not match")


def materialize_inputs(
    specs: Sequence[InputSpec], abi: FunctionAbi, directory: Path
) -> tuple[tuple[InputFile, ...], tuple[str, ...]]:
    """Read every `--input`, check it against `abi`'s arguments and write it to `directory` as mltune's input
    files (`.npy`; raw `.bin` for bf16); with each, where it came from."""
    arrays = _read_all(specs)
    if len(arrays) != len(abi.arguments):
        raise UserError(
            f"--input: {len(arrays)} given for the {len(abi.arguments)} arguments of @{abi.name} "
            f"({', '.join(a.text for a in abi.arguments)})"
        )
    directory.mkdir(parents=True, exist_ok=True)
    files, origins = [], []
    for index, (spec, array) in enumerate(arrays):
        _check(spec, array, index, abi)
        argument = abi.arguments[index]
        files.append(
            InputFile.write(directory, index, array.view(numpy_type(argument.element_type)), argument.element_type)
        )
        origins.append(f"{argument.text}: --input={spec.text}")
    return tuple(files), tuple(origins)
