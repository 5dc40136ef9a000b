"""GPU targets (compile only: no GPU on the CI machine): target facts, TileAndFuse and VectorDistribute spaces
against Z3 and against IREE's own constraints and defaults, candidates applied by spec (ROCm) and annotation (CUDA) and
compiled by the real iree-compile."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import z3
from iree.compiler import ir
from iree.compiler.dialects import iree_codegen
from gpu_dump_helpers import read_gpu_dump
from iree_helpers import applied_compile_args, batch_matmul_source, conv2d_nhwc_source, matmul_source, mltune, run

from mltune.emit.apply import AnnotationApplier, SpecApplier
from mltune.frontend.mlir import find_ops, parse_module_file
from mltune.frontend.problem import Problem
from mltune.spaces.gpu_contraction import GpuContraction
from mltune.spaces.gpu_convolution import GpuConvolution, is_igemm_tile_and_fuse
from mltune.spaces.iree_constraints import EmittedConstraints, emit_constraints
from mltune.spaces.vector_distribute import breaks_iree_default
from mltune.spaces.virtual_mma import as_hardware, k_per_proxy_k
from mltune.system.tools import tool_path
from mltune.targets import GpuInfo, GpuTarget, parse_target

MM = matmul_source(256, 512, 384, "f16", "f32", transpose_rhs=True)  # 256x384, K 512, RHS N x K
BMM = batch_matmul_source(4, 128, 64, 128, "f16", "f32")
CONV = conv2d_nhwc_source(2, 18, 18, 64, 128)
CASES = {  # name: (target, source)
    "mm_mi300x": ("mi300x", MM),
    "mm_sm80": ("sm_80", MM),
    "mm_sm90": ("sm_90", MM),
    "bmm_mi300x": ("mi300x", BMM),  # IREE emits no constraints for it (the emitter crashes): mltune's model alone
    "conv_mi300x": ("mi300x", CONV),  # IGEMM
}


@dataclass
class GpuDump:
    target: GpuTarget
    source: Path
    bench: Path  # IREE's configured benchmark file
    stripped: Path
    problem: Problem
    gpu: GpuInfo
    default_config: str  # the root op's lowering_config and the function's translation_info, as IREE chose
    vd_default_config: str  # the same when IREE is told not to use TileAndFuse for matmuls (IGEMM for convolutions)
    emitted: list[EmittedConstraints]
    module: ir.Module


@pytest.fixture(scope="session")
def gpu_dumps(tmp_path_factory, context) -> dict[str, GpuDump]:
    root = tmp_path_factory.mktemp("gpu")
    procs = {}
    for name, (target_name, text) in CASES.items():
        target = parse_target(target_name, probe=False)
        directory = root / name
        directory.mkdir()
        source = directory / "model.mlir"
        source.write_text(text)
        source = target.prepare_source(source, directory, context)
        args = [
            tool_path("iree-compile"),
            str(source),
            *target.compile_flags(),
            "--iree-codegen-add-tuner-attributes",
            f"--iree-hal-dump-executable-benchmarks-to={directory / 'bench'}",
            "-o",
            str(directory / "m.vmfb"),
        ]
        procs[name] = (
            target,
            source,
            subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
        )
    dumps = {}
    for name, (target, source, proc) in procs.items():
        _, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr[-2000:]
        bench, stripped, module, problem, gpu, root = read_gpu_dump(source.parent, context)
        text = bench.read_text()
        default = str(root.attributes["lowering_config"]) + re.search(
            r"translation_info = (#[^\n]*)\}? \{", text
        ).group(1)
        emitted = emit_constraints(stripped, source.parent, context)
        vd_default = _vector_distribute_default(stripped, VD_FLAGS[problem.op_kind])
        dumps[name] = GpuDump(target, source, bench, stripped, problem, gpu, default, vd_default, emitted, module)
    return dumps


# what makes IREE 3.13 configure VectorDistribute on its own
VD_FLAGS = {
    "contraction": "--iree-codegen-llvmgpu-use-tile-and-fuse-matmul=false",
    "convolution": "--iree-codegen-llvmgpu-use-igemm=false",
}


def _vector_distribute_default(stripped: Path, flag: str) -> str:
    """IREE's own VectorDistribute configuration of a dispatch (its choice once `flag` turns its default off)."""
    out = stripped.parent / "vd_default.mlir"
    result = run(
        [tool_path("iree-compile"), str(stripped), flag, "--compile-to=executable-configurations", "-o", str(out)]
    )
    assert result.returncode == 0, result.stderr[-2000:]
    text = out.read_text()
    return re.search(r"lowering_config = (#iree_gpu[^\n]*?)(?:, root_op|\} \{)", text).group(1) + re.search(
        r"translation_info = (#[^\n]*)\}? \{", text
    ).group(1)


