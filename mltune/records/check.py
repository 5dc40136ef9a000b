"""What a usable dataset record is: the type of every field a reader trusts, and the cross-field checks.

Records come from files anyone can edit or truncate (and from other tuners, through importers), so
every reader goes through `RecordChecker` before it trusts a field: a record with a string
`time_us`, `knobs` that are not an object or a problem whose loop indices point past its bounds
is skipped, not a crash of `train`, `evaluate` or `tune`. (A JSON Schema validator said the same,
too slowly for a dataset that `tune` reads on every run, `docs/usage.md`: these are plain checks.)
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from mltune.frontend.problem import Problem
from mltune.targets.stored import facts_from_record

STATUSES = ("ok", "compile_error", "run_error", "timeout", "wrong_result", "not_applied")
LOOP_FIELDS = ("batch", "m", "n", "k", "k2", "filter_loops")  # positions in `bounds`


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _list_of(item: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, list) and all(item(x) for x in value)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


_Check = tuple[Callable[[Any], bool], str]
_INDICES: _Check = (_list_of(lambda x: _is_int(x) and x >= 0), "a list of non-negative integers")
_STRINGS: _Check = (_list_of(_is_str), "a list of strings")
_STRING: _Check = (_is_str, "a string")
_TIMES: _Check = (_list_of(_is_number), "a list of numbers")

RECORD_FIELDS: dict[str, _Check] = {  # required
    "arch": _STRING,
    "pipeline": _STRING,
    "problem": (lambda v: isinstance(v, dict), "an object"),
    "knobs": (lambda v: isinstance(v, dict) and all(_is_int(x) for x in v.values()), "an object of integers"),
    "status": (lambda v: v in STATUSES, f"one of {', '.join(STATUSES)}"),
    "time_us": _TIMES,
    "baseline_us": _TIMES,
}
OPTIONAL_FIELDS: dict[str, _Check] = {
    "device": _STRING,
    "ranker": _STRING,
    "run_id": _STRING,
    "level": _STRING,
    "screen": _STRING,
    "detail": _STRING,
    "compiler": _STRING,
    "position": (_is_int, "an integer"),
    "timestamp": (_is_number, "a number"),
}
_SHAPES: _Check = (_list_of(_list_of(lambda x: _is_int(x) and x > 0)), "a list of lists of positive integers")
_BY_TYPE = {"tuple[int, ...]": _INDICES, "tuple[str, ...]": _STRINGS, "tuple[tuple[int, ...], ...]": _SHAPES}
PROBLEM_FIELDS: dict[str, _Check] = {
    field.name: _BY_TYPE.get(str(field.type), _STRING) for field in dataclasses.fields(Problem)
}
PROBLEM_REQUIRED = tuple(field.name for field in dataclasses.fields(Problem) if field.default is dataclasses.MISSING)


def _field_error(data: dict, name: str, check: _Check, where: str) -> str | None:
    accept, expected = check
    return None if accept(data[name]) else f"{where}{name} is not {expected}"


def _problem_error(problem: dict) -> str | None:
    missing = [name for name in PROBLEM_REQUIRED if name not in problem]
    unknown = [name for name in problem if name not in PROBLEM_FIELDS]
    if missing or unknown:
        return f"problem lacks {missing[0]}" if missing else f"problem has an unknown field {unknown[0]!r}"[:200]
    for name, value in problem.items():
        error = _field_error(problem, name, PROBLEM_FIELDS[name], "problem/")
        if error:
            return error
    if not problem["bounds"]:
        return "problem/bounds is empty"
    for name in LOOP_FIELDS:
        if any(loop >= len(problem["bounds"]) for loop in problem.get(name, ())):
            return f"problem/{name}: a loop index past the {len(problem['bounds'])} bounds"
    return None


class RecordChecker:
    """Says why a record (one parsed JSON line) cannot be used, or None when it can. The problems
    and targets it found good are remembered: a dataset file holds many records of one problem, checked once."""

    def __init__(self) -> None:
        self._good_problems: list[dict] = []
        self._good_targets: list[dict] = []

    def __call__(self, record: Any) -> str | None:
        if not isinstance(record, dict):
            return f"a record is a JSON object, not {type(record).__name__}"
        missing = [name for name in RECORD_FIELDS if name not in record]
        if missing:
            return f"no {missing[0]}"
        checks = [*RECORD_FIELDS.items(), *((n, c) for n, c in OPTIONAL_FIELDS.items() if n in record)]
        error = next((e for name, check in checks if (e := _field_error(record, name, check, ""))), None)
        if error:
            return error
        if record["problem"] not in self._good_problems:
            error = _problem_error(record["problem"])
            if error:
                return error
            self._good_problems = [record["problem"], *self._good_problems[:7]]
        target = record.get("target")
        if target is not None and target not in self._good_targets:
            try:
                facts_from_record(target)
            except (TypeError, KeyError, ValueError) as err:
                return f"target: {err!r}"[:200]
            self._good_targets = [target, *self._good_targets[:7]]
        return None
