"""The data-tiled lowering as candidates of a CPU contraction: the mmt4d tiles IREE picks from the flags (checked
against the real compiler), the candidates, their flags through the applier and the builder, and features."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest
from iree_helpers import CPU_FLAGS, TEST_CPU, checked_heuristic_order, run

from mltune.emit.apply import SpecApplier
from mltune.emit.op_config import config_flags, op_attributes
from mltune.execution.build import Builder
from mltune.features.cpu import cpu_contraction_features
from mltune.frontend.one_op_model import ContractionShape, contraction_model
from mltune.input.tuning_input import Invocation, TuningInput
from mltune.rankers import make_ranker
from mltune.rankers.base import RankingInput
from mltune.spaces import cpu_data_tiling
from mltune.spaces.cpu_contraction import CpuContraction
from mltune.spaces.cpu_data_tiling import InnerTiles
from mltune.system.tools import tool_path
from mltune.targets.cpu import CpuInfo

_MMT4D = re.compile(r"linalg\.mmt4d \{lowering_config = #iree_cpu\.lowering_config<distribution = \[(\d+), (\d+),")


@pytest.mark.parametrize("tile_kib, threads", [(256, 8), (4, 2), (16, 8)])
def test_mmt4d_distribution_is_what_the_compiler_picks(tiny, tmp_path, tile_kib, threads):
    """The replicated cost model gives the distribution tiles of the compiler's own mmt4d config for these flags."""
    tiles = cpu_data_tiling.inner_tiles(tiny.problem, tiny.cpu)
    assert tiles is not None
    knobs = {"lowering": cpu_data_tiling.DATA_TILED, "dt_tile_kib": tile_kib, "dt_threads": threads}
    configs = tmp_path / "configs"
    result = run(
        [
            tool_path("iree-compile"),
            str(tiny.source),
            *CPU_FLAGS,
            *cpu_data_tiling.compile_flags(knobs),
            f"--iree-hal-dump-executable-configurations-to={configs}",
            "-o",
            str(tmp_path / "m.vmfb"),
        ]
    )
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


_MMT4D_TILES = re.compile(r"linalg\.mmt4d .*? : tensor<\d+x\d+x(\d+)x(\d+)x\w+>, tensor<\d+x\d+x(\d+)x\d+x\w+>\)")
# One CPU of each x86 vector width, whatever this host is (compile only), and the one MLTUNE_TEST_CPU names.
DATA_TILING_CPUS = sorted({"znver3", "skylake-avx512", TEST_CPU})


def _iree_inner_tiles(tmp_path, cpu_name: str, shape: ContractionShape) -> tuple[CpuInfo, InnerTiles]:
    """The target facts and the packed mmt4d tile IREE itself picks for `shape` data-tiled on `cpu_name`."""
    source = tmp_path / f"{shape.m}x{shape.n}x{shape.k}_{shape.in_type}.mlir"
    source.write_text(contraction_model(shape))
    configs = tmp_path / f"configs_{source.stem}"
    flags = [*CPU_FLAGS[:-1], f"--iree-llvmcpu-target-cpu={cpu_name}", "--iree-opt-data-tiling"]
    result = run(
        [
            tool_path("iree-compile"),
            str(source),
            *flags,
            f"--iree-hal-dump-executable-configurations-to={configs}",
            "-o",
            str(tmp_path / "m.vmfb"),
        ]
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (text,) = [t for t in (p.read_text() for p in configs.glob("*.mlir")) if "linalg.mmt4d" in t]
    (tiles,) = _MMT4D_TILES.findall(text)
    m0, k0, n0 = map(int, tiles)
    return CpuInfo.from_executable_target(text), InnerTiles(m0, n0, k0)


@pytest.mark.parametrize(
    "cpu_name", [cpu if cpu == TEST_CPU else pytest.param(cpu, marks=pytest.mark.slow) for cpu in DATA_TILING_CPUS]
)  # the others: 2 s each
def test_inner_tiles_are_the_compilers(tiny, tmp_path, cpu_name):
    """f32 and f16 inputs with an f32 accumulator get the packed tile IREE picks for the target's vector width (a
    narrow M its narrow tile), read back from the compiler for an AVX2 and an AVX-512 CPU."""
    for m, in_type in ((32, "f32"), (32, "f16"), (3, "f32")):
        cpu, expected = _iree_inner_tiles(tmp_path, cpu_name, ContractionShape(m, 48, 64, in_type=in_type))
        problem = replace(tiny.problem, bounds=(m, 48, 64), lhs_type=in_type, rhs_type=in_type)
        assert cpu_data_tiling.inner_tiles(problem, cpu) == expected, (cpu, m, in_type)


def test_inner_tiles_only_where_verified(tiny):
    """Integers and bf16 (whose data-tiled build converts every element in the inner loop) get no data-tiled
    candidates, on any vector width."""
    for cpu in (CpuInfo("znver3", 32, 2), CpuInfo("znver4", 64, 2)):
        integer = replace(tiny.problem, lhs_type="i8", rhs_type="i8", out_type="i32")
        assert cpu_data_tiling.inner_tiles(integer, cpu) is None
        brain = replace(tiny.problem, lhs_type="bf16", rhs_type="bf16")
        assert cpu_data_tiling.inner_tiles(brain, cpu) is None


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


@pytest.mark.slow  # 3 s
def test_shipped_cpu_model_measures_both_lowerings_in_its_first_batch(dumps, context):
    """The shipped cpu family model, ranking as on a CPU it was trained on (no blend), puts IREE's own data-tiled
    build second, as the heuristic does."""
    from mltune.learn.forest import load_model
    from mltune.learn.model_files import family_name
    from mltune.rankers.forest import RandomForest
    from mltune.system.paths import SHIPPED_MODELS

    model = load_model(SHIPPED_MODELS, family_name("cpu"), "contraction").model
    problem, cpu = dumps["matmul"].problem, dumps["matmul"].cpu
    candidates = CpuContraction(problem, cpu, context, data_tiling=True).candidates()
    order = RandomForest(0, model=model).order(RankingInput(problem, cpu, candidates))
    assert sorted(order) == list(range(len(candidates)))
    assert candidates.column("lowering")[order[1]] == cpu_data_tiling.DATA_TILED_UKERNEL


def test_f16_data_tiled_microkernel_build_compiles(tmp_path):
    """A tiny f16 matmul (f32 accumulator) compiles with the flags of its data-tiled microkernel candidate."""
    source = tmp_path / "mm_f16.mlir"
    source.write_text(contraction_model(ContractionShape(16, 48, 32, in_type="f16")))
    knobs = {"lowering": cpu_data_tiling.DATA_TILED_UKERNEL, "dt_tile_kib": 256, "dt_threads": 8}
    result = run(
        [
            tool_path("iree-compile"),
            str(source),
            *CPU_FLAGS,
            *cpu_data_tiling.compile_flags(knobs),
            "-o",
            str(tmp_path / "m.vmfb"),
        ]
    )
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
