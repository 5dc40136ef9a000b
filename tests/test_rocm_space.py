"""The wider gfx942 contraction space, compiled for gfx942 by the real iree-compile (there is no AMD GPU here: nothing
runs): virtual MFMA intrinsics with exactly the pipelines that compile them, MMA tiles per subgroup beyond 8 and K tiles
up to 512 elements, `waves_per_eu` only where LLVM can reach it, and compile-only building the dumped executable."""

from __future__ import annotations

import dataclasses
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from gpu_dump_helpers import read_gpu_dump
from iree_helpers import checked_heuristic_order, matmul_source, run

from mltune.emit.apply import SpecApplier
from mltune.execution.build import Builder
from mltune.features.gpu import gpu_contraction_features
from mltune.input.tuning_input import DUMP_PHASE_FLAG, Invocation, TuningInput
from mltune.input.dispatches import Dispatch
from mltune.spaces.gpu_contraction import GpuContraction
from mltune.spaces.iree_constraints import emit_constraints
from mltune.system.tools import tool_path
from mltune.targets import GpuInfo, parse_target
from mltune.tuning.compile_only import dispatch_builder

VMFMA_16, VMFMA_32 = "VMFMA_F32_16x16x32_F16", "VMFMA_F32_32x32x16_F16"
OCCUPANCY_WARNING = "failed to meet occupancy target"


@pytest.fixture(scope="module")
def rocm_mm(tmp_path_factory, context):
    """A 256x384 (K 512) f16 matmul dumped for mi300x (gfx942), its space with IREE's emitted constraints."""
    directory = tmp_path_factory.mktemp("rocm_mm")
    source = directory / "model.mlir"
    source.write_text(matmul_source(256, 512, 384, "f16", "f32", transpose_rhs=True))
    target = parse_target("mi300x", probe=False)
    result = run(
        [
            tool_path("iree-compile"),
            str(source),
            *target.compile_flags(),
            "--iree-codegen-add-tuner-attributes",
            f"--iree-hal-dump-executable-benchmarks-to={directory / 'bench'}",
            "-o",
            str(directory / "m.vmfb"),
        ]
    )
    assert result.returncode == 0, result.stderr[-2000:]
    bench, stripped, _, problem, gpu, _ = read_gpu_dump(directory, context)
    configurator = GpuContraction(problem, gpu, context, emit_constraints(stripped, directory, context))
    return source, bench, stripped, problem, gpu, configurator, configurator.candidates()


def _compile(stripped: Path, problem, configurator, knobs: dict[str, int], out: Path) -> subprocess.CompletedProcess:
    out.mkdir(parents=True, exist_ok=True)
    applied = SpecApplier(configurator.context).apply(problem, configurator.compilation_info(knobs))
    (out / "spec.mlir").write_text(applied.text)
    return run(
        [
            tool_path("iree-compile"),
            str(stripped),
            f"--iree-codegen-tuning-spec-path={out / 'spec.mlir'}",
            f"--iree-hal-dump-executable-configurations-to={out / 'configs'}",
            "-o",
            str(out / "x.vmfb"),
        ]
    )


