"""The vocabulary of an option table: how one option is declared (`option`), and how it appears on the command
line (`Flag`); `mltune.tuning.options` declares `tune`'s, `mltune.tuning.option_forms` reads them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

SAME = object()  # a command-line default that is the keyword's


@dataclass(frozen=True)
class Flag:
    """How an option appears on the command line.

    Attributes:
        names: Its flags (`-o`, `--output`); none: a keyword of the library alone.
        check: The value's check and conversion from text (`mltune.input.checks`), shared by both.
        metavar: The value's name in `--help`.
        choices: The values allowed.
        repeat: Given once per value (`--input A --input B`); the keyword takes a sequence.
        run_each: Repeatable on the command line, one run per value (`tune_shapes`); the keyword takes one.
        switch: Given without a value: True when present.
        joined: Several values in one, comma-separated; the keyword also takes a list.
        cli_default: The command line's default where it differs from the keyword's.
        cli_dest: The command line's attribute where it differs from the keyword (a list for a repeated flag).
        values: For a choice given by flags of its own (`-q` for "quiet"): each one's flags, value and help.
    """

    names: tuple[str, ...] = ()
    check: Callable[[str], Any] | None = None
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    repeat: bool = False
    run_each: bool = False
    switch: bool = False
    joined: bool = False
    cli_default: Any = SAME
    cli_dest: str | None = None
    values: tuple[tuple[str, str, str, str], ...] = ()

    @property
    def shown(self) -> str:
        return self.names[-1] if self.names else ""

    def each(self, value: Any) -> tuple[Any, ...]:
        """A repeated option's values (one text is one value, not its characters); any other option's value alone."""
        return tuple(value) if self.repeat and not isinstance(value, str) else (value,)


def option(default: Any, help: str, *names: str, **flag: Any) -> Any:
    """A `TuneOptions` field: its default, its help (one text for `--help` and the API's documentation) and flags."""
    return field(default=default, metadata={"help": help, "flag": Flag(names, **flag)})
