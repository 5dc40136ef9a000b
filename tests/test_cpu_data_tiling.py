"""The data-tiled lowering as candidates of a CPU contraction: the mmt4d tiles IREE picks from the flags (checked
against the real compiler), the candidates, their flags through the applier and the builder, and features."""

from __future__ import annotations

import re

import numpy as np
import pytest
from iree_helpers import CPU_FLAGS, checked_heuristic_order, run

from mltune.emit.apply import SpecApplier
from mltune.emit.op_config import config_flags, op_attributes
from mltune.execution.build import Builder
from mltune.features.cpu import cpu_contraction_features
from mltune.inputs import Invocation, TuningInput
from mltune.rankers import make_ranker
from mltune.rankers.base import RankingInput
from mltune.spaces import cpu_data_tiling
from mltune.spaces.cpu_contraction import CpuContraction
from mltune.tools import tool_path

_MMT4D = re.compile(r"linalg\.mmt4d \{lowering_config = #iree_cpu\.lowering_config<distribution = \[(\d+), (\d+),")


@pytest.mark.parametrize("tile_kib, threads", [(256, 8), (4, 2), (16, 8)])
def test_mmt4d_distribution_is_what_the_compiler_picks(tiny, tmp_path, tile_kib, threads):
    """The replicated cost model gives the distribution tiles of the compiler's own mmt4d config for these flags."""
    tiles = cpu_data_tiling.inner_tiles(tiny.problem, tiny.cpu)
    assert tiles is not None
    knobs = {"lowering": cpu_data_tiling.DATA_TILED, "dt_tile_kib": tile_kib, "dt_threads": threads}
    configs = tmp_path / "configs"
    result = run([tool_path("iree-compile"), str(tiny.source), *CPU_FLAGS, *cpu_data_tiling.compile_flags(knobs),
                  f"--iree-hal-dump-executable-configurations-to={configs}", "-o", str(tmp_path / "m.vmfb")])
    assert result.returncode == 0, result.stderr[-2000:]
    found = [tuple(map(int, hit)) for path in configs.glob("*.mlir") for hit in _MMT4D.findall(path.read_text())]
    assert found == [cpu_data_tiling.mmt4d_distribution(tiny.problem, tiles, tile_kib * 1024, threads)]


def test_data_tiled_candidates_are_flags_and_compile(tiny, context, tmp_path):
    """With data tiling, the space adds distinct data-tiled rows whose config is compile flags only; the applier
    makes no spec of them and the builder compiles them with their flags (a different module than the default)."""
    plain = CpuContraction(tiny.problem, tiny.cpu, context).candidates()
    both = CpuContraction(tiny.problem, tiny.cpu, context, data_tiling=True)
    candidates = both.candidates()
    assert candidates.names == plain.names + cpu_data_tiling.KNOBS
    lowering = candidates.column("lowering")
    assert (lowering == 0).sum() == len(plain) and set(lowering[lowering > 0]) == {1, 2}
    tiled = [candidates.knobs(i) for i in np.flatnonzero(lowering == cpu_data_tiling.DATA_TILED_UKERNEL)]
    info = both.compilation_info(tiled[0])
    assert both.pipeline_of(tiled[0]) == "Mmt4dTilingExpert" and not op_attributes(info, context)
    assert config_flags(info, context) == cpu_data_tiling.compile_flags(tiled[0])
    applied = SpecApplier(context).apply(tiny.problem, info)
    assert applied.text == "" and "--iree-llvmcpu-enable-ukernels=mmt4d" in applied.flags
    plain_info = both.compilation_info(candidates.knobs(0))
    assert SpecApplier(context).apply(tiny.problem, plain_info).flags == ()
    tuning_input = TuningInput(tiny.source, Invocation("main", (), False), (), tuple(CPU_FLAGS))
    build = Builder(tuning_input, tmp_path, jobs=1).compile(0, applied, "data_tiled")
    assert build.status == "ok", build.detail
    assert build.vmfb.read_bytes() != tiny.vmfb.read_bytes()


