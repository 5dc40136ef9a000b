"""Bad input to `mltune tune`: exit code 2 and exactly one line on stderr, never a traceback."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from iree_helpers import matmul_source, mltune, run, trial_record_files

from mltune.cli.command import main
from mltune.system.tools import tool_path

TINY = matmul_source(32, 64, 48)
# a 2x2 sum pooling: a convolution-like root op with no channel loops, which no llvm-cpu space tunes
SUM_POOLING = """func.func @main(%x: tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %window = tensor.empty() : tensor<2x2xf32>
  %empty = tensor.empty() : tensor<1x4x4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %r = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%x, %window : tensor<1x8x8x16xf32>, tensor<2x2xf32>) outs(%acc : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %r : tensor<1x4x4x16xf32>
}
"""

ADD = """func.func @main(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = arith.addf %a, %b : tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
"""

DYNAMIC = """func.func @main(%lhs: tensor<?x64xf32>, %rhs: tensor<64x48xf32>) -> tensor<?x48xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %d = tensor.dim %lhs, %c0 : tensor<?x64xf32>
  %empty = tensor.empty(%d) : tensor<?x48xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x48xf32>) -> tensor<?x48xf32>
  %r = linalg.matmul ins(%lhs, %rhs : tensor<?x64xf32>, tensor<64x48xf32>) outs(%acc : tensor<?x48xf32>) -> tensor<?x48xf32>
  return %r : tensor<?x48xf32>
}
"""

# the torch dialect as iree-turbine writes it, with a dynamic batch
TORCH_DYNAMIC = """func.func @main(%x: !torch.vtensor<[?,16],f32>) -> !torch.vtensor<[?,16],f32> {
  %0 = torch.aten.tanh %x : !torch.vtensor<[?,16],f32> -> !torch.vtensor<[?,16],f32>
  return %0 : !torch.vtensor<[?,16],f32>
}
"""

COMPLEX = """func.func @main(%lhs: tensor<8x8xcomplex<f32>>, %rhs: tensor<8x8xcomplex<f32>>) -> tensor<8x8xcomplex<f32>> {
  %empty = tensor.empty() : tensor<8x8xcomplex<f32>>
  %r = linalg.matmul ins(%lhs, %rhs : tensor<8x8xcomplex<f32>>, tensor<8x8xcomplex<f32>>) outs(%empty : tensor<8x8xcomplex<f32>>) -> tensor<8x8xcomplex<f32>>
  return %r : tensor<8x8xcomplex<f32>>
}
"""


def npy_bytes(array: np.ndarray) -> bytes:
    """A `.npy` file's contents."""
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


