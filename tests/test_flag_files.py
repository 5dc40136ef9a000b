"""Flags files as the SHARK tuner and IREE's tools take them, and a model whose weights are in a parameter archive:
IREE's default build runs with the call mltune writes (its `inputs/flags.txt`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from iree_helpers import run

from mltune.errors import UserError
from mltune.frontend.mlir import new_context
from mltune.input.files import ParameterArchive
from mltune.input.flag_files import RuntimeFlags, parse_parameters, read_compile_flags, read_runtime_flags
from mltune.input.call_inputs import CallInputs
from mltune.input.tuning_input import prepare_input
from mltune.input.specs import parse_input
from mltune.targets import CpuTarget

EXPORTED = Path(__file__).resolve().parent.parent / "examples" / "models" / "exported"


def test_compile_flags_file_skips_blanks_and_comments(tmp_path):
    path = tmp_path / "compile_flags.txt"
    path.write_text(
        "# flags for every build\n\n  --iree-opt-level=O2  \n// IREE's comment style\n"
        "--iree-llvmcpu-target-cpu-features=host\n"
    )
    assert read_compile_flags(path) == ("--iree-opt-level=O2", "--iree-llvmcpu-target-cpu-features=host")
    path.write_text("--iree-opt-level=O2\niree-opt-level=O3\n")
    with pytest.raises(UserError, match=r"compile_flags.txt:2: 'iree-opt-level=O3' is not a flag"):
        read_compile_flags(path)


def test_benchmark_flags_file_of_an_exported_model():
    flags = read_runtime_flags(EXPORTED / "bert_params.flags")
    assert flags == RuntimeFlags(("@bert_params.input0.npy",), ("model=bert_params.irpa",), "main")


def test_benchmark_flags_file_refuses_what_mltune_would_not_apply(tmp_path):
    path = tmp_path / "bench.flags"
    path.write_text("--function=main\n--benchmark_repetitions=5\n")
    with pytest.raises(UserError, match=r"bench.flags:2: mltune does not take --benchmark_repetitions"):
        read_runtime_flags(path)
    path.write_text("--function=main\n--function=forward\n")
    with pytest.raises(UserError, match="--function is given 2 times"):
        read_runtime_flags(path)


def test_parameters_scope_and_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.irpa").write_bytes(b"")
    assert parse_parameters("model=w.irpa") == ParameterArchive("model", tmp_path / "w.irpa")
    assert parse_parameters("w.irpa").flag == f"--parameters={tmp_path / 'w.irpa'}"
    with pytest.raises(UserError, match=r"cannot read gone.irpa: not found"):
        parse_parameters("model=gone.irpa")


def test_default_build_runs_with_the_parameter_archive(tmp_path, monkeypatch):
    """The exported model's weights live in its .irpa: IREE's default build runs with the call mltune wrote
    (function, parameters, the user's input), and cannot run without the archive."""
    folder = tmp_path / "exported"
    folder.mkdir()
    for name in ("bert_params.mlir", "bert_params.irpa", "bert_params.input0.npy", "bert_params.flags"):
        shutil.copy(EXPORTED / name, folder / name)
    monkeypatch.chdir(folder)  # the flags file's relative paths resolve against the current directory
    flags = read_runtime_flags(Path("bert_params.flags"))
    given = CallInputs(
        tuple(parse_input(t) for t in flags.inputs), tuple(parse_parameters(p) for p in flags.parameters)
    )
    work = tmp_path / "run"
    work.mkdir()
    tuning_input = prepare_input(
        Path("bert_params.mlir"), CpuTarget(), work, new_context(), flags.function, given=given
    )
    assert tuning_input.invocation.parameters == (ParameterArchive("model", folder / "bert_params.irpa"),)
    assert tuning_input.arguments == ("tensor<1x32xi64>: --input=@bert_params.input0.npy",)
    call = (work / "inputs" / "flags.txt").read_text().splitlines()
    assert call[:2] == ["--function=main", f"--parameters=model={folder / 'bert_params.irpa'}"]
    module = [shutil.which("iree-run-module"), f"--module={work / 'dispatches' / 'model.vmfb'}", "--device=local-task"]
    ran = run([*module, f"--flagfile={work / 'inputs' / 'flags.txt'}"])
    assert ran.returncode == 0 and "1x32x64xf32" in ran.stdout, ran.stderr[-2000:]
    without = run([*module, *(line for line in call if not line.startswith("--parameters"))])
    assert without.returncode != 0 and "scopes like 'model'" in without.stderr


def test_an_empty_benchmark_flags_file_is_said_in_one_warning(tmp_path, capsys):
    """A flags file with no flag (blank lines and comments only) still reads, and says once that inputs will be
    generated: the user meant to give some."""
    empty = tmp_path / "empty.flags"
    empty.write_text("\n# nothing yet\n")
    assert read_runtime_flags(empty) == RuntimeFlags((), (), None)
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("warning: --benchmark-flags-file") and "inputs are generated" in line