def emitted_for(dump: GpuDump, pipeline: str) -> EmittedConstraints | None:
    return next((c for c in dump.emitted if c.pipeline == pipeline and not is_igemm_tile_and_fuse(c)), None)


def configurator_for(dump: GpuDump, context) -> GpuContraction | GpuConvolution:
    space = GpuConvolution if dump.problem.op_kind == "convolution" else GpuContraction
    return space(dump.problem, dump.gpu, context, dump.emitted)


def test_target_facts_come_from_target_info(gpu_dumps):
    rocm, cuda, hopper = gpu_dumps["mm_mi300x"].gpu, gpu_dumps["mm_sm80"].gpu, gpu_dumps["mm_sm90"].gpu
    assert (rocm.api, rocm.arch, rocm.sku, rocm.cu_count, rocm.subgroup_sizes) == (
        "rocm",
        "gfx942",
        "mi300x",
        304,
        (64,),
    )
    assert rocm.simds_per_cu == 4 and rocm.shared_memory_bytes == 65536 and rocm.vgpr_space_bits == 16384
    assert {"MFMA_F32_16x16x16_F16", "MFMA_F32_32x32x8_F16", "MFMA_I32_16x16x32_I8"} <= {m.name for m in rocm.mma}
    assert not any("x16B_" in m.name for m in rocm.mma), "multi-block intrinsics are left out"
    assert (cuda.api, cuda.arch, cuda.cu_count, cuda.subgroup_sizes, cuda.shared_memory_bytes) == (
        "cuda",
        "sm_80",
        0,
        (32,),
        166912,
    )
    assert {m.name for m in cuda.mma} == {
        "NV_MMA_SYNC_F32_16x8x16_F16",
        "NV_MMA_SYNC_F16_16x8x16_F16",
        "NV_MMA_SYNC_F32_16x8x16_BF16",
    }
    assert (hopper.arch, hopper.cu_count, hopper.shared_memory_bytes) == ("sm_90", 132, 232448)


def test_parse_target_kinds():
    assert parse_target("host", probe=False).kind == "cpu"
    assert parse_target("mi300x", probe=False) == GpuTarget("rocm", "mi300x")
    assert parse_target("gfx1100", probe=False).kind == "rocm"
    assert parse_target("sm_86", probe=False).compile_flags() == [
        "--iree-hal-target-device=cuda",
        "--iree-cuda-target=sm_86",
    ]
    assert parse_target("sm_90", probe=False).compile_flags() == []  # its target is written into the input


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.slow) if n in ("mm_mi300x", "mm_sm80", "bmm_mi300x") else n for n in CASES],
)  # the slow run takes the targets' other cases
def test_every_candidate_satisfies_the_constraints_per_z3(gpu_dumps, context, name):
    dump = gpu_dumps[name]
    configurator = configurator_for(dump, context)
    candidates = configurator.candidates()
    assert 100 < len(candidates) < 200_000
    rng = np.random.default_rng(1)
    knob_names = [k.name for k in configurator.space.knobs]
    for index in rng.choice(len(candidates), 25, replace=False):
        knobs = candidates.knobs(int(index))
        assert configurator.space.contains({k: knobs[k] for k in knob_names})
    # and points of the Cartesian product that were not enumerated are rejected by Z3
    rejected = 0
    for _ in range(200):
        point = {k.name: int(rng.choice(k.domain)) for k in configurator.space.knobs}
        enumerated = candidates.index_of({**point, **_mma_shape(configurator, point)}) is not None
        assert configurator.space.contains(point) == enumerated
        rejected += not enumerated
    assert rejected > 50


