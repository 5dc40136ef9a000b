"""Rankers as plugins: entry points of the group `mltune.rankers`, found by `importlib.metadata` as pip installs
them. Plugins here are registered the way an installed package is (a `*.dist-info` folder with `entry_points.txt`
on the path of a child `mltune` process); the example LightGBM plugin where it is installed (`.ci/run` installs it).
"""

from __future__ import annotations

import copy
import json
import os
import sys
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from iree_helpers import matmul_source, run
from learn_helpers import write_synthetic_dataset

from mltune.errors import UserError
from mltune.rankers import BUILT_IN, make_ranker
from mltune.rankers.plugin import PluginRanker
from mltune.rankers.registry import GROUP, ranker_factory

REPO = Path(__file__).resolve().parents[1]

ORDERS = '''
class Reverse:
    """Last candidate first: a static plugin."""
    name = "reverse"

    def __init__(self, seed=0):
        self.seed = seed

    def start(self, ranking_input):
        self.order = list(range(len(ranking_input.candidates)))[::-1]

    def ask(self, n):
        picked, self.order = self.order[:n], self.order[n:]
        return picked

    def tell(self, index, ratio):
        pass


class HeldOut(Reverse):
    """A plugin that learns from records: it refuses to rank a problem that its records hold, so an evaluation
    that is not leave-problem-out fails."""
    name = "held-out"

    def __init__(self, seed=0, records=None):
        self.records = records

    def start(self, ranking_input):
        trained_on = set(self.records["problem"])
        if not trained_on or ranking_input.problem.key in trained_on:
            raise RuntimeError(f"trained on {ranking_input.problem.key}")
        super().start(ranking_input)


class OutOfRange(Reverse):
    def ask(self, n):
        return [10**9]


def no_seed():
    return Reverse()


def not_a_ranker(seed=0):
    return object()


NOT_CALLABLE = 3
'''


def register(site: Path, distribution: str, points: dict[str, str], modules: dict[str, str] | None = None) -> None:
    """Register `points` (name: module:object) as `distribution`'s entry points of `mltune.rankers` under `site`, as
    pip does (the metadata `importlib.metadata` reads), with the plugin's modules beside them."""
    info = site / f"{distribution}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n" + "".join(f"{n} = {v}\n" for n, v in points.items()))
    for name, text in (modules or {}).items():
        (site / f"{name}.py").write_text(textwrap.dedent(text))


