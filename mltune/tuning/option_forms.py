"""What is generated from `mltune tune`'s option table (`mltune.tuning.options.TuneOptions`): the command line's
flags and their help, the library's signature and documentation, a library call's checks (the command line's, with
the same messages), the command line recorded for `--resume`, and the options' table on the docs site."""

from __future__ import annotations

import argparse
import inspect
import os
from dataclasses import fields
from pathlib import Path
from typing import Any, Callable

from mltune.errors import UserError
from mltune.tuning.option_fields import SAME
from mltune.tuning.options import TuneOptions


def _options() -> tuple[Any, ...]:
    """The table's fields, in their declared order."""
    return fields(TuneOptions)


GENERIC_PLACES = {
    "rankers": "one of `mltune.rankers.ranker_names()`",
    "runs": "MLTUNE_HOME/runs",
    "datasets": "MLTUNE_HOME/datasets",
    "models": "MLTUNE_HOME/models",
    "shipped": "models",
}


def help_text(spec: Any, places: dict[str, Any] = GENERIC_PLACES) -> str:
    """An option's help, its ranker names and the data home's folders said generically or (`installed_places`)
    as this installation has them."""
    return spec.metadata["help"].format(**places)


def installed_places() -> dict[str, Any]:
    """This installation's rankers and folders, for `--help`."""
    from mltune.rankers import ranker_names
    from mltune.system.paths import SHIPPED_MODELS, user_datasets, user_models, user_runs

    return {
        "rankers": ", ".join(ranker_names()),
        "runs": user_runs(),
        "datasets": user_datasets(),
        "models": user_models(),
        "shipped": SHIPPED_MODELS,
    }


def checked(check: Callable[[str], Any], value: Any, name: str) -> Any:
    """`value` through one of the command line's checks of a value's text (`mltune.input.checks`), for a library call,
    which passes no parser: the same message, prefixed with the option (`seed` or `--seed`)."""
    try:
        return check(str(value))
    except argparse.ArgumentTypeError as err:
        raise UserError(f"{name if name.startswith('-') else '--' + name.replace('_', '-')}: {err}") from None


def check_options(options: TuneOptions) -> None:
    """What argparse checks on the command line, checked again for a library call (the same messages)."""
    for spec in _options():
        flag, value = spec.metadata["flag"], getattr(options, spec.name)
        shown = flag.shown or spec.name
        if value is None or flag.switch or flag.check is Path:
            continue
        if flag.choices and value not in flag.choices:
            raise UserError(f"{shown}: expected one of {', '.join(flag.choices)}, got {value!r}")
        if flag.check is not None:
            for each in flag.each(value):
                checked(flag.check, each, shown)


def add_tune_options(parser: argparse.ArgumentParser) -> None:
    """Every option as the command line's flag, with its check, default and help."""
    places = installed_places()
    for spec in _options():
        flag, help_line = spec.metadata["flag"], help_text(spec, places).replace("%", "%%")
        default = spec.default if flag.cli_default is SAME else flag.cli_default
        if flag.values:
            group = parser.add_mutually_exclusive_group()
            for short, long, value, said in flag.values:
                group.add_argument(
                    short, long, action="store_const", const=value, dest=spec.name, default=default, help=said
                )
            continue
        extra: dict[str, Any] = {"dest": flag.cli_dest or spec.name, "help": help_line}
        if flag.switch:
            parser.add_argument(*flag.names, action="store_true", **extra)
            continue
        if flag.repeat or flag.run_each:
            extra.update(action="append", default=list(default))
        else:
            extra["default"] = default
        if flag.check is not None:
            extra["type"] = flag.check
        if flag.choices:
            extra["choices"] = list(flag.choices)
        parser.add_argument(*flag.names, metavar=flag.metavar, **extra)


def from_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """The library's keywords from the parsed command line (a repeated `--shape` as its list, under `shape`)."""
    return {spec.name: getattr(args, spec.metadata["flag"].cli_dest or spec.name) for spec in _options()}


def command_line(model: Path, options: TuneOptions) -> list[str]:
    """The equivalent `mltune tune` command line, with absolute paths (recorded in the run's state, so that
    `mltune tune --resume` continues a run a library call started)."""
    line = ["tune", os.path.abspath(model)]
    for spec in _options():
        flag, value = spec.metadata["flag"], getattr(options, spec.name)
        if flag.values:
            line += [short for short, _, shown, _ in flag.values if shown == value]
        elif flag.switch:
            line += [flag.shown] if value else []
        elif value is None:
            continue
        elif flag.repeat:
            line += [f"{flag.shown}={each}" for each in flag.each(value)]
        else:
            line += [flag.shown, os.path.abspath(value) if isinstance(value, Path) else str(value)]
    return line


def documented(function: Callable[..., Any]) -> Callable[..., Any]:
    """`function(..., **options)` given a signature with each option as a keyword and its default, and every
    option's help after its docstring (what `help()`, `inspect` and editors show)."""
    own = inspect.signature(function)
    kept = [p for p in own.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    positional = [p for p in kept if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    keywords = [
        inspect.Parameter(spec.name, inspect.Parameter.KEYWORD_ONLY, default=spec.default, annotation=spec.type)
        for spec in _options()
    ]
    function.__signature__ = own.replace(parameters=[*positional, *keywords, *(p for p in kept if p not in positional)])
    table = "\n".join(f"        {spec.name}: {help_text(spec)}" for spec in _options())
    function.__doc__ = f"{function.__doc__}\n    Options (`mltune.tuning.options.TuneOptions`):\n{table}\n"
    return function


def options_table() -> str:
    """The options as a Markdown table (keyword, flag, default, help), for the reference page."""
    rows = ["| keyword | flag | default | what it sets |", "| --- | --- | --- | --- |"]
    for spec in _options():
        flag = spec.metadata["flag"]
        flags = " ".join(f"`{name}`" for name in (flag.names or [long for _, long, _, _ in flag.values]))
        rows.append(f"| `{spec.name}` | {flags} | `{spec.default!r}` | {help_text(spec)} |")
    return "\n".join(rows)
