"""What a new user meets first: where files go (data home, shipped models), the progress display, `--help`,
`--version`, `mltune runs` and `mltune show`."""

from __future__ import annotations

import io
import json
import re
import shutil

import pytest
from learn_helpers import write_synthetic_dataset

from mltune.cli.command import main
from mltune.learn.model_choice import choose_model
from mltune.runs.directory import RESULTS_FILE, mark, start
from mltune.system.paths import SHIPPED_MODELS, data_home, model_search_path, user_models
from mltune.system.progress import PlainDisplay, QuietDisplay, make_display
from mltune.targets.cpu import CpuInfo


def test_the_data_home_follows_MLTUNE_HOME_and_models_are_looked_up_in_order(tmp_path, monkeypatch):
    monkeypatch.setenv("MLTUNE_HOME", str(tmp_path))
    assert data_home() == tmp_path
    assert model_search_path() == (tmp_path / "models", SHIPPED_MODELS)
    assert model_search_path(tmp_path / "mine") == (tmp_path / "mine",)  # --model-dir alone


def test_the_shipped_models_rank_from_any_directory(tmp_path, monkeypatch):
    """The models in the package are found with no models/ in the working directory nor in the data home."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MLTUNE_HOME", str(tmp_path / "home"))
    own = choose_model(model_search_path(), CpuInfo("emeraldrapids", 64, 2), "contraction")
    assert own.loaded is not None and own.loaded.folder.is_relative_to(SHIPPED_MODELS), own.description
    unseen = choose_model(model_search_path(), CpuInfo("znver4", 64, 2), "contraction")  # no model of its own
    assert unseen.loaded is not None and unseen.loaded.folder == SHIPPED_MODELS / "family-cpu" / "contraction"
    # a model the user trained comes first
    shutil.copytree(SHIPPED_MODELS / "emeraldrapids", user_models() / "znver4")
    mine = choose_model(model_search_path(), CpuInfo("znver4", 64, 2), "contraction")
    assert mine.loaded is not None and mine.loaded.folder == user_models() / "znver4" / "contraction"


def test_plain_lines_off_a_terminal():
    out = io.StringIO()
    display = make_display(stream=out)
    assert isinstance(display, PlainDisplay)  # a StringIO is no terminal
    with display.phase("compile"):
        pass
    search = display.phase("search d0", total=3, unit="benchmarks")
    search.update(1)
    search.set_postfix_str("best 1.20x")
    search.update(2)
    search.close()
    lines = out.getvalue().splitlines()
    assert all(re.match(r"\d\d:\d\d:\d\d ", line) for line in lines), lines
    assert lines[0].endswith("compile ...") and "compile: done in" in lines[1]
    assert "search d0: 0/3 benchmarks" in lines[2] and lines[-1].endswith("(3/3 benchmarks, best 1.20x)")
    verbose = io.StringIO()
    with PlainDisplay(verbose, verbose=True).phase("search", total=2) as phase:
        phase.update(1)
        phase.update(1)
    assert "search: 1/2" in verbose.getvalue() and "search: 2/2" in verbose.getvalue()
    assert isinstance(make_display(quiet=True), QuietDisplay)


def test_help_shows_defaults_and_version(capsys):
    with pytest.raises(SystemExit):
        main(["tune", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: 50)" in text and "(default: best_spec.mlir)" in text and "split over the problems" in text
    assert "--model-dir" in text and "then the shipped" in text
    with pytest.raises(SystemExit):
        main(["--version"])
    assert re.fullmatch(r"mltune \d+\.\d+\.\d+\n", capsys.readouterr().out)


def test_no_data_lists_the_archs_that_have_some(tmp_path, capsys):
    datasets = write_synthetic_dataset(tmp_path / "datasets")
    assert main(["evaluate", "--arch", "nope", "--dataset-dir", str(datasets)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"archs with data in {datasets}: synthetic;" in err


def _synthetic_run(root, records_from):
    """A finished run folder whose results are synthetic records (copied from the synthetic dataset)."""
    run = root / "20260101-000000-mm"
    run.mkdir(parents=True)
    source = run / "mm.mlir"
    source.write_text("module {}\n")
    state = start(run, ["tune", str(source), "--ranker", "random-forest", "--budget", "40"], source)
    mark(run, state, "finished")
    first = next(records_from.glob("*.jsonl"))
    (run / RESULTS_FILE).write_text(first.read_text())
    (run / "summary.json").write_text(
        json.dumps({"level": "dispatch", "spec": None, "dispatches": [{"winner": {"speedup": 1.25}}]})
    )
    return run


def test_runs_and_show(tmp_path, capsys):
    datasets = write_synthetic_dataset(tmp_path / "datasets")
    run = _synthetic_run(tmp_path / "runs", datasets / "synthetic")
    assert main(["runs", "--run-root", str(tmp_path / "runs")]) == 0
    table = capsys.readouterr().out
    assert run.name in table and "random-forest" in table and "1.25x" in table and " 40 " in table
    assert main(["show", "20260101", "--run-root", str(tmp_path / "runs")]) == 0
    shown = capsys.readouterr().out
    assert "contraction_" in shown and "rank rho" in shown
    assert (run / "run.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["show", "nothing-here", "--run-root", str(tmp_path / "runs")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_refused_input_leaves_nothing_behind(tmp_path, monkeypatch, capsys):
    """Nothing in the working directory, no run folder: the input does not compile."""
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("MLTUNE_HOME", str(tmp_path / "home"))
    (tmp_path / "bad.mlir").write_text("this is not MLIR\n")
    assert main(["tune", str(tmp_path / "bad.mlir"), "--budget", "1"]) == 2
    assert capsys.readouterr().err.startswith("mltune: error:")
    assert list(work.iterdir()) == []
    assert list((tmp_path / "home" / "runs").iterdir()) == []
