"""GPU contractions no MMA intrinsic fits (f32 on sm_90), compile only: they get the SIMT TileAndFuse space, IREE's own
default is one of its points, sampled candidates applied by spec and by annotation compile for sm_90 with exactly
their config, and the features and heuristic work on them."""

from __future__ import annotations

import re

import numpy as np
import pytest
from iree_helpers import applied_compile_args, batch_matmul_source, checked_heuristic_order, dump_gpu_model, run

from mltune.emit.apply import make_applier
from mltune.features import extractor_for
from mltune.features.gpu_simt import gpu_simt_features
from mltune.frontend.problem import Problem
from mltune.spaces.configure import make_configurator
from mltune.spaces.gpu_simt_contraction import PIPELINE, GpuSimtContraction

# BERT's MLP down projection as IREE dispatches it (a unit-batch batch matmul), 128 x 3072 -> 768 in f32
SOURCE = batch_matmul_source(1, 128, 3072, 768, "f32", "f32")
_LISTS = re.compile(r"\b(workgroup|thread|reduction|promote_operands) = \[([\d, ]*)\]")
_WORKGROUP_SIZE = re.compile(r"workgroup_size = \[(\d+), (\d+), (\d+)\]")


@pytest.fixture(scope="module")
def dumped(tmp_path_factory, context):
    target, prepared, bench, stripped, problem, gpu = dump_gpu_model(SOURCE, "sm_90", tmp_path_factory.mktemp("simt"),
                                                                     context)
    return {"target": target, "source": prepared, "bench": bench, "stripped": stripped, "problem": problem, "gpu": gpu}


@pytest.fixture(scope="module")
def configurator(dumped, context, tmp_path_factory) -> GpuSimtContraction:
    found = make_configurator(dumped["problem"], dumped["gpu"], context, dumped["stripped"],
                              tmp_path_factory.mktemp("simt_space"))
    assert isinstance(found, GpuSimtContraction), found
    return found


def _config(text: str) -> tuple[dict[str, list[int]], int]:
    """The root op's lists and the flat workgroup size of a configured dispatch."""
    lowering = re.search(r"lowering_config = #iree_gpu.lowering_config<\{([^\n]*?)\}>", text).group(1)
    sizes = [int(x) for x in _WORKGROUP_SIZE.search(text).groups()]
    return ({name: [int(v) for v in values.split(",") if v.strip()] for name, values in _LISTS.findall(lowering)},
            sizes[0] * sizes[1] * sizes[2])


def _knobs(problem: Problem, lists: dict[str, list[int]]) -> dict[str, int]:
    (m,), (n,), (k,) = problem.m, problem.n, problem.k
    return {"wg_m": lists["workgroup"][m], "wg_n": lists["workgroup"][n], "th_m": lists["thread"][m],
            "th_n": lists["thread"][n], "red_k": lists["reduction"][k], "promote": int("promote_operands" in lists)}


def test_f32_on_sm_90_gets_the_simt_space_with_iree_default(dumped, configurator):
    """IREE's default (no shared memory, one thread per 1 x 16 block, 256 threads) is a point of the space."""
    lists, threads = _config(dumped["bench"].read_text())
    default = _knobs(dumped["problem"], lists)
    assert configurator.space.admits(default), default
    assert configurator.workgroup_size(default) == threads
    assert configurator.pipeline_of(default) == PIPELINE


def test_space_holds_the_limits_and_z3_agrees(configurator):
    candidates = configurator.candidates()
    c = candidates.column
    threads = (c("wg_m") // c("th_m")) * (c("wg_n") // c("th_n"))
    shared = 4 * (c("wg_m") + c("wg_n")) * c("red_k") * c("promote")
    assert len(candidates) > 1000 and threads.max() <= 1024 and (threads % 32 == 0).all()
    assert shared.max() <= 48 * 1024 and (3072 % c("red_k") == 0).all() and c("promote").min() == 0
    for i in np.random.default_rng(0).choice(len(candidates), 5, replace=False):
        assert configurator.space.contains(candidates.knobs(int(i)))


@pytest.mark.e2e
def test_candidates_compile_with_their_config(dumped, configurator, context, tmp_path):
    """Three sampled candidates (two promoted), applied as mltune applies configs on CUDA (annotating the source),
    compile for sm_90 and the compiler configured the dispatch with exactly their lists and workgroup size."""
    candidates = configurator.candidates()
    promoted = np.flatnonzero(candidates.column("promote"))
    rng = np.random.default_rng(2)
    picks = [*map(int, rng.choice(promoted, 2, replace=False)), int(rng.integers(len(candidates)))]
    applier = make_applier(dumped["target"].kind, dumped["source"], context)
    for i, index in enumerate(picks):
        knobs = candidates.knobs(index)
        out = tmp_path / f"candidate_{i}"
        out.mkdir()
        applied = applier.apply(dumped["problem"], configurator.compilation_info(knobs))
        result = run(applied_compile_args(applied, dumped["source"], out, dumped["target"].compile_flags()))
        assert result.returncode == 0, result.stderr[-2000:]
        lists, threads = _config("".join(p.read_text() for p in (out / "configs").glob("*.mlir")))
        assert _knobs(dumped["problem"], lists) == knobs and threads == configurator.workgroup_size(knobs)


def test_features_and_heuristic_order(dumped, configurator):
    problem, gpu = dumped["problem"], dumped["gpu"]
    candidates = configurator.candidates()
    assert extractor_for(problem, gpu, [PIPELINE]) is not gpu_simt_features  # one extractor for both kinds of tiling
    features, order = checked_heuristic_order(extractor_for(problem, gpu), problem, gpu, candidates)
    assert features.names == gpu_simt_features(problem, gpu, candidates).names
    first = candidates.knobs(order[0])
    # a thread block of several outputs, operands staged in shared memory, enough workgroups for most of the 132 SMs
    assert first["th_m"] * first["th_n"] >= 4 and first["promote"] == 1
    assert features.values[order[0], features.names.index("busy_sms")] >= 0.5


def test_the_shipped_forest_leaves_simt_candidates_to_the_heuristic(dumped, configurator, capsys):
    """The sm_90 contraction model learned MMA tilings: on SIMT candidates the forest ranker says so and ranks them
    as the heuristic does, never failing the run."""
    from mltune.rankers import make_ranker
    from mltune.rankers.base import RankingInput

    problem, gpu = dumped["problem"], dumped["gpu"]
    candidates = configurator.candidates()
    orders = []
    for name in ("random-forest", "heuristic"):
        ranker = make_ranker(name)
        ranker.start(RankingInput(problem, gpu, candidates))
        orders.append(ranker.ask(20))
    assert orders[0] == orders[1]
    assert "trained on candidates of another kind" in capsys.readouterr().err