def _pick(configurator, candidates, **wanted) -> dict[str, int]:
    """The middle candidate whose knobs (and intrinsic `name`) have the wanted values."""
    name = wanted.pop("name", None)
    rows = [
        i
        for i in range(len(candidates))
        if all(candidates.column(k)[i] == v for k, v in wanted.items())
        and (name is None or configurator.mmas[int(candidates.column("mma")[i])].name == name)
    ]
    assert rows, wanted
    return candidates.knobs(rows[len(rows) // 2])


def test_virtual_intrinsics_come_with_the_pipelines_that_compile_them(rocm_mm):
    *_, configurator, candidates = rocm_mm
    names = np.array([x.name for x in configurator.mmas])[candidates.column("mma")]
    pipelines = {name: set(candidates.column("vector_distribute")[names == name].tolist()) for name in set(names)}
    assert pipelines[VMFMA_16] == {0, 1} and pipelines[VMFMA_32] == {1}
    assert pipelines["MFMA_F32_16x16x16_F16"] == {0, 1}


@pytest.mark.parametrize("name, vector_distribute", [(VMFMA_16, 0), (VMFMA_16, 1), (VMFMA_32, 1)])
def test_virtual_candidates_compile_with_their_intrinsic(rocm_mm, tmp_path, name, vector_distribute):
    _, _, stripped, problem, _, configurator, candidates = rocm_mm
    knobs = _pick(configurator, candidates, name=name, vector_distribute=vector_distribute, waves_per_eu=0)
    result = _compile(stripped, problem, configurator, knobs, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    configured = "".join(p.read_text() for p in (tmp_path / "configs").glob("*.mlir"))
    assert f"virtual_mma_layout<{name}>" in configured


def test_tile_and_fuse_still_refuses_the_32x32_virtual_intrinsic(rocm_mm, tmp_path):
    """Why the space keeps VMFMA_F32_32x32x16_F16 to VectorDistribute: should a compiler update accept it, this fails."""
    _, _, stripped, problem, _, configurator, candidates = rocm_mm
    knobs = {
        **_pick(configurator, candidates, name=VMFMA_32, vector_distribute=1),
        "vector_distribute": 0,
        "prefetch": 2,
    }
    result = _compile(stripped, problem, configurator, knobs, tmp_path)
    assert result.returncode != 0 and "failed to populate offsets" in result.stderr


def test_wider_tiles_are_in_the_space_and_compile(rocm_mm, tmp_path):
    _, _, stripped, problem, _, configurator, candidates = rocm_mm
    k_tiles = candidates.column("red_k") * candidates.column("mma_k")
    assert k_tiles.max() == 512 and candidates.column("red_k").max() == 64  # 32x32x8: 64 K steps
    tile_and_fuse = candidates.column("vector_distribute") == 0
    assert np.max(np.maximum(candidates.column("sg_m"), candidates.column("sg_n"))[tile_and_fuse]) >= 16
    wide = np.flatnonzero(tile_and_fuse & (candidates.column("sg_m") > 8) & (candidates.column("waves_per_eu") == 0))
    result = _compile(stripped, problem, configurator, candidates.knobs(int(wide[len(wide) // 2])), tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]


def test_waves_per_eu_is_offered_only_where_llvm_reaches_it(rocm_mm, tmp_path):
    _, _, stripped, problem, _, configurator, candidates = rocm_mm
    offered = _pick(configurator, candidates, waves_per_eu=4, vector_distribute=0)
    result = _compile(stripped, problem, configurator, offered, tmp_path / "offered")
    assert result.returncode == 0 and OCCUPANCY_WARNING not in result.stderr, result.stderr[-2000:]
    # a tiling of the space whose LDS allows one workgroup per CU: 4 waves per SIMD are not offered, and not reached
    lds = (
        2
        * (candidates.column("wg_m") + candidates.column("wg_n"))
        * candidates.column("red_k")
        * candidates.column("mma_k")
    )
    big = np.flatnonzero(
        (lds > 32768) & (candidates.column("waves_per_eu") == 0) & (candidates.column("vector_distribute") == 0)
    )
    refused = {**candidates.knobs(int(big[0])), "waves_per_eu": 4}
    assert not configurator.space.admits(refused)
    result = _compile(stripped, problem, configurator, refused, tmp_path / "refused")
    assert result.returncode == 0 and re.search(rf"{OCCUPANCY_WARNING}.*final occupancy is 1", result.stderr)


def test_compile_only_builds_the_dumped_executable_on_rocm(rocm_mm, tmp_path):
    source, bench, _, problem, gpu, configurator, candidates = rocm_mm
    flags = tuple(parse_target("mi300x", probe=False).compile_flags())
    builder = Builder(TuningInput(source, Invocation("main", (), False), (bench,), flags), tmp_path / "candidates", 1)
    dispatch = Dispatch("mm", problem, gpu, bench)
    fast = dispatch_builder(builder, dispatch, "rocm", (), tmp_path / "stripped")
    assert fast.tuning_input.source.parent == tmp_path / "stripped"
    assert fast.tuning_input.compile_flags == (DUMP_PHASE_FLAG,)  # built as a dump is
    knobs = _pick(configurator, candidates, name=VMFMA_16, vector_distribute=0, waves_per_eu=0)
    applied = SpecApplier(configurator.context).apply(problem, configurator.compilation_info(knobs))
    assert fast.compile(0, applied, "one").status == "ok"
    # where the dumped executable does not apply, the model's builder
    assert dispatch_builder(builder, dispatch, "cuda", (), tmp_path / "stripped") is builder
    attention = dataclasses.replace(dispatch, problem=dataclasses.replace(problem, op_kind="attention"))
    assert dispatch_builder(builder, attention, "rocm", (), tmp_path / "stripped") is builder


def test_features_and_heuristic_take_virtual_intrinsics(rocm_mm):
    *_, problem, gpu, configurator, candidates = rocm_mm
    _, order = checked_heuristic_order(gpu_contraction_features, problem, gpu, candidates)
    assert len(order) == len(candidates)


def test_target_facts_without_virtual_intrinsics_still_load(rocm_mm):
    """Records written before virtual intrinsics were facts have no `virtual_mma`."""
    gpu = rocm_mm[4]
    assert {x.name for x in gpu.virtual_mma} >= {VMFMA_16, VMFMA_32}
    stored = dataclasses.asdict(gpu)
    del stored["virtual_mma"]
    assert GpuInfo.from_dict(stored).virtual_mma == () and GpuInfo.from_dict(dataclasses.asdict(gpu)) == gpu