# the model's arguments and how to call it (TINY takes tensor<32x64xf32>, tensor<64x48xf32>): `--input` in the syntax
# of IREE's tools, parameter archives and flags files; synthetic values
INPUT_CASES = {
    "input_file_missing": ({"mm.mlir": TINY}, ["mm.mlir", "--input=@nope.npy"], ["--input '@nope.npy'", "not found"]),
    "input_not_npy": ({"mm.mlir": TINY, "a.bin": b"1234"}, ["mm.mlir", "--input=@a.bin"], ["SHAPExTYPE=@a.bin"]),
    "input_unknown_type": ({"mm.mlir": TINY}, ["mm.mlir", "--input=32x64xq7=1"], ["'32x64xq7'", "SHAPExTYPE"]),
    "input_scalar": ({"mm.mlir": TINY}, ["mm.mlir", "--input=3"], ["a scalar"]),
    "input_null": ({"mm.mlir": TINY}, ["mm.mlir", "--input=(null)"], ["null reference"]),
    "input_values_count": (
        {"mm.mlir": TINY},
        ["mm.mlir", "--input=32x64xf32=1,2,3", "--input=64x48xf32=1"],
        ["3 values for 2048 elements"],
    ),
    "input_count": ({"mm.mlir": TINY}, ["mm.mlir", "--input=32x64xf32=1"], ["1 given for the 2 arguments of @main"]),
    "input_shape": (
        {"mm.mlir": TINY},
        ["mm.mlir", "--input=32x64xf32=1", "--input=48x64xf32=1"],
        ["argument 1 of @main, tensor<64x48xf32>", "48x64xfloat32", "shape does not match"],
    ),
    "input_element_type": (
        {"mm.mlir": TINY, "a.npy": npy_bytes(np.zeros((32, 64), np.int64))},
        ["mm.mlir", "--input=@a.npy", "--input=64x48xf32=0"],
        ["argument 0 of @main, tensor<32x64xf32>", "32x64xint64", "element type does not match"],
    ),
    "input_raw_too_short": (
        {"mm.mlir": TINY, "a.bin": bytes(100)},
        ["mm.mlir", "--input=32x64xf32=@a.bin"],
        ["a.bin holds 100 bytes", "needs 8192"],
    ),
    "input_npy_exhausted": (
        {"mm.mlir": TINY, "a.npy": npy_bytes(np.zeros((32, 64), np.float32))},
        ["mm.mlir", "--input=@a.npy", "--input=+a.npy"],
        ["a.npy holds no more arrays"],
    ),
    "parameters_missing": (
        {"mm.mlir": TINY},
        ["mm.mlir", "--parameters=model=nope.irpa"],
        ["--parameters 'model=nope.irpa'", "nope.irpa: not found"],
    ),
    "parameters_format": ({"mm.mlir": TINY, "w.bin": b"x"}, ["mm.mlir", "--parameters=w.bin"], [".irpa"]),
    "int_range_reversed": ({"mm.mlir": TINY}, ["mm.mlir", "--int-range", "5:1"], ["--int-range", "LOW < HIGH"]),
    "int_range_past_i8": (
        {"mm.mlir": matmul_source(32, 64, 48, "i8", "i32")},
        ["mm.mlir", "--int-range", "0:300"],
        ["--int-range 0:300", "tensor<32x64xi8>", "[-128, 128)"],
    ),
    "benchmark_flag_unknown": (
        {"mm.mlir": TINY, "run.flags": "# how to call it\n--device=hip://0\n"},
        ["mm.mlir", "--benchmark-flags-file", "run.flags"],
        ["run.flags:2", "--device", "--input, --parameters, --function"],
    ),
    "benchmark_flags_not_a_flag": (
        {"mm.mlir": TINY, "run.flags": "input=@a.npy\n"},
        ["mm.mlir", "--benchmark-flags-file", "run.flags"],
        ["run.flags:1", "not a flag"],
    ),
    "benchmark_flags_missing_parameters": (
        {"mm.mlir": TINY, "run.flags": "--parameters=model=gone.irpa\n"},
        ["mm.mlir", "--benchmark-flags-file", "run.flags"],
        ["gone.irpa: not found"],
    ),
    "inputs_in_both_places": (
        {"mm.mlir": TINY, "run.flags": "--input=32x64xf32=1\n--input=64x48xf32=1\n"},
        ["mm.mlir", "--benchmark-flags-file", "run.flags", "--input=32x64xf32=1"],
        ["not in both"],
    ),
    "compile_flags_file_missing": (
        {"mm.mlir": TINY},
        ["mm.mlir", "--compile-flags-file", "nope.txt"],
        ["--compile-flags-file nope.txt", "not found"],
    ),
    "compile_flag_rejected_by_iree": (
        {"mm.mlir": TINY, "c.txt": "--iree-no-such-flag=1\n"},
        ["mm.mlir", "--compile-flags-file", "c.txt"],
        ["cannot compile", "no-such-flag"],
    ),
}

