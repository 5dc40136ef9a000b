"""Flags files, as the SHARK tuner takes them (`--compile-flags-file`, `--model-benchmark-flags-file`) and as IREE's
tools read a `--flagfile`: one flag per line, surrounding blanks ignored, blank lines and lines starting with `#`
or `//` skipped. Relative paths in a file resolve against the current directory, as in IREE's tools.

A compile flags file holds `iree-compile` flags, added to every build. A benchmark flags file holds the runtime
flags that say how to call the model: `--input=`, `--parameters=` and `--function=`; any other is refused, since
mltune would silently not apply it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from mltune.errors import UserError
from mltune.input.files import ParameterArchive

PARAMETER_FORMATS = (".irpa", ".gguf", ".safetensors")
RUNTIME_FLAGS = ("input", "parameters", "function")


def _flag_lines(path: Path, option: str) -> list[tuple[int, str]]:
    """(line number, flag) for every flag line of the file."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise UserError(f"cannot read {option} {path}: {getattr(err, 'strerror', None) or err}") from None
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith(("#", "//")):
            continue
        if not line.startswith("--") or len(line) < 3:
            raise UserError(f"{option} {path}:{number}: {line!r} is not a flag (one --flag=value per line)")
        lines.append((number, line))
    return lines


def read_compile_flags(path: Path) -> tuple[str, ...]:
    """The `iree-compile` flags of a compile flags file."""
    return tuple(line for _, line in _flag_lines(path, "--compile-flags-file"))


@dataclass(frozen=True)
class RuntimeFlags:
    """The calls' flags of a benchmark flags file, as IREE's tools spell them."""

    inputs: tuple[str, ...] = ()
    parameters: tuple[str, ...] = ()
    function: str | None = None


def read_runtime_flags(path: Path) -> RuntimeFlags:
    """`--input=`, `--parameters=` and `--function=` lines of a benchmark flags file."""
    found: dict[str, list[str]] = {name: [] for name in RUNTIME_FLAGS}
    for number, line in _flag_lines(path, "--benchmark-flags-file"):
        name, _, value = line[2:].partition("=")
        if name.strip() not in found:
            raise UserError(
                f"--benchmark-flags-file {path}:{number}: mltune does not take --{name.strip()} (only "
                f"{', '.join('--' + n for n in RUNTIME_FLAGS)}); remove the line"
            )
        found[name.strip()].append(value.strip())
    if len(found["function"]) > 1:
        raise UserError(f"--benchmark-flags-file {path}: --function is given {len(found['function'])} times")
    if not any(found.values()):
        print(
            f"warning: --benchmark-flags-file {path} holds no flag: the model's inputs are generated", file=sys.stderr
        )
    return RuntimeFlags(
        tuple(found["input"]), tuple(found["parameters"]), found["function"][0] if found["function"] else None
    )


def parse_parameters(text: str) -> ParameterArchive:
    """IREE's `--parameters=[SCOPE=]FILE`, with the file checked to exist and to be a format IREE reads; its path
    made absolute, for the processes that load it from other folders (Ray workers)."""
    scope, sep, path = text.partition("=")
    given = Path(path if sep else scope)
    if given.suffix not in PARAMETER_FORMATS:
        raise UserError(f"--parameters {text!r}: IREE reads parameters from {', '.join(PARAMETER_FORMATS)} files")
    if not given.is_file():
        why = "a folder" if given.is_dir() else "not found"
        raise UserError(f"--parameters {text!r}: cannot read {given}: {why}")
    return ParameterArchive(scope if sep else "", given.absolute())