def test_inner_tiles_only_where_verified(tiny):
    """f32 and f16 inputs with an f32 accumulator on AVX2 get IREE's 8x8x1 tile (a narrow M its narrow tile);
    integers and bf16 (whose data-tiled build converts every element in the inner loop) get no data-tiled
    candidates."""
    from dataclasses import replace

    assert cpu_data_tiling.inner_tiles(tiny.problem, tiny.cpu) == cpu_data_tiling.InnerTiles(8, 8, 1)
    narrow = replace(tiny.problem, bounds=(1, *tiny.problem.bounds[1:]))
    assert cpu_data_tiling.inner_tiles(narrow, tiny.cpu).m0 == 1
    integer = replace(tiny.problem, lhs_type="i8", rhs_type="i8", out_type="i32")
    assert cpu_data_tiling.inner_tiles(integer, tiny.cpu) is None
    half = replace(tiny.problem, lhs_type="f16", rhs_type="f16")
    assert cpu_data_tiling.inner_tiles(half, tiny.cpu) == cpu_data_tiling.InnerTiles(8, 8, 1)
    brain = replace(tiny.problem, lhs_type="bf16", rhs_type="bf16")
    assert cpu_data_tiling.inner_tiles(brain, tiny.cpu) is None


def test_features_tell_the_lowerings_apart_and_heuristic_ranks_them_together(dumps, context):
    """Both lowerings get the same columns; IREE's own data-tiled build is in the first batch for f32 and f16."""
    for name in ("matmul", "matmul_nt_f16"):
        problem, cpu = dumps[name].problem, dumps[name].cpu
        candidates = CpuContraction(problem, cpu, context, data_tiling=True).candidates()
        features, order = checked_heuristic_order(cpu_contraction_features, problem, cpu, candidates)
        tiled = features["data_tiled"].astype(bool)
        assert tiled.any() and (features["pack_bytes_per_flop"][tiled] > 0).all()
        assert (features["pack_bytes_per_flop"][~tiled] == 0).all()
        positions = np.argsort(order)
        assert positions[tiled].min() <= 1  # little packing per flop: the first batch measures both lowerings


def test_shipped_cpu_model_measures_both_lowerings_in_its_first_batch(dumps, context):
    """The shipped cpu family model, ranking as on a CPU it was trained on (no blend), puts IREE's own data-tiled
    build second, as the heuristic does."""
    from mltune.learn.forest import family_name, load_model
    from mltune.paths import SHIPPED_MODELS
    from mltune.rankers.forest import RandomForest

    model = load_model(SHIPPED_MODELS, family_name("cpu"), "contraction").model
    problem, cpu = dumps["matmul"].problem, dumps["matmul"].cpu
    candidates = CpuContraction(problem, cpu, context, data_tiling=True).candidates()
    order = RandomForest(0, model=model).order(RankingInput(problem, cpu, candidates))
    assert sorted(order) == list(range(len(candidates)))
    assert candidates.column("lowering")[order[1]] == cpu_data_tiling.DATA_TILED_UKERNEL



def test_f16_data_tiled_microkernel_build_compiles(tmp_path):
    """A tiny f16 matmul (f32 accumulator) compiles with the flags of its data-tiled microkernel candidate."""
    from mltune.one_op_model import ContractionShape, contraction_model

    source = tmp_path / "mm_f16.mlir"
    source.write_text(contraction_model(ContractionShape(16, 48, 32, in_type="f16")))
    knobs = {"lowering": cpu_data_tiling.DATA_TILED_UKERNEL, "dt_tile_kib": 256, "dt_threads": 8}
    result = run([tool_path("iree-compile"), str(source), *CPU_FLAGS, *cpu_data_tiling.compile_flags(knobs),
                  "-o", str(tmp_path / "m.vmfb")])
    assert result.returncode == 0, result.stderr[-2000:]
    assert (tmp_path / "m.vmfb").stat().st_size > 0


def test_shuffle_lowerings_measures_every_data_tiled_candidate_first(tiny, context):
    """The collection order: all data-tiled rows first, then the plain ones, each part a seeded random order."""
    candidates = CpuContraction(tiny.problem, tiny.cpu, context, data_tiling=True).candidates()
    ranking_input = RankingInput(tiny.problem, tiny.cpu, candidates)
    tiled = int((candidates.column("lowering") > 0).sum())
    orders = []
    for seed in (0, 0, 1):
        ranker = make_ranker("shuffle-lowerings", seed)
        ranker.start(ranking_input)
        orders.append(ranker.ask(len(candidates)))
    first = candidates.column("lowering")[orders[0]]
    assert 0 < tiled < len(candidates) and np.all(first[:tiled] > 0) and np.all(first[tiled:] == 0)
    assert sorted(orders[0]) == list(range(len(candidates)))
    assert orders[0] == orders[1] and orders[0] != orders[2]