# name: (files to write, arguments after `tune`, words the message must contain)
CASES = {
    "missing_file": ({}, ["nope.mlir"], ["not found", "nope.mlir"]),
    "malformed_mlir": (
        {"bad.mlir": "func.func @main( { this is not mlir\n"},
        ["bad.mlir"],
        ["cannot compile bad.mlir"],
    ),
    "nothing_tunable": (
        {"add.mlir": ADD},
        ["add.mlir"],
        ["nothing tunable", "elementwise ops are tuned on GPU targets only"],
    ),
    # f64 is demoted to f32 by IREE (and tuned as such); i16 reaches the dispatch unchanged
    "unsupported_element_type": (
        {"mm.mlir": matmul_source(32, 64, 48, "i16", "i16")},
        ["mm.mlir"],
        ["unsupported element type i16"],
    ),
    "complex_arguments": ({"mm.mlir": COMPLEX}, ["mm.mlir"], ["complex<f32>"]),
    "torch_dynamic_batch": (
        {"m.mlir": TORCH_DYNAMIC},
        ["m.mlir"],
        [
            "@main has dynamic dimensions (argument 0 is tensor<?x16xf32>): name the shapes to tune "
            "for, e.g. --shape 128x16xf32",
            "--input",
        ],
    ),
    "dynamic_shapes": (
        {"mm.mlir": DYNAMIC},
        ["mm.mlir"],
        ["@main has dynamic dimensions (argument 0 is tensor<?x64xf32>)", "--shape 128x64xf32,64x48xf32"],
    ),
    "shape_contradicts_model": (
        {"m.mlir": TORCH_DYNAMIC},
        ["m.mlir", "--shape", "4x8xf32"],
        ["--shape 4x8xf32: argument 0 of @main is tensor<?x16xf32>", "contradicts"],
    ),
    "shape_wrong_element_type": (
        {"m.mlir": TORCH_DYNAMIC},
        ["m.mlir", "--shape", "4x16xf16"],
        ["element type f16 given for f32"],
    ),
    "shape_typo": ({"m.mlir": TORCH_DYNAMIC}, ["m.mlir", "--shape", "4x16xf3"], ["--shape '4x16xf3'", "SHAPExTYPE"]),
    "shape_empty_bucket": ({"m.mlir": TORCH_DYNAMIC}, ["m.mlir", "--shape", "4x16xf32,"], ["--shape", "commas"]),
    "shape_count": ({"mm.mlir": DYNAMIC}, ["mm.mlir", "--shape", "8x64xf32"], ["1 shapes for the 2 arguments"]),
    "shape_and_input": (
        {"m.mlir": TORCH_DYNAMIC},
        ["m.mlir", "--shape", "4x16xf32", "--input", "4x16xf32=1"],
        ["--input values or its --shape, not both"],
    ),
    "shape_twice": (
        {"m.mlir": TORCH_DYNAMIC},
        ["m.mlir", "--shape", "4x16xf32", "--shape", "4x16xf32"],
        ["given twice"],
    ),
    "shape_of_static_model": ({"mm.mlir": TINY}, ["mm.mlir", "--shape", "32x64xf32,64x8xf32"], ["contradicts"]),
    "top_zero": ({"mm.mlir": TINY}, ["mm.mlir", "--top", "0"], ["--top", "positive integer"]),
    "starter_spec_missing": (
        {"mm.mlir": TINY},
        ["mm.mlir", "--starter-spec", "nope.mlir"],
        ["--starter-spec", "nope.mlir", "cannot read"],
    ),
    "starter_spec_malformed": (
        {"mm.mlir": TINY, "s.mlir": "module { nope"},
        ["mm.mlir", "--starter-spec", "s.mlir"],
        ["--starter-spec", "not valid MLIR"],
    ),
    "starter_spec_without_entrypoint": (
        {"mm.mlir": TINY, "s.mlir": "module attributes {transform.with_named_sequence} {\n}\n"},
        ["mm.mlir", "--starter-spec", "s.mlir"],
        ["does not compile with --starter-spec"],
    ),
    "iree_flag_not_a_flag": ({"mm.mlir": TINY}, ["mm.mlir", "--iree-flag", "O3"], ["--iree-flag", "'O3'"]),
    "batch_zero": ({"mm.mlir": TINY}, ["mm.mlir", "--batch", "0"], ["--batch", "positive integer"]),
    "budget_zero": ({"mm.mlir": TINY}, ["mm.mlir", "--budget", "0"], ["--budget", "positive integer"]),
    "budget_negative": ({"mm.mlir": TINY}, ["mm.mlir", "--budget", "-3"], ["--budget", "'-3'"]),
    "budget_not_a_number": ({"mm.mlir": TINY}, ["mm.mlir", "--budget", "abc"], ["--budget", "'abc'"]),
    "time_budget_zero": ({"mm.mlir": TINY}, ["mm.mlir", "--time-budget", "0"], ["--time-budget"]),
    "min_speedup_below_one": ({"mm.mlir": TINY}, ["mm.mlir", "--min-speedup", "0.5"], [">= 1"]),
    "unknown_ranker": ({"mm.mlir": TINY}, ["mm.mlir", "--ranker", "bogus"], ["bogus", "shuffle", "heuristic"]),
    # no GPU on this machine: the runtime cannot open the device, and says how to go on without one
    "rocm_without_device": ({"mm.mlir": TINY}, ["mm.mlir", "--target", "gfx942"], ["hip://0", "--compile-only"]),
    "starter_spec_on_cuda": (
        {"mm.mlir": TINY, "s.mlir": "module attributes {transform.with_named_sequence} {\n}\n"},
        ["mm.mlir", "--target", "sm_80", "--starter-spec", "s.mlir"],
        ["--starter-spec", "ignores tuning specs on CUDA"],
    ),
    "cuda_without_device": ({"mm.mlir": TINY}, ["mm.mlir", "--target", "sm_80"], ["cuda://0", "--compile-only"]),
    "unknown_device": ({"mm.mlir": TINY}, ["mm.mlir", "--devices", "nodriver://3"], ["nodriver://3"]),
    "unknown_rocm_target": ({"mm.mlir": TINY}, ["mm.mlir", "--target", "gfx9999"], ["gfx9999", "Unknown ROCM target"]),
    "unknown_cuda_target": ({"mm.mlir": TINY}, ["mm.mlir", "--target", "sm_99"], ["sm_99", "missing GPU target"]),
    "cuda_before_sm80": ({"mm.mlir": TINY}, ["mm.mlir", "--target", "sm_75"], ["sm_75", "sm_80"]),
    "gpu_api_as_target": ({"mm.mlir": TINY}, ["mm.mlir", "--target", "cuda"], ["unknown --target cuda"]),
    "forest_without_model": (
        {"mm.mlir": TINY},
        ["mm.mlir", "--ranker", "random-forest", "--model-dir", "no_models"],
        ["no random-forest model", "mltune train --arch"],
    ),
    "invalid_target_name": ({"mm.mlir": TINY}, ["mm.mlir", "--target", "not a cpu"], ["--target"]),
    "output_parent_is_a_file": (
        {"mm.mlir": TINY, "afile": "x"},
        ["mm.mlir", "-o", "afile/spec.mlir"],
        ["cannot write", "afile/spec.mlir"],
    ),
    "output_under_proc": ({"mm.mlir": TINY}, ["mm.mlir", "-o", "/proc/x/spec.mlir"], ["cannot write"]),
    "output_is_a_directory": ({"mm.mlir": TINY, "outdir/keep": ""}, ["mm.mlir", "-o", "outdir"], ["cannot write"]),
    "unknown_function": ({"mm.mlir": TINY}, ["mm.mlir", "--function", "nope"], ["@nope", "main"]),
    "binary_input": ({"model.mlir": b"\xff\xfe\x00\x81 not text"}, ["model.mlir"], ["model.mlir"]),
    "input_is_a_directory": ({"somedir/keep": ""}, ["somedir"], ["somedir is a folder, not a file"]),
    "starter_spec_is_a_directory": (
        {"mm.mlir": TINY, "s/keep": ""},
        ["mm.mlir", "--starter-spec", "s"],
        ["--starter-spec", "is a folder"],
    ),
    "output_under_a_file_deeper": (
        {"mm.mlir": TINY, "afile": "x"},
        ["mm.mlir", "-o", "afile/a/b/spec.mlir"],
        ["cannot write -o", "afile is a file, not a folder"],
    ),
    "run_dir_is_a_file": (
        {"mm.mlir": TINY, "afile": "x"},
        ["mm.mlir", "--run-dir", "afile"],
        ["cannot write --run-dir afile", "is a file, not a folder"],
    ),
    "run_dir_under_a_file": (
        {"mm.mlir": TINY, "afile": "x"},
        ["mm.mlir", "--run-dir", "afile/run"],
        ["cannot write --run-dir", "is a file"],
    ),
    "run_dir_under_sys": ({"mm.mlir": TINY}, ["mm.mlir", "--run-dir", "/sys/mltune-run"], ["cannot write --run-dir"]),
    "dataset_dir_is_a_file": (
        {"mm.mlir": TINY, "afile": "x"},
        ["mm.mlir", "--dataset-dir", "afile"],
        ["cannot write --dataset-dir afile", "is a file"],
    ),
    "seed_negative": ({"mm.mlir": TINY}, ["mm.mlir", "--seed", "-1"], ["--seed", "from 0 to"]),
    "seed_huge": ({"mm.mlir": TINY}, ["mm.mlir", "--seed", "99999999999999999999"], ["--seed"]),
    "jobs_huge": ({"mm.mlir": TINY}, ["mm.mlir", "--jobs", "100000"], ["--jobs 100000", "at most"]),
    "unknown_cpu": ({"mm.mlir": TINY}, ["mm.mlir", "--target", "skylak"], ["unknown --target skylak", "skylake"]),
    "only_root_op_untunable_on_cpu": (
        {"pool.mlir": SUM_POOLING},
        ["pool.mlir"],
        ["nothing tunable", "only 2-D convolutions with at most one batch and one channel"],
    ),
    **INPUT_CASES,
}


