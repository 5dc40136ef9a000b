"""The library API (`mltune.api`, named by `mltune`): a real tune of examples/matmul_f32.mlir, a model's problems and
their ranking, records and candidates as the same data-frame columns, bad input as `UserError`, and the command
line going through the API."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import mltune
import mltune.api
from mltune.tuning.option_forms import command_line
from mltune.tuning.options import TuneOptions
from mltune.cli.command import main, parse_arguments
from mltune.frontend.problem import Problem
from mltune.learn.samples import load_dataset
from mltune.records.dataset import read_records, record_ratio

REPO = Path(__file__).resolve().parents[1]
MATMUL = REPO / "examples" / "matmul_f32.mlir"
MATMUL_KEY = "contraction_100x1000x300_f32f32f32_nn"
DATASETS = REPO / "datasets"


def test_every_public_name_resolves():
    import mltune.tuning.tune  # noqa: F401 (importing the tuning run's module leaves the function in place)

    for name in mltune.__all__:
        assert getattr(mltune, name) is not None, name
    assert mltune.tune is mltune.api.tune and mltune.evaluate is mltune.api.evaluate
    assert mltune.records.load.__doc__ and mltune.Ranker.__doc__


def spy_on(monkeypatch, name: str) -> list[tuple[tuple, dict]]:
    """Calls of `mltune.api.NAME`, each passed on to the real function."""
    calls: list[tuple[tuple, dict]] = []
    real = getattr(mltune.api, name)

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(mltune.api, name, spy)
    return calls


def test_a_library_call_records_how_it_calls_the_model_for_resume(tmp_path):
    """The command line a library call records (for `mltune tune --resume`) carries its inputs, archives, integer
    range and flags files (synthetic values)."""
    options = TuneOptions.of(
        ranker="heuristic",
        budget=5,
        output="s.mlir",
        inputs=["@ids.npy", "1x4xf32=1"],
        parameters=["model=w.irpa"],
        int_range="0:7",
        compile_flags_file="c.flags",
        benchmark_flags_file="b.flags",
    )
    args = parse_arguments(command_line(Path("m.mlir"), options))
    assert args.inputs == ["@ids.npy", "1x4xf32=1"] and args.parameters == ["model=w.irpa"]
    assert str(args.int_range) == "0:7" and args.compile_flags_file == Path("c.flags").absolute()
    assert args.benchmark_flags_file == Path("b.flags").absolute()


@pytest.mark.parametrize(
    "command, api, checks",
    [
        (
            ["tune", "nope.mlir", "--budget", "3", "--ranker", "shuffle"],
            "tune",
            lambda args, kwargs: (
                args == (Path("nope.mlir"),) and kwargs["budget"] == 3 and kwargs["ranker"] == "shuffle"
            ),
        ),
        (["train", "--arch", "nothing-here"], "train", lambda args, kwargs: args == ("nothing-here",)),
        (
            ["evaluate", "--arch", "nothing-here", "--batch", "4"],
            "evaluate",
            lambda args, kwargs: args == ("nothing-here",) and kwargs["batch"] == 4,
        ),
    ],
)
def test_the_command_line_goes_through_the_api(command, api, checks, monkeypatch, tmp_path, capsys):
    """Each command calls the API with its arguments, and the API's one-line error is the command's (exit 2)."""
    monkeypatch.chdir(tmp_path)
    calls = spy_on(monkeypatch, api)
    assert main([*command, "--dataset-dir", str(tmp_path / "datasets")]) == 2
    ((args, kwargs),) = calls
    assert checks(args, kwargs), (args, kwargs)
    error = capsys.readouterr().err.splitlines()
    assert len(error) == 1 and error[0].startswith("mltune: error:"), error


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda tmp: mltune.tune(tmp / "nope.mlir", run_dir=tmp / "run"), ["nope.mlir", "not found"]),
        (lambda tmp: mltune.tune(MATMUL, budget=0, run_dir=tmp / "run"), ["--budget", "positive integer"]),
        (lambda tmp: mltune.tune(MATMUL, ranker="bogus", run_dir=tmp / "run"), ["unknown ranker 'bogus'", "heuristic"]),
        (lambda tmp: mltune.tune(MATMUL, timing="sometimes", run_dir=tmp / "run"), ["--timing", "sometimes"]),
        (lambda tmp: mltune.tune(MATMUL, min_speedup=0.5, run_dir=tmp / "run"), ["--min-speedup", ">= 1"]),
        (lambda tmp: mltune.tune(MATMUL, iree_flags=["O3"], run_dir=tmp / "run"), ["--iree-flag", "'O3'"]),
        (lambda tmp: mltune.train(), ["--arch ARCH or --family"]),
        (lambda tmp: mltune.train(family="tpu", model_dir=tmp / "models"), ["--family", "tpu"]),
        (lambda tmp: mltune.evaluate("../up", out=tmp / "out"), ["arch", "'../up'"]),
        (lambda tmp: mltune.records.load("nothing-here", dataset_dir=tmp), ["no dataset for arch 'nothing-here'"]),
    ],
)
def test_bad_input_is_a_user_error(call, words, tmp_path):
    with pytest.raises(mltune.UserError) as err:
        call(tmp_path)
    for word in words:
        assert word in str(err.value)
    assert "\n" not in str(err.value)
    assert not (tmp_path / "run").exists(), "a refused tune leaves no run directory"


def test_records_load_gives_one_row_per_measured_candidate_with_the_candidates_columns():
    frame = mltune.records.load(DATASETS / "emeraldrapids")
    dataset = load_dataset(DATASETS, "emeraldrapids")
    assert len(frame) == sum(len(p.ratios) for p in dataset.problems)
    assert list(frame.columns[:6]) == ["problem", "op_kind", "arch", "target_kind", "candidate", "ratio"]
    for samples in dataset.problems[:3]:
        rows = frame[frame["problem"] == samples.key]
        assert np.allclose(rows["ratio"].to_numpy(), samples.ratios)
        candidates = mltune.candidate_frame(samples.ranking_input())
        assert mltune.knob_columns(frame) == mltune.knob_columns(candidates)
        assert mltune.feature_columns(frame) == mltune.feature_columns(candidates)
        assert np.allclose(rows[candidates.columns].to_numpy(float), candidates.to_numpy(float))
    same = mltune.records.load("emeraldrapids", dataset_dir=DATASETS)
    assert same.equals(frame)


@pytest.mark.e2e
def test_a_models_problems_ranked_through_the_api():
    (problem,) = mltune.problems(MATMUL)
    assert problem.problem.key == MATMUL_KEY
    order = mltune.rank(problem, "heuristic")
    assert sorted(order) == list(range(len(problem.candidates)))
    ranker = mltune.make_ranker("heuristic")
    ranker.start(problem)
    assert ranker.ask(16) == order[:16]
    frame = mltune.candidate_frame(problem)
    assert len(frame) == len(problem.candidates)
    assert mltune.knob_columns(frame) == [f"knob.{name}" for name in problem.candidates.names]
    assert mltune.feature_columns(frame) == [f"feature.{name}" for name in problem.features.names]
    assert (frame[mltune.knob_columns(frame)].to_numpy() == problem.candidates.values).all()


@pytest.mark.e2e
@pytest.mark.slow
def test_tune_through_the_api(tmp_path, monkeypatch):
    """A real tune with a tiny budget: the result holds what the run wrote; with no `output`, the spec stays in
    the run folder and a spec of the user's in the working directory is left as it was."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "best_spec.mlir").write_text("// the user's own spec\n")
    result = mltune.tune(
        MATMUL, budget=3, run_dir=tmp_path / "run", dataset_dir=tmp_path / "datasets", progress="quiet"
    )
    assert (tmp_path / "best_spec.mlir").read_text() == "// the user's own spec\n"
    spec = tmp_path / "run" / "best_spec.mlir"
    assert result.run_dir == tmp_path / "run"
    assert result.summary == json.loads((tmp_path / "run" / "summary.json").read_text())
    (verdict,) = result.verdicts
    assert verdict.problem == MATMUL_KEY and 1 <= verdict.benchmarked <= 3
    assert verdict.kept == (result.summary["dispatches"][0]["winner"] is not None)
    if result.spec_path is not None:
        assert result.spec_path == spec and result.spec_text == spec.read_text()
    else:
        assert result.spec_text == "" and not spec.exists()
    assert result.records_path.parent.parent == tmp_path / "datasets"
    assert list(result.records) == list(read_records(result.records_path))
    assert {Problem.from_record(r["problem"]).key for r in result.records} == {MATMUL_KEY}
    assert sum(1 for r in result.records if r["time_us"]) >= verdict.benchmarked
    # the best four that screened faster than IREE's default were re-measured, and each re-measure was recorded
    screened = sorted((r for r in result.records if r["status"] == "ok"), key=record_ratio)
    finalists = [r["knobs"] for r in screened[:4] if record_ratio(r) < 1.0]
    finals_path = result.records_path.with_name("run.finals.jsonl")
    finals = list(read_records(finals_path)) if finals_path.exists() else []
    assert sorted(map(repr, (r["knobs"] for r in finals))) == sorted(map(repr, finalists))
    assert all(len(r["time_us"]) >= 9 and r["run_id"] == "run" for r in finals)  # the finals' plan: 9 rounds or more
    state = json.loads((tmp_path / "run" / "state.json").read_text())
    assert state["status"] == "finished"
    resumed = parse_arguments(state["argv"])  # the recorded command line is `mltune tune`'s own
    assert (resumed.budget, resumed.input, resumed.output) == (3, MATMUL, spec)


@pytest.mark.e2e
@pytest.mark.slow
def test_a_tune_on_the_command_line_runs_through_the_api(tmp_path, monkeypatch, capsys):
    calls = spy_on(monkeypatch, "tune")
    run_dir = tmp_path / "run"
    assert (
        main(
            [
                "tune",
                str(MATMUL),
                "--budget",
                "2",
                "-q",
                "--run-dir",
                str(run_dir),
                "--dataset-dir",
                str(tmp_path / "datasets"),
                "-o",
                str(tmp_path / "spec.mlir"),
            ]
        )
        == 0
    )
    ((args, kwargs),) = calls
    assert kwargs["progress"] == "quiet" and kwargs["budget"] == 2 and kwargs["show_paths"]
    out = capsys.readouterr().out
    assert f"Run folder: {run_dir}" in out and f"Run: {run_dir}" in out
    assert json.loads((run_dir / "state.json").read_text())["status"] == "finished"
