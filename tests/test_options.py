"""`mltune tune`'s option table (`mltune.tuning.options.TuneOptions`): the command line's flags, the library's
keywords, the checks and the recorded command line all come from it, and the public API kept its keywords."""

from __future__ import annotations

import inspect
from dataclasses import fields
from pathlib import Path

import pytest

import mltune
from mltune.cli.command import build_parser, main, parse_arguments
from mltune.errors import UserError
from mltune.input.int_range import IntRange
from mltune.tuning.option_forms import check_options, command_line, from_arguments, options_table
from mltune.tuning.options import TuneOptions

# `mltune.tune`'s keywords and defaults before the table generated them: the API must not change.
API_BEFORE = {
    "target": "host",
    "ranker": "learned",
    "budget": 50,
    "time_budget": None,
    "output": None,
    "run_dir": None,
    "dataset_dir": None,
    "model_dir": None,
    "function": None,
    "seed": 0,
    "jobs": None,
    "devices": None,
    "batch": 8,
    "min_speedup": 1.03,
    "near_default": None,
    "top": None,
    "starter_spec": None,
    "flag_search": False,
    "timing": "auto",
    "iree_flags": (),
    "cluster": None,
    "shared_fs": False,
    "compile_only": False,
    "progress": "bar",
    "show_paths": False,
    "command_line": None,
    "inputs": (),
    "parameters": (),
    "int_range": None,
    "compile_flags_file": None,
    "benchmark_flags_file": None,
    "screen": "auto",
    "screen_finalists": 4,
    "shape": None,
}

# Synthetic values, none of them a default, for every option.
GIVEN = {
    "target": "sm_90",
    "ranker": "heuristic",
    "budget": 7,
    "time_budget": 30.5,
    "output": Path("/tmp/s.mlir"),
    "run_dir": Path("/tmp/run"),
    "dataset_dir": Path("/tmp/d"),
    "model_dir": Path("/tmp/m"),
    "function": "forward",
    "seed": 3,
    "jobs": 1,
    "devices": "cuda://0,cuda://1",
    "batch": 4,
    "min_speedup": 1.1,
    "near_default": 0.5,
    "top": 2,
    "starter_spec": Path("/tmp/start.mlir"),
    "flag_search": True,
    "screen": "one-op",
    "screen_finalists": 3,
    "timing": "kernel",
    "iree_flags": ("--iree-opt-level=O3",),
    "inputs": ("@a.npy", "2xf32=1"),
    "shape": "1x128xi64",
    "parameters": ("model=w.irpa",),
    "int_range": "0:7",
    "compile_flags_file": Path("/tmp/c"),
    "benchmark_flags_file": Path("/tmp/b"),
    "cluster": "auto",
    "shared_fs": True,
    "compile_only": True,
    "progress": "verbose",
}


def test_the_library_keeps_its_keywords_and_defaults():
    parameters = inspect.signature(mltune.tune).parameters
    assert list(parameters)[0] == "model"
    assert {name: p.default for name, p in parameters.items() if name != "model"} == API_BEFORE
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for name, p in parameters.items() if name != "model")
    assert "screen_finalists: with a screen" in mltune.tune.__doc__  # each option's help, from the table


def test_every_option_is_one_field_given_everywhere():
    assert set(GIVEN) == {spec.name for spec in fields(TuneOptions)}
    assert all(f"`{name}`" in options_table() for name in GIVEN)


def test_the_recorded_command_line_gives_back_every_option():
    """A library call's recorded command (for `--resume`) parses back into the same options."""
    options = TuneOptions.of(**GIVEN)
    args = parse_arguments(command_line(Path("/tmp/model.mlir"), options))
    back = from_arguments(args)
    assert back.pop("shape") == ["1x128xi64"] and back.pop("int_range") == IntRange(0, 7)
    expected = {name: value for name, value in GIVEN.items() if name not in ("shape", "int_range")}
    assert {name: tuple(v) if isinstance(v, list) else v for name, v in back.items()} == expected
    assert args.input == Path("/tmp/model.mlir")


def test_the_command_line_defaults_are_the_librarys_but_where_the_table_says():
    defaults = from_arguments(build_parser().parse_args(["tune", "m.mlir"]))
    assert defaults.pop("output") == Path("best_spec.mlir")  # the library writes to the run folder alone
    assert defaults.pop("int_range") == IntRange(0, 2) and defaults.pop("shape") == []
    assert {name: tuple(v) if isinstance(v, list) else v for name, v in defaults.items()} == {
        name: value
        for name, value in API_BEFORE.items()
        if name not in ("output", "int_range", "shape", "show_paths", "command_line")
    }


@pytest.mark.parametrize(
    "given, message",
    [
        ({"budget": 0}, "--budget: "),
        ({"iree_flags": ["--iree-opt-level=O3", "opt"]}, "--iree-flag: "),
        ({"screen": "model"}, "--screen: expected one of auto, none, dispatch, one-op, got 'model'"),
        ({"progress": "loud"}, "progress: expected one of bar, quiet, verbose, got 'loud'"),
        ({"near_default": 2}, "--near-default: "),
    ],
)
def test_a_library_call_is_checked_as_the_command_line_is(given, message):
    with pytest.raises(UserError) as refused:
        check_options(TuneOptions.of(**given))
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


def test_an_unknown_keyword_is_bad_input(tmp_path, capsys):
    with pytest.raises(UserError, match="unknown option 'budgets'"):
        mltune.tune(tmp_path / "m.mlir", budgets=3)
    assert main(["tune", str(tmp_path / "m.mlir"), "--budgets", "3"]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_a_list_of_devices_and_paths_as_text_are_taken():
    options = TuneOptions.of(devices=["cuda://0", "cuda://1"], output="s.mlir", iree_flags=["--a=1"])
    assert options.devices == "cuda://0,cuda://1" and options.output == Path("s.mlir")
    assert options.iree_flags == ("--a=1",)
    assert TuneOptions.of(inputs="@ids.npy").inputs == ("@ids.npy",)  # one value, not its characters