# The cases the default (fast) run keeps, one per kind of check: reading the model, its arguments and flags files, the
# numeric options, targets and devices, output folders, rankers. The rest run with the slow tests (CI runs both):
# each case is a whole `python -m mltune.cli` process, about a second on 2 cores.
FAST_CASES = {
    "missing_file",
    "malformed_mlir",
    "torch_dynamic_batch",
    "binary_input",
    "shape_contradicts_model",
    "shape_typo",
    "only_root_op_untunable_on_cpu",
    "budget_zero",
    "unknown_ranker",
    "unknown_cpu",
    "rocm_without_device",
    "output_parent_is_a_file",
    "run_dir_is_a_file",
    "input_count",
    "input_shape",
    "parameters_missing",
    "benchmark_flag_unknown",
    "compile_flag_rejected_by_iree",
}
assert FAST_CASES <= set(CASES), FAST_CASES - set(CASES)  # a renamed case must not drop out of the fast run unseen


def in_process(args: list[str], cwd: Path, monkeypatch, capsys) -> subprocess.CompletedProcess:
    """`mltune ARGS` run by its `main` in this process, in `cwd`: a child Python per case would spend most of the case
    importing mltune (the other tests here run the command as a child, as a user does)."""
    monkeypatch.chdir(cwd)
    code = main(args)
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, captured.out, captured.err)