def _mma_shape(configurator: GpuContraction | GpuConvolution, point: dict[str, int]) -> dict[str, int]:
    mma = configurator.mmas[point["mma"]]
    return {"mma_m": mma.m, "mma_n": mma.n, "mma_k": mma.k}


def _iree_assignment(configurator: GpuContraction, knobs: dict[str, int]) -> dict[str, int]:
    """A matmul candidate in the names of IREE's emitted knobs for its pipeline (VectorDistribute: K tile in elements);
    a virtual intrinsic's as its hardware proxy's (same K tile in elements)."""
    derived = configurator.derived_values(knobs)
    proxy = configurator.mmas.index(
        as_hardware(configurator.mmas)[knobs["mma"]]
    )  # hardware ones first, in IREE's order
    common = {
        "wg_0": knobs["wg_m"],
        "wg_1": knobs["wg_n"],
        "mma_idx": proxy,
        "sg_size": knobs["sg_size"],
        "prefetch_num_stages": knobs["prefetch"],
        "sg_m_cnt": derived["count_m"],
        "sg_n_cnt": derived["count_n"],
        "wg_size_x": derived["workgroup_size"],
        "wg_size_y": 1,
        "wg_size_z": 1,
    }
    if knobs["vector_distribute"]:
        return {**common, "red_2": knobs["red_k"] * knobs["mma_k"]}
    red_k = knobs["red_k"] * k_per_proxy_k(configurator.mmas)[knobs["mma"]]
    return {**common, "sg_0": knobs["sg_m"], "sg_1": knobs["sg_n"], "red_2": red_k}


@pytest.mark.parametrize("name", ["mm_mi300x", "mm_sm80", "mm_sm90"])
@pytest.mark.parametrize("pipeline", ["TileAndFuse", "VectorDistribute"])
def test_candidates_satisfy_iree_emitted_constraints(gpu_dumps, context, name, pipeline):
    """IREE's own solver accepts mltune's points of each pipeline (matmul: the compiler emits constraints for both),
    less those IREE's own defaults break, and mltune's own model alone gives the same space."""
    dump = gpu_dumps[name]
    emitted = emitted_for(dump, pipeline)
    assert emitted is not None
    configurator = GpuContraction(dump.problem, dump.gpu, context)  # mltune's own model only
    assert len(configurator.candidates()) == len(
        GpuContraction(dump.problem, dump.gpu, context, dump.emitted).candidates()
    )
    candidates = configurator.candidates()
    mine = np.flatnonzero(candidates.column("vector_distribute") == (pipeline == "VectorDistribute"))
    assert len(mine) > 100
    for index in np.random.default_rng(2).choice(mine, 10, replace=False):
        knobs = candidates.knobs(int(index))
        solver = z3.Solver()
        solver.add(*emitted.without(breaks_iree_default).assertions)
        solver.add(*[z3.Int(k) == v for k, v in _iree_assignment(configurator, knobs).items()])
        assert solver.check() == z3.sat, knobs