def mltune_with(site: Path, args: list[str], cwd: Path, timeout: float = 600):
    """The real CLI in a child Python that sees the plugins registered under `site`."""
    paths = [str(site), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    return run([sys.executable, "-m", "mltune.cli", *args], timeout=timeout, cwd=cwd, env=env)


def one_line_error(result) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("mltune: error:")
    return line


def test_mltunes_own_rankers_are_entry_points():
    registered = {point.name: point.value for point in entry_points(group=GROUP)}
    for name in BUILT_IN:
        assert registered[name].startswith("mltune.rankers."), "reinstall mltune: its metadata predates the plugins"
        assert make_ranker(name, seed=3).name == name


BROKEN = {
    "gone": ("no_such_module_anywhere:Ranker", ["'gone'", "cannot be loaded", "ModuleNotFoundError"]),
    "constant": ("plugin_orders:NOT_CALLABLE", ["'constant'", "not a class or function"]),
    "no-seed": ("plugin_orders:no_seed", ["'no-seed'", "failed when made", "TypeError"]),
    "not-a-ranker": ("plugin_orders:not_a_ranker", ["'not-a-ranker'", "without name, start, ask, tell"]),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_a_broken_plugin_is_one_line_and_exit_2(name, tmp_path):
    value, words = BROKEN[name]
    register(tmp_path / "site", "broken-plugin", {name: value}, {"plugin_orders": ORDERS})
    (tmp_path / "mm.mlir").write_text(matmul_source(32, 64, 48))
    line = one_line_error(
        mltune_with(
            tmp_path / "site",
            ["tune", "mm.mlir", "--ranker", name, "--run-dir", "run", "--dataset-dir", "datasets"],
            tmp_path,
        )
    )
    for word in words:
        assert word in line, (word, line)
    assert not (tmp_path / "run").exists()


def test_a_name_two_packages_register_is_refused(tmp_path):
    register(tmp_path / "site", "first-plugin", {"reverse": "plugin_orders:Reverse"}, {"plugin_orders": ORDERS})
    register(tmp_path / "site", "second-plugin", {"reverse": "plugin_orders:HeldOut"})
    (tmp_path / "mm.mlir").write_text(matmul_source(32, 64, 48))
    line = one_line_error(mltune_with(tmp_path / "site", ["tune", "mm.mlir", "--ranker", "reverse"], tmp_path))
    assert "registered by several packages" in line and "plugin_orders:Reverse" in line


@pytest.mark.e2e
@pytest.mark.slow
def test_a_plugin_ranks_a_real_tune_by_name(tmp_path):
    """`--ranker reverse` (a plugin) picks the candidates of a real tune: every record names it."""
    register(tmp_path / "site", "orders-plugin", {"reverse": "plugin_orders:Reverse"}, {"plugin_orders": ORDERS})
    (tmp_path / "mm.mlir").write_text(matmul_source(32, 64, 48))
    result = mltune_with(
        tmp_path / "site",
        [
            "tune",
            "mm.mlir",
            "--ranker",
            "reverse",
            "--budget",
            "2",
            "-q",
            "--near-default",
            "0",
            "--run-dir",
            "run",
            "--dataset-dir",
            "datasets",
        ],
        tmp_path,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    records = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert len(records) >= 2 and {r["ranker"] for r in records} == {"reverse"}


@pytest.mark.slow  # 4 s
def test_evaluate_scores_plugins_and_leaves_each_problem_out_of_a_learners_records(tmp_path):
    """`held-out` fails on any problem its records hold: the evaluation passes only if every problem is scored by a
    plugin made from the other problems' records (synthetic dataset)."""
    datasets = write_synthetic_dataset(tmp_path / "datasets")
    register(
        tmp_path / "site",
        "orders-plugin",
        {"reverse": "plugin_orders:Reverse", "held-out": "plugin_orders:HeldOut"},
        {"plugin_orders": ORDERS},
    )
    result = mltune_with(
        tmp_path / "site", ["evaluate", "--arch", "synthetic", "--dataset-dir", str(datasets), "--out", "out"], tmp_path
    )
    assert result.returncode == 0, result.stderr[-2000:]
    rankers = json.loads((tmp_path / "out" / "evaluation.json").read_text())["rankers"]
    problems = [p["problem"] for p in rankers["heuristic"]["problems"]]
    for name in ("reverse", "held-out"):
        assert [p["problem"] for p in rankers[name]["problems"]] == problems
        assert name in result.stdout


@pytest.mark.slow  # 5 s: an evaluate run in a child process
def test_a_plugin_asking_for_no_candidate_of_the_problem_is_one_line(tmp_path):
    datasets = write_synthetic_dataset(tmp_path / "datasets")
    register(tmp_path / "site", "bad-plugin", {"out-of-range": "plugin_orders:OutOfRange"}, {"plugin_orders": ORDERS})
    line = one_line_error(
        mltune_with(
            tmp_path / "site",
            ["evaluate", "--arch", "synthetic", "--dataset-dir", str(datasets), "--out", "out"],
            tmp_path,
        )
    )
    assert "'out-of-range'" in line and "returned candidate 1000000000" in line


def test_each_problem_gets_its_own_copy_of_a_plugins_ranker():
    """`for_one_problem` copies a plugin's ranker as it does a built-in one (synthetic inner ranker)."""

    class Inner:
        name = "inner"

        def start(self, ranking_input):
            raise ValueError("broken start")

    wrapped = PluginRanker("inner", Inner())
    copied = copy.copy(wrapped)
    assert copied.inner is not wrapped.inner and copied.name == "inner"
    with pytest.raises(UserError, match="ranker 'inner' failed in start: ValueError: broken start"):
        copied.start(type("Input", (), {"candidates": [0, 1]})())


def test_unknown_ranker_names_the_installed_ones():
    with pytest.raises(UserError, match="unknown ranker 'bogus'; choose one of: none, shuffle"):
        ranker_factory("bogus")


@pytest.mark.slow
def test_the_lightgbm_example_plugin_is_evaluated_leaving_each_problem_out(tmp_path):
    """`pip install -e examples/lightgbm_ranker` (`.ci/run` does) adds `lightgbm`, scored on the repository's
    emeraldrapids records beside mltune's own rankers: a cost model must beat a random order."""
    if "lightgbm" not in {point.name for point in entry_points(group=GROUP)}:
        pytest.skip("the example plugin is not installed: pip install -e examples/lightgbm_ranker")
    result = run(
        [
            sys.executable,
            "-m",
            "mltune.cli",
            "evaluate",
            "--arch",
            "emeraldrapids",
            "--dataset-dir",
            str(REPO / "datasets"),
            "--out",
            str(tmp_path),
        ],
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    rankers = json.loads((tmp_path / "evaluation.json").read_text())["rankers"]
    assert len(rankers["lightgbm"]["problems"]) == len(rankers["random-forest"]["problems"])
    assert rankers["lightgbm"]["summary"]["shuffle_ratio"]["0.05"] > 1.0