def check_one_line_error(result, words=()) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mltune: error:"), lines[0]
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


@pytest.mark.parametrize(
    "case", [case if case in FAST_CASES else pytest.param(case, marks=pytest.mark.slow) for case in CASES]
)
def test_bad_input_is_one_line_and_exit_2(case, tmp_path, monkeypatch, capsys):
    files, args, words = CASES[case]
    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    defaults = [flag for flag in (["--run-dir", "run"], ["--dataset-dir", "datasets"]) if flag[0] not in args]
    result = in_process(["tune", *args, *(word for flag in defaults for word in flag)], tmp_path, monkeypatch, capsys)
    check_one_line_error(result, words)
    assert not list(tmp_path.glob("datasets/*/*.jsonl")), "a refused run writes no records"
    if not any(name.startswith("datasets") for name in files):
        assert not (tmp_path / "datasets").exists(), "a refused run leaves no empty datasets folder"


def test_no_command(tmp_path):
    check_one_line_error(mltune([], cwd=tmp_path), ["required"])


def test_arguments_are_checked_before_the_compiler_or_numpy_is_loaded():
    """`mltune --help` and a bad option answer in a fraction of a second: each command loads its work when it runs."""
    code = (
        "import sys; from mltune.cli import main; code = main(['tune', 'x.mlir', '--budget', '0']); "
        "print(code, sorted(m for m in ('iree.compiler', 'numpy', 'z3', 'sklearn') if m in sys.modules))"
    )
    result = run([sys.executable, "-c", code])
    assert result.stdout.split("\n")[0] == "2 []", result.stdout + result.stderr


