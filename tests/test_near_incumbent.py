"""Picks near the incumbent (IREE's default config, then the fastest measured): tile coordinates and the ranker that
interleaves them with another ranker's order."""

from __future__ import annotations

import math
from functools import partial
from types import SimpleNamespace

import numpy as np
import pytest
from test_rankers import ask_all, cpu, problem

from mltune.rankers import NEAR_DEFAULT_SHARE, RankingInput, make_ranker
from mltune.rankers.near_incumbent import NearIncumbent, near_default, near_default_share
from mltune.rankers.simple import SolverOrder
from mltune.spaces.cpu_contraction import CpuContraction
from mltune.emit.op_config import config_levels
from mltune.spaces.tile_coordinates import tile_coordinates

# IREE's default for this synthetic 64x96x48 matmul is written by hand here, in the compiler's own text format
DEFAULT = (
    "#iree_cpu.lowering_config<distribution = [32, 32, 0], vector_common_parallel = [8, 16, 0], "
    "vector_reduction = [0, 0, 16]>"
)


@pytest.fixture(scope="module")
def space() -> CpuContraction:
    p, c = problem(64, 96, 48), cpu()  # synthetic problem and CPU; the candidates come from the real space
    return CpuContraction(p, c, None, data_tiling=True)


def test_config_levels_reads_the_compilers_text():
    assert config_levels(DEFAULT) == {
        "distribution": [32, 32, 0],
        "vector_common_parallel": [8, 16, 0],
        "vector_reduction": [0, 0, 16],
    }
    assert config_levels("#iree_cpu.lowering_config<vector_common_parallel = [], distribution = [4]>") == {
        "distribution": [4]
    }


def test_default_sits_on_its_candidate_and_other_lowerings_have_no_place(space):
    candidates = space.candidates()
    found = tile_coordinates(space, candidates, DEFAULT)
    same = candidates.index_of(
        {**dict.fromkeys(candidates.names, 0), "wg_m": 32, "wg_n": 32, "vec_m": 8, "vec_n": 16, "vec_k": 16}
    )
    assert same is not None and found.default is not None
    np.testing.assert_allclose(found.candidates[same], found.default)
    tiled = candidates.column("lowering") != 0
    assert tiled.any() and np.isnan(found.candidates[tiled]).all() and not np.isnan(found.candidates[~tiled]).any()
    # an untiled loop counts as its whole extent: K (48) untiled at the vector_common_parallel level
    assert found.default[3 + 2] == pytest.approx(math.log2(48))


def test_a_default_of_other_levels_or_loops_has_no_place(space):
    candidates = space.candidates()
    assert tile_coordinates(space, candidates, "").default is None
    assert tile_coordinates(space, candidates, "#iree_cpu.lowering_config<distribution = [32, 32]>").default is None
    assert tile_coordinates(object(), candidates, DEFAULT) is None  # a space of no tiling levels (GPU)


def test_every_fourth_pick_is_the_nearest_untried_and_the_inner_order_is_kept(space):
    candidates = space.candidates()
    ranking_input = RankingInput(space.problem, space.cpu, candidates)
    found = tile_coordinates(space, candidates, DEFAULT)
    order = ask_all(near_default(SolverOrder(), space, DEFAULT, NEAR_DEFAULT_SHARE), ranking_input, 4)
    assert sorted(order) == list(range(len(candidates)))  # each candidate once
    near = order[3:40:4]
    distance = np.abs(found.candidates - found.default).sum(axis=1)
    assert sorted(distance[near]) == list(distance[near]) and distance[near[0]] == np.nanmin(distance[distance > 0])
    inner = [i for i in order if i not in set(near)][:20]
    assert inner == sorted(inner)  # solver order, apart from what the near picks took


def test_a_faster_candidate_becomes_the_centre(space):
    candidates = space.candidates()
    ranking_input = RankingInput(space.problem, space.cpu, candidates)
    found = tile_coordinates(space, candidates, DEFAULT)
    first_inner = 0  # solver order's first candidate: told 0.5x, it is the new incumbent
    order = ask_all(near_default(SolverOrder(), space, DEFAULT, 0.5), ranking_input, 2, {first_inner: 0.5})
    distance = np.abs(found.candidates - found.candidates[first_inner]).sum(axis=1)
    later_near = order[3:20:2]
    assert list(distance[later_near]) == sorted(distance[later_near])
    assert distance[later_near[0]] == np.nanmin(distance[distance > 0])


def test_without_a_default_in_the_space_the_inner_ranker_alone_names_the_records(space):
    ranking_input = RankingInput(space.problem, space.cpu, space.candidates())
    ranker = NearIncumbent(SolverOrder(), partial(tile_coordinates, space, default_config=""), 0.25)
    assert ask_all(ranker, ranking_input, 4)[:50] == list(range(50)) and ranker.name == "none"
    marked = near_default(SolverOrder(), space, DEFAULT, 0.25)
    marked.start(ranking_input)
    assert marked.name == "none+near-default"


def test_reference_orders_are_measured_as_they_are():
    from mltune.rankers.plugin import PluginRanker
    from mltune.rankers.simple import Shuffle

    assert near_default_share(make_ranker("shuffle"), None) == 0.0
    assert near_default_share(PluginRanker("sampler", Shuffle()), None) == 0.0  # a plugin says so as shuffle does
    assert near_default_share(PluginRanker("plain", SimpleNamespace(name="plain")), None) == NEAR_DEFAULT_SHARE
    assert near_default_share(make_ranker("heuristic"), None) == NEAR_DEFAULT_SHARE
    assert near_default_share(make_ranker("shuffle"), 0.5) == 0.5