@pytest.mark.parametrize("pipeline", ["TileAndFuse", "VectorDistribute"])
def test_compilation_info_matches_iree_materialization(gpu_dumps, context, pipeline):
    dump = gpu_dumps["mm_mi300x"]
    configurator = GpuContraction(dump.problem, dump.gpu, context, dump.emitted)
    candidates = configurator.candidates()
    hardware = np.isin(candidates.column("mma"), [i for i, x in enumerate(configurator.mmas) if x in dump.gpu.mma])
    mine = np.flatnonzero((candidates.column("vector_distribute") == (pipeline == "VectorDistribute")) & hardware)
    module = parse_module_file(dump.source.parent / f"{dump.stripped.stem}.constraints.mlir", context)
    with context:
        op = next(
            o
            for o in find_ops(module, lambda o: o.name == "iree_codegen.smt.constraints")
            if f"<{pipeline}>" in str(o.attributes["pipeline"])
        )
        for index in (mine[0], mine[len(mine) // 3], mine[-1]):
            knobs = candidates.knobs(int(index))
            if (
                knobs["no_bank_fix"] or knobs["waves_per_eu"] or not knobs["prefetch"]
            ):  # options IREE's knobs leave fixed
                knobs = {**knobs, "no_bank_fix": 0, "waves_per_eu": 0, "prefetch": 2}
            theirs = str(iree_codegen.materialize_compilation_info(op, _iree_assignment(configurator, knobs)))
            assert configurator.compilation_info(knobs) == theirs


def _default_knobs(dump: GpuDump, config: str) -> dict[str, int]:
    """IREE's chosen configuration in mltune's knobs (VectorDistribute: per-subgroup tiles from the subgroup counts)."""
    lists = {
        name: [int(v) for v in values.split(",")]
        for name, values in re.findall(r"\b(workgroup|subgroup|reduction) = \[([^\]]*)\]", config)
    }
    mma_name = re.search(r"mma_layout<(\w+)>", config).group(1)
    prefetch = re.search(r"prefetch_num_stages = (\d+)", config)
    common = {
        "mma_name": mma_name,
        "sg_size": int(re.search(r"subgroup_size = (\d+)", config).group(1)),
        "prefetch": int(prefetch.group(1)) if prefetch else 0,
    }
    wg, red = lists["workgroup"], lists["reduction"]
    p = dump.problem
    if "VectorDistribute" in config:  # the innermost M, N, K loops (a convolution's output width and channels)
        counts = [int(v) for v in re.search(r"subgroup_basis = \[\[([^\]]*)\]", config).group(1).split(",")]
        mma = next(m for m in dump.gpu.mma if m.name == mma_name)
        mi, ni, ki = p.m[-1], p.n[-1], p.k[-1]
        tiles = {
            "wg_m": wg[mi],
            "wg_n": wg[ni],
            "sg_m": wg[mi] // (counts[mi] * mma.m),
            "sg_n": wg[ni] // (counts[ni] * mma.n),
            "red_k": red[ki] // mma.k,
            "vector_distribute": 1,
            **common,
        }
        if p.op_kind == "convolution":
            assert wg[:2] == [1, 1] and red[4:6] == [1, 1]
            names = {"wg_m": "wg_ow", "wg_n": "wg_oc", "sg_m": "sg_ow", "sg_n": "sg_oc"}
            return {"wg_b": 1, "wg_oh": 1, "sg_oh": 1, **{names.get(k, k): v for k, v in tiles.items()}}
        return tiles
    sg = lists["subgroup"]
    if p.op_kind == "convolution":  # IGEMM loops [batch, out_h, out_w, out_channel, K]
        assert sg[0] == 1
        return {
            "wg_b": wg[0],
            "wg_oh": wg[1],
            "wg_ow": wg[2],
            "wg_oc": wg[3],
            "sg_oh": sg[1],
            "sg_ow": sg[2],
            "sg_oc": sg[3],
            "red_k": red[4],
            "vector_distribute": 0,
            **common,
        }
    return {
        "wg_m": wg[p.m[0]],
        "wg_n": wg[p.n[0]],
        "sg_m": sg[p.m[0]],
        "sg_n": sg[p.n[0]],
        "red_k": red[p.k[0]],
        "vector_distribute": 0,
        **common,
    }


@pytest.mark.parametrize(
    "name, pipeline", [(name, pipeline) for name in CASES for pipeline in ("TileAndFuse", "VectorDistribute")]
)
def test_iree_default_is_in_the_space(gpu_dumps, context, name, pipeline):
    """IREE's own configuration of each pipeline (VectorDistribute: IREE's choice when TileAndFuse is off for matmuls,
    IGEMM for convolutions)."""
    dump = gpu_dumps[name]
    config = dump.default_config if pipeline == "TileAndFuse" else dump.vd_default_config
    assert f"pipeline<{pipeline}>" in config
    configurator = configurator_for(dump, context)
    default = _default_knobs(dump, config)
    mma = [m.name for m in configurator.mmas].index(default.pop("mma_name"))
    knobs = {**default, "mma": mma, "no_bank_fix": 0, "waves_per_eu": 0}
    assert configurator.candidates().index_of({**knobs, **_mma_shape(configurator, knobs)}) is not None, (knobs, config)


def test_spec_and_annotation_carry_the_config(gpu_dumps, context, tmp_path):
    dump = gpu_dumps["mm_mi300x"]
    configurator = GpuContraction(dump.problem, dump.gpu, context, dump.emitted)
    info = configurator.compilation_info(configurator.candidates().knobs(0))
    spec = SpecApplier(context).apply(dump.problem, info)
    assert spec.kind == "spec" and info in spec.text and "transform.iree.match.contraction" in spec.text
    annotated = AnnotationApplier(dump.stripped, context).apply(dump.problem, info)
    assert annotated.kind == "source"
    with context:
        module = ir.Module.parse(annotated.text)
        (root,) = iree_codegen.get_tuner_root_ops(module)
        assert str(root.attributes["compilation_info"]) == info


@pytest.mark.e2e
@pytest.mark.parametrize(
    "name, pipeline",
    [
        ("mm_mi300x", "TileAndFuse"),
        ("mm_sm80", "TileAndFuse"),
        ("bmm_mi300x", "TileAndFuse"),
        ("conv_mi300x", "TileAndFuse"),
        ("mm_mi300x", "VectorDistribute"),
        ("mm_sm90", "VectorDistribute"),
        ("bmm_mi300x", "VectorDistribute"),
        ("conv_mi300x", "VectorDistribute"),
    ],
)
def test_applied_candidates_compile_with_their_config(gpu_dumps, context, tmp_path, name, pipeline):
    """A non-default candidate, applied the target's way, compiles and the compiler used its pipeline and tiles."""
    dump = gpu_dumps[name]
    configurator = configurator_for(dump, context)
    candidates = configurator.candidates()
    differs = (
        int(i)
        for i in np.roll(np.arange(len(candidates)), -(len(candidates) // 2))  # from the middle on
        if configurator.pipeline_of(candidates.knobs(i)) == pipeline
        and f"workgroup = {_workgroup(configurator, candidates.knobs(i))}" not in dump.default_config
    )
    knobs = candidates.knobs(next(differs))
    info = configurator.compilation_info(knobs)
    applier = AnnotationApplier(dump.stripped, context) if dump.target.kind == "cuda" else SpecApplier(context)
    result = run(applied_compile_args(applier.apply(dump.problem, info), dump.stripped, tmp_path))
    assert result.returncode == 0, result.stderr[-2000:]
    configured = "".join(p.read_text() for p in (tmp_path / "configs").glob("*.mlir"))
    assert f"workgroup = {_workgroup(configurator, knobs)}" in configured and f"pipeline<{pipeline}>" in configured


def _workgroup(configurator: GpuContraction | GpuConvolution, knobs: dict[str, int]) -> str:
    return re.search(r"workgroup = (\[[^\]]*\])", configurator.compilation_info(knobs)).group(1)


@pytest.mark.e2e
@pytest.mark.parametrize(
    "target, source",
    [
        pytest.param("gfx942", matmul_source(128, 256, 192, "f16", "f32", transpose_rhs=True), id="mm_gfx942"),
        pytest.param("sm_80", matmul_source(128, 256, 192, "f16", "f32", transpose_rhs=True), id="mm_sm80"),
        # unaligned: candidates carry padding
        pytest.param(
            "mi300x", matmul_source(100, 300, 200, "f16", "f32", transpose_rhs=True), id="mm_unaligned_mi300x"
        ),
        # the heuristic's first picks use a 32x32 MMA on the 16-wide output image: padded too
        pytest.param("mi300x", CONV, id="conv_mi300x"),
    ],
)
@pytest.mark.slow
def test_cli_compile_only_end_to_end(tmp_path, target, source):
    (tmp_path / "mm.mlir").write_text(source)
    result = mltune(
        ["tune", "mm.mlir", "--target", target, "--compile-only", "--budget", "4", "--run-dir", "run"], cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-2000:]
    rows = re.findall(r"(TileAndFuse|VectorDistribute)\s+\d+\s+[\d.]+\s+(\d+)/(\d+)", result.stdout)
    assert rows and all(ok == tried for _, ok, tried in rows) and sum(int(t) for _, _, t in rows) == 4, result.stdout
    assert "nothing was benchmarked" in result.stdout
    assert len(list((tmp_path / "run" / "candidates").glob("*/candidate_*/module.vmfb"))) == 4


@pytest.mark.e2e
@pytest.mark.slow  # 5 s: a whole compile-only tune
def test_iree_flags_reach_every_compile(tmp_path):
    """`--iree-flag` goes to the dump, IREE's default and the candidates: here a flag that makes
    iree-compile write each dispatch's source into a folder of the run."""
    (tmp_path / "mm.mlir").write_text(matmul_source(128, 256, 192, "f16", "f32", transpose_rhs=True))
    result = mltune(
        [
            "tune",
            "mm.mlir",
            "--target",
            "gfx942",
            "--compile-only",
            "--budget",
            "2",
            "--run-dir",
            "run",
            "--iree-flag=--iree-hal-dump-executable-sources-to=sources",
        ],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    rows = re.findall(r"(TileAndFuse|VectorDistribute)\s+\d+\s+[\d.]+\s+(\d+)/(\d+)", result.stdout)
    assert rows and all(ok == tried for _, ok, tried in rows) and sum(int(t) for _, _, t in rows) == 2, result.stdout
    assert list((tmp_path / "sources").glob("*.mlir"))


def _both_pipelines_compiled(result: subprocess.CompletedProcess, tmp_path: Path) -> str:
    """Checks a `--compile-only` run built candidates of both pipelines and all compiled; returns their specs."""
    assert result.returncode == 0, result.stderr[-2000:]
    rows = dict(
        (pipeline, (int(ok), int(tried)))
        for pipeline, ok, tried in re.findall(
            r"(TileAndFuse|VectorDistribute)\s+\d+\s+[\d.]+\s+(\d+)/(\d+)", result.stdout
        )
    )
    assert set(rows) == {"TileAndFuse", "VectorDistribute"} and all(ok == tried for ok, tried in rows.values()), (
        result.stdout
    )
    configs = "".join(p.read_text() for p in (tmp_path / "run" / "candidates").glob("*/candidate_*/spec.mlir"))
    assert "pipeline<VectorDistribute>" in configs
    return configs


@pytest.mark.slow
@pytest.mark.e2e
def test_cli_compile_only_vector_distribute_gfx942(tmp_path):
    """Shuffled candidates of both pipelines on gfx942 all compile (for this small matmul the heuristic's
    first eight are all TileAndFuse)."""
    (tmp_path / "mm.mlir").write_text(matmul_source(128, 256, 192, "f16", "f32", transpose_rhs=True))
    result = mltune(
        [
            "tune",
            "mm.mlir",
            "--target",
            "gfx942",
            "--compile-only",
            "--budget",
            "8",
            "--run-dir",
            "run",
            "--ranker",
            "shuffle",
        ],
        cwd=tmp_path,
    )
    assert "subgroup_basis" in _both_pipelines_compiled(result, tmp_path)


def _conv_vd_assignment(configurator: GpuConvolution, knobs: dict[str, int]) -> dict[str, int]:
    """A VectorDistribute convolution candidate in the names of IREE's emitted knobs (loops n, oh, ow, oc, kh, kw, c)."""
    derived = configurator.derived_values(knobs)
    return {
        "wg_2": knobs["wg_ow"],
        "wg_3": knobs["wg_oc"],
        "red_6": knobs["red_k"] * knobs["mma_k"],
        "mma_idx": knobs["mma"],
        "sg_size": knobs["sg_size"],
        "prefetch_num_stages": knobs["prefetch"],
        "sg_m_cnt": derived["count_m"],
        "sg_n_cnt": derived["count_n"],
        "wg_size_x": derived["workgroup_size"],
        "wg_size_y": 1,
        "wg_size_z": 1,
    }


@pytest.mark.slow
def test_every_conv_vector_distribute_candidate_satisfies_iree_constraints(gpu_dumps, context):
    """All VectorDistribute points of the convolution satisfy IREE's emitted constraints (less those its own defaults
    break), and the first, a middle and the last build the `compilation_info` IREE's materializer builds."""
    dump = gpu_dumps["conv_mi300x"]
    emitted = emitted_for(dump, "VectorDistribute")
    configurator = configurator_for(dump, context)
    candidates = configurator.candidates()
    mine = np.flatnonzero(candidates.column("vector_distribute") == 1)
    assert 100 < len(mine) < len(candidates)
    solver = z3.Solver()
    solver.add(*emitted.without(breaks_iree_default).assertions)
    names = list(_conv_vd_assignment(configurator, candidates.knobs(int(mine[0]))))
    for index in mine:
        assignment = _conv_vd_assignment(configurator, candidates.knobs(int(index)))
        assert solver.check(*[z3.Int(k) == assignment[k] for k in names]) == z3.sat, assignment
    module = parse_module_file(dump.source.parent / f"{dump.stripped.stem}.constraints.mlir", context)
    with context:
        op = next(
            o
            for o in find_ops(module, lambda o: o.name == "iree_codegen.smt.constraints")
            if "<VectorDistribute>" in str(o.attributes["pipeline"])
        )
        for index in (mine[0], mine[len(mine) // 2], mine[-1]):
            knobs = {**candidates.knobs(int(index)), "no_bank_fix": 0, "waves_per_eu": 0, "prefetch": 0}
            theirs = str(iree_codegen.materialize_compilation_info(op, _conv_vd_assignment(configurator, knobs)))
            # IREE's materializer leaves a prefetch of 0 unset, which is IREE's VectorDistribute default
            assert configurator.compilation_info(knobs).replace("prefetch_num_stages = 0, ", "") == theirs


@pytest.mark.slow
@pytest.mark.e2e
def test_cli_compile_only_conv_both_pipelines_mi300x(tmp_path):
    """Shuffled candidates of a convolution compile for mi300x with both pipelines (seed 6 puts a VectorDistribute
    candidate, 5 % of this space, among the first four)."""
    (tmp_path / "conv.mlir").write_text(CONV)
    result = mltune(
        [
            "tune",
            "conv.mlir",
            "--target",
            "mi300x",
            "--compile-only",
            "--budget",
            "4",
            "--run-dir",
            "run",
            "--ranker",
            "shuffle",
            "--seed",
            "6",
        ],
        cwd=tmp_path,
    )
    assert "use_igemm_convolution = false" in _both_pipelines_compiled(result, tmp_path)


def _heuristic_order(problem: Problem, gpu: GpuInfo, candidates) -> np.ndarray:
    from mltune.rankers import RankingInput, make_ranker

    ranker = make_ranker("heuristic", seed=3)
    ranker.start(RankingInput(problem, gpu, candidates))  # dispatches on the target kind
    order = np.array(ranker.ask(len(candidates)))
    assert sorted(order.tolist()) == list(range(len(candidates)))
    return order


@pytest.mark.parametrize("name", ["mm_mi300x", "mm_sm90"])
def test_gpu_heuristic_puts_spilling_tiles_last_then_orders_by_estimated_time(gpu_dumps, context, name):
    from mltune.features.gpu import gpu_contraction_features
    from mltune.features.gpu_throughput import contraction_estimate
    from mltune.rankers.estimate_buckets import estimate_buckets

    dump = gpu_dumps[name]
    candidates = GpuContraction(dump.problem, dump.gpu, context, dump.emitted).candidates()
    assert np.isfinite(gpu_contraction_features(dump.problem, dump.gpu, candidates).values).all()
    estimate = contraction_estimate(dump.problem, dump.gpu, candidates)
    order = _heuristic_order(dump.problem, dump.gpu, candidates)
    spills = estimate.spills[order]
    assert spills.any() and not spills[: np.count_nonzero(~spills)].any()
    buckets = estimate_buckets(estimate.cycles[order][~spills])
    assert (np.diff(buckets) >= 0).all() and buckets[0] < buckets[-1]


def test_gpu_heuristic_on_a_large_shape_it_never_saw_leads_with_tiles_that_fit(gpu_dumps, context):
    """Synthetic problem (8192^3 f16, no measurement of it exists), its space from mltune's own rules for sm_90: the
    first 24 candidates keep their accumulators in registers (255 per thread: 256 accumulators per thread ran up
    to 16x slower than IREE's default on the H100) and give every SM work."""
    from mltune.features.gpu import gpu_contraction_features
    from mltune.features.gpu_throughput import contraction_estimate

    dump = gpu_dumps["mm_sm90"]
    problem = Problem(**{**dump.problem.to_record(), "bounds": (8192, 8192, 8192)})
    candidates = GpuContraction(problem, dump.gpu, context).candidates()
    first = _heuristic_order(problem, dump.gpu, candidates)[:24]
    features = gpu_contraction_features(problem, dump.gpu, candidates)
    estimate = contraction_estimate(problem, dump.gpu, candidates)
    assert (features["accumulator_registers"] >= 256).any() and (features["accumulator_registers"][first] < 256).all()
    assert not estimate.spills[first].any() and (estimate.registers[first] <= 255).all()
    assert (features["workgroups"][first] >= dump.gpu.cores).all()


def test_register_files_and_bank_conflicts(gpu_dumps):
    from mltune.features.gpu_throughput import bank_conflicts

    hopper, cdna3 = gpu_dumps["mm_sm90"].gpu, gpu_dumps["mm_mi300x"].gpu
    assert (hopper.registers_per_thread, hopper.registers_per_cu) == (255, 65536)
    assert (cdna3.registers_per_thread, cdna3.registers_per_cu) == (512, 4 * 512 * 64)
    # unpadded rows of 8 f16 share no bank; of 64 f16 (128 bytes) all 8 rows of a fragment hit the same banks
    assert bank_conflicts(np.array([16, 32, 64, 128, 1024])).tolist() == [1, 2, 4, 8, 8]


def test_dispatch_for_another_target_is_refused(gpu_dumps, tmp_path):
    """A dumped ROCm dispatch tuned with the default (host) target: one line, exit 2, before any compile."""
    result = mltune(["tune", str(gpu_dumps["mm_mi300x"].bench), "--run-dir", "run"], cwd=tmp_path)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert "compiled for rocm (gfx942)" in result.stderr and "--target host" in result.stderr


def test_the_forest_at_tune_time_computes_the_training_columns(gpu_dumps, context, tmp_path, monkeypatch):
    """Synthetic sm_90 records (made-up times) without stored facts, as the first H100 records were written: training
    rebuilds the facts from the arch; `tune --ranker random-forest` reads them from the dumped dispatch. They must be
    the same facts, so that one candidate gets the same feature row in both, and the forest ranks the real space."""
    from learn_helpers import write_synthetic_gpu_dataset

    from mltune.features.gpu_relative import gpu_gemm_features
    from mltune.learn.samples import load_dataset
    from mltune.learn.train import train
    from mltune.rankers import RankingInput, make_ranker

    dump = gpu_dumps["mm_sm90"]
    other = Problem(**{**dump.problem.to_record(), "bounds": (512, 256, 192)})
    root = write_synthetic_gpu_dataset(tmp_path / "datasets", [dump.problem, other], dump.gpu, store_target=False)
    samples = next(p for p in load_dataset(root, "sm_90").problems if p.problem == dump.problem)
    assert samples.target == dump.gpu
    train(root, "sm_90", tmp_path / "models", force=True)

    candidates = configurator_for(dump, context).candidates()
    ranking_input = RankingInput(dump.problem, dump.gpu, candidates)
    trained = samples.features()
    at_tune_time = gpu_gemm_features(dump.problem, dump.gpu, candidates)
    assert at_tune_time.names == trained.names
    rows = [(row, candidates.index_of(samples.candidates.knobs(row))) for row in range(len(samples.candidates))]
    rows = [(row, index) for row, index in rows if index is not None]  # the compiler's constraints may drop some
    assert rows
    for row, index in rows:
        np.testing.assert_array_equal(at_tune_time.values[index], trained.values[row])

    monkeypatch.setenv("MLTUNE_HOME", str(tmp_path))  # the forest reads the data home's models/ARCH/KIND/ first
    ranker = make_ranker("random-forest", 0, dump.gpu)
    ranker.start(ranking_input)
    assert sorted(ranker.ask(len(candidates))) == list(range(len(candidates)))