def test_failed_run_leaves_no_spec_file(tmp_path):
    """An empty spec file left behind would make the user's iree-compile fail: none is written."""
    result = mltune(["tune", "nope.mlir", "-o", "spec.mlir", "--run-dir", "run"], cwd=tmp_path)
    check_one_line_error(result, ["not found"])
    assert not (tmp_path / "spec.mlir").exists()


def test_failed_run_keeps_an_existing_output(tmp_path):
    (tmp_path / "spec.mlir").write_text("// the user's own file\n")
    result = mltune(["tune", "nope.mlir", "-o", "spec.mlir", "--run-dir", "run"], cwd=tmp_path)
    check_one_line_error(result, ["not found"])
    assert (tmp_path / "spec.mlir").read_text() == "// the user's own file\n"


@pytest.mark.slow  # 4 s: a whole run whose every compile fails
def test_a_run_in_which_every_candidate_fails_is_exit_1(tmp_path):
    """A stand-in iree-compile (through MLTUNE_IREE_TOOLS) that compiles IREE's default build but fails every
    candidate (a spec, or the data-tiled lowering's flags): nothing could be measured, which is a failed run (one
    line, exit 1), not "the default is best"."""
    real = tool_path("iree-compile")
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "iree-compile").write_text(f"""#!/bin/sh
case "$*" in *tuning-spec-path*|*data-tiling*) echo "error: injected failure" >&2; exit 1;; esac
exec {real} "$@"
""")
    (tools / "iree-compile").chmod(0o755)
    (tmp_path / "mm.mlir").write_text(TINY)
    # the heuristic: the learned default says on stderr which model ranks, before the failure's line
    result = run(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "tune",
            "mm.mlir",
            "--budget",
            "2",
            "--run-dir",
            "run",
            "--dataset-dir",
            "datasets",
            "--ranker",
            "heuristic",
        ],
        cwd=tmp_path,
        env={**os.environ, "MLTUNE_IREE_TOOLS": str(tools)},
    )
    assert result.returncode == 1, (result.returncode, result.stderr[-2000:])
    (line,) = result.stderr.splitlines()
    assert line.startswith("mltune: failed: nothing could be measured: all 8 candidates failed") and "injected" in line
    assert len(trial_record_files(tmp_path / "datasets")) == 1, "the failed candidates are recorded"


