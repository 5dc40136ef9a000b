"""Generated malformed input to every command (tune, train, evaluate, dataset import): flags, paths, input files,
datasets, CSVs and model folders. Each must end in one line on stderr (besides one counted warning per skipped
dataset file) and exit code 2, never a traceback. Runs `mltune.cli.main` in-process; examples are few and cheap
(no candidate is ever compiled)."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from iree_helpers import matmul_source

from mltune.cli.command import main

TINY = matmul_source(32, 64, 48)
FAST = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def run_main(args: list[str], cwd: Path) -> tuple[int, str]:
    """`mltune ARGS` in `cwd`: its exit code and stderr; an exception escaping `main` fails the test (a traceback)."""
    err = io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(args)
    return code, err.getvalue()


def assert_one_error_line(code: int, stderr: str, warnings_allowed: bool = False) -> str:
    lines = stderr.splitlines()
    errors = [line for line in lines if not (warnings_allowed and line.startswith("warning: "))]
    assert code == 2, (code, stderr)
    assert len(errors) == 1 and errors[0].startswith("mltune: error: "), stderr
    assert "Traceback" not in stderr
    return errors[0]


def _not_positive_int(text: str) -> bool:
    try:
        return int(text) <= 0
    except ValueError:
        return True


NOT_POSITIVE_INT = st.one_of(
    st.integers(max_value=0).map(str), st.floats(allow_nan=True).map(str), st.text(max_size=12)
).filter(_not_positive_int)
NOT_A_SEED = st.one_of(st.integers(max_value=-1), st.integers(min_value=2**32)).map(str) | st.text(max_size=8).filter(
    lambda t: not t.strip().lstrip("+").isdigit()
)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    (root / "mm.mlir").write_text(TINY)
    (root / "afile").write_text("x")
    return root


@FAST
@given(flag=st.sampled_from(["--budget", "--batch", "--top", "--jobs"]), value=NOT_POSITIVE_INT)
def test_tune_integer_flags(workdir, flag, value):
    assert_one_error_line(*run_main(["tune", "mm.mlir", flag, value], workdir))


@FAST
@given(
    flag=st.sampled_from(["--time-budget", "--min-speedup"]),
    value=st.one_of(st.floats(max_value=0.0), st.just("nan"), st.just("inf"), st.text(max_size=6))
    .map(str)
    .filter(lambda t: t.strip().lower() not in ("1", "1.0", "+1") and not _is_speedup(t)),
)
def test_tune_number_flags(workdir, flag, value):
    assert_one_error_line(*run_main(["tune", "mm.mlir", flag, value], workdir))


def _is_speedup(text: str) -> bool:
    try:
        return 1.0 <= float(text) < float("inf")
    except ValueError:
        return False


@FAST
@given(
    command=st.sampled_from([["tune", "mm.mlir"], ["train", "--arch", "x"], ["evaluate", "--arch", "x"]]),
    value=NOT_A_SEED,
)
def test_seeds(workdir, command, value):
    assert_one_error_line(*run_main([*command, "--seed", value], workdir))


@FAST
@given(jobs=st.integers(min_value=1000, max_value=10**30))
def test_more_jobs_than_cpus(workdir, jobs):
    line = assert_one_error_line(*run_main(["tune", "mm.mlir", "--jobs", str(jobs)], workdir))
    assert "at most" in line


# A path that cannot be written: under a regular file, a file where a folder is wanted, inside /sys or /proc.
BAD_FOLDER = st.one_of(
    st.builds(lambda tail: f"afile/{tail}", st.from_regex(r"[a-z]{1,8}(/[a-z]{1,8}){0,2}", fullmatch=True)),
    st.just("afile"),
    st.from_regex(r"/sys/[a-z]{1,8}", fullmatch=True),
    st.from_regex(r"/proc/[a-z]{1,8}/[a-z]{1,8}", fullmatch=True),
)


@FAST
@given(
    option=st.sampled_from(
        [
            ["tune", "mm.mlir", "--run-dir"],
            ["tune", "mm.mlir", "--dataset-dir"],
            ["train", "--arch", "x", "--model-dir"],
            ["evaluate", "--arch", "x", "--out"],
            ["dataset", "import", "afile", "--from", "amdsharktuner", "--arch", "x", "--dataset-dir"],
        ]
    ),
    path=BAD_FOLDER,
)
def test_unwritable_output_folders(workdir, option, path):
    if option[0] in ("train", "evaluate"):  # they read the dataset first: give them one that exists
        option = [*option[:-1], "--dataset-dir", ".", option[-1]]
    line = assert_one_error_line(*run_main([*option, path], workdir))
    assert "cannot write" in line or "no dataset" in line


@FAST
@given(path=st.one_of(BAD_FOLDER.filter(lambda p: p.startswith(("afile/", "/proc"))), st.just("."), st.just("/")))
def test_unwritable_spec_output(workdir, path):
    line = assert_one_error_line(*run_main(["tune", "mm.mlir", "-o", path, "--run-dir", "run"], workdir))
    assert "cannot write" in line


@settings(max_examples=25, deadline=None)
@given(
    content=st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200),
        st.sampled_from([TINY[:n] for n in (0, 10, 60, 200, len(TINY) - 5)]),
    )
)
def test_malformed_input_files(content):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.mlir"
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
        assert_one_error_line(*run_main(["tune", "model.mlir", "--run-dir", "run"], Path(tmp)))


def _record_line(value) -> str:
    return json.dumps(value) if not isinstance(value, bytes) else value.decode("latin-1")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
RECORD_KEYS = ["arch", "problem", "pipeline", "knobs", "status", "time_us", "baseline_us", "schema", "target"]
RECORDISH = st.fixed_dictionaries(
    {"schema": st.sampled_from([1, 2])}, optional={key: JSON_VALUES for key in RECORD_KEYS if key != "schema"}
)


@settings(max_examples=20, deadline=None)
@given(
    command=st.sampled_from(["train", "evaluate"]),
    files=st.lists(
        st.lists(st.one_of(RECORDISH, JSON_VALUES, st.binary(max_size=40)), min_size=1, max_size=6),
        min_size=1,
        max_size=3,
    ),
)
def test_malformed_datasets(command, files):
    with tempfile.TemporaryDirectory() as tmp:
        arch = Path(tmp) / "datasets" / "x"
        arch.mkdir(parents=True)
        for number, lines in enumerate(files):
            (arch / f"run{number}.jsonl").write_text(
                "\n".join(_record_line(v) for v in lines) + "\n", encoding="utf-8", errors="surrogateescape"
            )
        (arch / "folder.jsonl").mkdir()
        code, stderr = run_main(
            [command, "--arch", "x", "--out" if command == "evaluate" else "--model-dir", "out"], Path(tmp)
        )
        assert_one_error_line(code, stderr, warnings_allowed=True)
        warnings = [line for line in stderr.splitlines() if line.startswith("warning: ")]
        assert len(warnings) <= len(files) + 1, "one warning per file at most"


CSV_HEADER = (
    "candidate_id,knob_M,knob_N,knob_K,compile_status,benchmark_status,benchmark_time_us,baseline_benchmark_time_us"
)


@settings(max_examples=20, deadline=None)
@given(
    content=st.one_of(
        st.binary(max_size=120),
        st.text(max_size=120),
        st.lists(
            st.lists(st.text(max_size=6).filter(lambda t: "\n" not in t and "\r" not in t), max_size=8), max_size=4
        ).map(lambda rows: CSV_HEADER + "\n" + "\n".join(",".join(r) for r in rows)),
    ),
    problem=st.one_of(st.none(), st.text(max_size=12)),
)
def test_malformed_csv_imports(content, problem):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tuned.csv"
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
        extra = ["--problem", problem] if problem is not None else []
        assert_one_error_line(
            *run_main(["dataset", "import", "tuned.csv", "--from", "amdsharktuner", "--arch", "x", *extra], Path(tmp))
        )


@settings(max_examples=8, deadline=None)
@given(name=st.one_of(st.from_regex(r"[a-z]{2,10}", fullmatch=True), st.text(max_size=10)))
def test_unknown_targets(workdir, name):
    """Names that are not an LLVM CPU, ROCm or CUDA target (a real CPU name is filtered out by LLVM's own list)."""
    code, stderr = run_main(
        [
            "tune",
            "mm.mlir",
            "--target",
            name,
            "--budget",
            "1",
            "--run-dir",
            "run",
            "--dataset-dir",
            "ds",
            "--compile-only",
        ],
        workdir,
    )
    if code == 0:  # hypothesis found a real LLVM CPU name: nothing to refuse
        return
    assert_one_error_line(code, stderr)


@pytest.mark.parametrize(
    "files",
    [
        {},
        {"model.json": "not json"},
        {"model.json": "{}"},
        {"model.json": json.dumps({"model_file": "forest.joblib", "sha256": "0" * 64}), "forest.joblib": ""},
    ],
)
def test_malformed_model_folders(files, tmp_path, tiny):
    """`tune --ranker random-forest` with a model folder that is empty, unreadable or does not match its hash."""
    (tmp_path / "mm.mlir").write_text(TINY)
    kind = tmp_path / "models" / tiny.cpu.arch / "contraction"
    kind.mkdir(parents=True)
    for name, text in files.items():
        (kind / name).write_text(text)
    assert_one_error_line(
        *run_main(
            [
                "tune",
                "mm.mlir",
                "--ranker",
                "random-forest",
                "--run-dir",
                "run",
                "--dataset-dir",
                "ds",
                "--model-dir",
                "models",
            ],
            tmp_path,
        )
    )