def test_a_time_budget_spent_before_the_search_says_so(tmp_path):
    """A `--time-budget` the stages before the search use up (here 1 s: the dump and IREE's default build take
    longer) ends in one line that says so, with each stage's seconds, and not in "no candidate in the space"; no
    ranker is started for a search that cannot start a candidate."""
    (tmp_path / "mm.mlir").write_text(TINY)
    result = run(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "tune",
            "mm.mlir",
            "--budget",
            "2",
            "--time-budget",
            "1",
            "--run-dir",
            "run",
            "--dataset-dir",
            "datasets",
            "--ranker",
            "heuristic",
        ],
        cwd=tmp_path,
    )
    assert result.returncode == 1, (result.returncode, result.stderr[-2000:])
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        "mltune: failed: nothing could be measured: the --time-budget of 1 s was spent before "
        "the search started a candidate (prepare the input "
    ), line
    assert "IREE's default build" in line and "give a larger --time-budget" in line


def test_a_run_whose_spaces_hold_no_candidate_says_so():
    """Synthetic results (no run): where no dispatch's space held a candidate, the failure names the dispatches and
    why, instead of "all 0 candidates failed"."""
    from mltune.frontend.problem import Problem
    from mltune.search.results import DispatchResult
    from mltune.tuning.search_stage import nothing_measured

    fill = Problem(
        op_kind="elementwise",
        op_name="linalg.generic",
        bounds=(465708,),
        batch=(),
        m=(0,),
        n=(),
        k=(),
        lhs_type="i8",
        rhs_type="i8",
        out_type="i8",
        indexing_maps=("affine_map<(d0) -> (d0)>",),
        layout="p_in0",
        operand_types=("i8",),
    )
    said = nothing_measured([DispatchResult("dispatch_9", fill, 0)])
    assert "dispatch_9 (elementwise_465708_i8i8i8_p_in0) holds no candidate" in said and "all 0" not in said
    # an SD-1.5 UNet on an H100 (--time-budget 720): the screen timed 20 convolution candidates, then the deadline
    # came before any was timed as a finalist; the run had said "before the search started a candidate"
    screened = DispatchResult("dispatch_16", fill, 40, screened=20)
    said = nothing_measured([screened], {"prepare the input": 79.0, "profile": 168.0}, 720.0, 0.6)
    assert "spent after its screen timed 20 candidates and before any was timed as a finalist" in said, said
    assert "before the search started" not in said and "prepare the input 79 s" in said


def _state(run_dir, argv, status="interrupted"):
    """A run folder's state file, as `mltune tune` writes it."""
    import json

    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "state.json").write_text(
        json.dumps({"status": status, "argv": argv, "input_sha256": "0" * 64, "pid": 1, "started": 0.0, "updated": 0.0})
    )


def test_resuming_a_run_whose_command_was_itself_a_resume(tmp_path):
    _state(tmp_path / "run", ["tune", "--resume", str(tmp_path / "run")])
    check_one_line_error(mltune(["tune", "--resume", "run"], cwd=tmp_path), ["--resume", "no tuning command"])


@pytest.mark.parametrize(
    "name",
    ["a/b", *(pytest.param(n, marks=pytest.mark.slow) for n in ("/an/absolute/folder/that/is/not/a/run", "r[", ""))],
)
def test_show_of_a_folder_that_is_not_a_run(name, tmp_path):
    check_one_line_error(mltune(["show", name, "--run-root", str(tmp_path / "runs")], cwd=tmp_path), ["no run"])


def test_show_and_runs_with_a_damaged_state_file(tmp_path):
    """`show` names the damaged file; `runs` lists the others with one counted warning line."""
    (tmp_path / "runs" / "broken").mkdir(parents=True)
    (tmp_path / "runs" / "broken" / "state.json").write_text("{not json")
    _state(tmp_path / "runs" / "fine", ["tune", "mm.mlir"], status="finished")
    check_one_line_error(mltune(["show", "broken", "--run-root", "runs"], cwd=tmp_path), ["state.json"])
    result = mltune(["runs", "--run-root", "runs"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        "warning: skipped 1 run folder under runs whose state.json is damaged: broken"
    ]
    assert "fine" in result.stdout and "broken" not in result.stdout
