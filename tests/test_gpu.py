"""GPU targets (compile only: no GPU on the CI machine): target facts, TileAndFuse spaces against Z3 and
against IREE's own constraints and defaults, candidates applied by spec (ROCm) and annotation (CUDA) and
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

from iree_helpers import batch_matmul_source, conv2d_nhwc_source, matmul_source, mltune, read_gpu_dump, run
from mltune.mlir import parse_module_file
from mltune.problem import Problem
from mltune.search.apply import AnnotationApplier, SpecApplier
from mltune.search.gpu_contraction import GpuContraction
from mltune.search.gpu_convolution import GpuConvolution, is_igemm_tile_and_fuse
from mltune.search.iree_constraints import EmittedConstraints, emit_constraints
from mltune.targets import GpuInfo, GpuTarget, parse_target
from mltune.tools import tool_path

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
        args = [tool_path("iree-compile"), str(source), *target.compile_flags(), "--iree-codegen-add-tuner-attributes",
                f"--iree-hal-dump-executable-benchmarks-to={directory / 'bench'}", "-o", str(directory / "m.vmfb")]
        procs[name] = (target, source, subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    dumps = {}
    for name, (target, source, proc) in procs.items():
        _, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr[-2000:]
        bench, stripped, module, problem, gpu, root = read_gpu_dump(source.parent, context)
        text = bench.read_text()
        default = str(root.attributes["lowering_config"]) + re.search(r"translation_info = (#[^\n]*)\}? \{", text).group(1)
        emitted = emit_constraints(stripped, source.parent, context)
        dumps[name] = GpuDump(target, source, bench, stripped, problem, gpu, default, emitted, module)
    return dumps


def tile_and_fuse(dump: GpuDump) -> EmittedConstraints | None:
    return next((c for c in dump.emitted if c.pipeline == "TileAndFuse"), None)


def configurator_for(dump: GpuDump, context) -> GpuContraction | GpuConvolution:
    if dump.problem.op_kind == "convolution":
        return GpuConvolution(dump.problem, dump.gpu, context, next(c for c in dump.emitted if is_igemm_tile_and_fuse(c)))
    return GpuContraction(dump.problem, dump.gpu, context, tile_and_fuse(dump))


def test_target_facts_come_from_target_info(gpu_dumps):
    rocm, cuda, hopper = gpu_dumps["mm_mi300x"].gpu, gpu_dumps["mm_sm80"].gpu, gpu_dumps["mm_sm90"].gpu
    assert (rocm.api, rocm.arch, rocm.sku, rocm.cu_count, rocm.subgroup_sizes) == ("rocm", "gfx942", "mi300x", 304, (64,))
    assert rocm.simds_per_cu == 4 and rocm.shared_memory_bytes == 65536 and rocm.vgpr_space_bits == 16384
    assert {"MFMA_F32_16x16x16_F16", "MFMA_F32_32x32x8_F16", "MFMA_I32_16x16x32_I8"} <= {m.name for m in rocm.mma}
    assert not any("x16B_" in m.name for m in rocm.mma), "multi-block intrinsics are left out"
    assert (cuda.api, cuda.arch, cuda.cu_count, cuda.subgroup_sizes, cuda.shared_memory_bytes) == ("cuda", "sm_80", 0, (32,), 166912)
    assert {m.name for m in cuda.mma} == {"NV_MMA_SYNC_F32_16x8x16_F16", "NV_MMA_SYNC_F16_16x8x16_F16",
                                          "NV_MMA_SYNC_F32_16x8x16_BF16"}
    assert (hopper.arch, hopper.cu_count, hopper.shared_memory_bytes) == ("sm_90", 132, 232448)


def test_parse_target_kinds():
    assert parse_target("host", probe=False).kind == "cpu"
    assert parse_target("mi300x", probe=False) == GpuTarget("rocm", "mi300x")
    assert parse_target("gfx1100", probe=False).kind == "rocm"
    assert parse_target("sm_86", probe=False).compile_flags() == ["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_86"]
    assert parse_target("sm_90", probe=False).compile_flags() == []  # its target is written into the input


@pytest.mark.parametrize("name", list(CASES))
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


@pytest.mark.parametrize("name", ["mm_mi300x", "mm_sm80", "mm_sm90"])
def test_candidates_satisfy_iree_emitted_constraints(gpu_dumps, context, name):
    """IREE's own solver accepts mltune's points (matmul: the compiler emits TileAndFuse constraints)."""
    dump = gpu_dumps[name]
    emitted = tile_and_fuse(dump)
    assert emitted is not None
    configurator = GpuContraction(dump.problem, dump.gpu, context, None)  # mltune's own model only
    with_iree = GpuContraction(dump.problem, dump.gpu, context, emitted)
    assert len(configurator.candidates()) == len(with_iree.candidates()), "own model and IREE's agree"
    candidates = configurator.candidates()
    for index in np.random.default_rng(2).choice(len(candidates), 10, replace=False):
        knobs = candidates.knobs(int(index))
        derived = configurator.derived_values(knobs)
        solver = z3.Solver()
        solver.add(*emitted.assertions)
        iree_names = {"wg_0": knobs["wg_m"], "wg_1": knobs["wg_n"], "sg_0": knobs["sg_m"], "sg_1": knobs["sg_n"],
                      "red_2": knobs["red_k"], "mma_idx": knobs["mma"], "sg_size": knobs["sg_size"],
                      "prefetch_num_stages": knobs["prefetch"], "sg_m_cnt": derived["count_m"],
                      "sg_n_cnt": derived["count_n"], "wg_size_x": derived["workgroup_size"]}
        solver.add(*[z3.Int(k) == v for k, v in iree_names.items()])
        assert solver.check() == z3.sat, knobs


def test_compilation_info_matches_iree_materialization(gpu_dumps, context):
    dump = gpu_dumps["mm_mi300x"]
    configurator = GpuContraction(dump.problem, dump.gpu, context, tile_and_fuse(dump))
    candidates = configurator.candidates()
    module = parse_module_file(dump.source.parent / f"{dump.stripped.stem}.constraints.mlir", context)
    with context:
        ops = []
        module.operation.walk(lambda op: (ops.append(op) if op.name == "iree_codegen.smt.constraints" else None,
                                          ir.WalkResult.ADVANCE)[1])
        op = next(o for o in ops if "TileAndFuse" in str(o.attributes["pipeline"]))
        for index in (0, len(candidates) // 3, len(candidates) - 1):
            knobs = candidates.knobs(index)
            if knobs["no_bank_fix"] or knobs["waves_per_eu"]:
                knobs = {**knobs, "no_bank_fix": 0, "waves_per_eu": 0}  # options IREE's knobs leave fixed
            derived = configurator.derived_values(knobs)
            assignment = {"wg_0": knobs["wg_m"], "wg_1": knobs["wg_n"], "sg_0": knobs["sg_m"], "sg_1": knobs["sg_n"],
                          "red_2": knobs["red_k"], "mma_idx": knobs["mma"], "sg_size": knobs["sg_size"],
                          "prefetch_num_stages": knobs["prefetch"], "wg_size_x": derived["workgroup_size"],
                          "wg_size_y": 1, "wg_size_z": 1, "sg_m_cnt": derived["count_m"], "sg_n_cnt": derived["count_n"]}
            theirs = str(iree_codegen.materialize_compilation_info(op, assignment))
            assert configurator.compilation_info(knobs) == theirs


def _default_knobs(dump: GpuDump) -> dict[str, int]:
    lists = {name: [int(v) for v in values.split(",")] for name, values in
             re.findall(r"\b(workgroup|subgroup|reduction) = \[([^\]]*)\]", dump.default_config)}
    common = {"mma_name": re.search(r"mma_layout<(\w+)>", dump.default_config).group(1),
              "sg_size": int(re.search(r"subgroup_size = (\d+)", dump.default_config).group(1)),
              "prefetch": int(re.search(r"prefetch_num_stages = (\d+)", dump.default_config).group(1))}
    wg, sg, red = lists["workgroup"], lists["subgroup"], lists["reduction"]
    p = dump.problem
    if p.op_kind == "convolution":  # IGEMM loops [batch, out_h, out_w, out_channel, K]
        assert sg[0] == 1
        return {"wg_b": wg[0], "wg_oh": wg[1], "wg_ow": wg[2], "wg_oc": wg[3], "sg_oh": sg[1], "sg_ow": sg[2],
                "sg_oc": sg[3], "red_k": red[4], **common}
    return {"wg_m": wg[p.m[0]], "wg_n": wg[p.n[0]], "sg_m": sg[p.m[0]], "sg_n": sg[p.n[0]], "red_k": red[p.k[0]], **common}


@pytest.mark.parametrize("name", list(CASES))
def test_iree_default_is_in_the_space(gpu_dumps, context, name):
    dump = gpu_dumps[name]
    configurator = configurator_for(dump, context)
    default = _default_knobs(dump)
    mma = [m.name for m in configurator.mmas].index(default.pop("mma_name"))
    knobs = {**default, "mma": mma, "no_bank_fix": 0, "waves_per_eu": 0}
    assert configurator.candidates().index_of({**knobs, **_mma_shape(configurator, knobs)}) is not None, (knobs, dump.default_config)


def test_spec_and_annotation_carry_the_config(gpu_dumps, context, tmp_path):
    dump = gpu_dumps["mm_mi300x"]
    configurator = GpuContraction(dump.problem, dump.gpu, context, tile_and_fuse(dump))
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
@pytest.mark.parametrize("name", ["mm_mi300x", "mm_sm80", "bmm_mi300x", "conv_mi300x"])
def test_applied_candidates_compile_with_their_config(gpu_dumps, context, tmp_path, name):
    """A non-default candidate, applied the target's way, compiles and the compiler used its tiles."""
    dump = gpu_dumps[name]
    configurator = configurator_for(dump, context)
    candidates = configurator.candidates()
    differs = (i for i in range(len(candidates) // 2, len(candidates))
               if f"workgroup = {configurator.tile_lists(candidates.knobs(i))['workgroup']}" not in dump.default_config)
    knobs = candidates.knobs(next(differs))
    info = configurator.compilation_info(knobs)
    applier = AnnotationApplier(dump.stripped, context) if dump.target.kind == "cuda" else SpecApplier(context)
    applied = applier.apply(dump.problem, info)
    source, extra = dump.stripped, []
    if applied.kind == "spec":
        (tmp_path / "spec.mlir").write_text(applied.text)
        extra = [f"--iree-codegen-tuning-spec-path={tmp_path / 'spec.mlir'}"]
    else:
        source = tmp_path / "annotated.mlir"
        source.write_text(applied.text)
    result = run([tool_path("iree-compile"), str(source), *extra,
                  f"--iree-hal-dump-executable-configurations-to={tmp_path / 'configs'}", "-o", str(tmp_path / "x.vmfb")])
    assert result.returncode == 0, result.stderr[-2000:]
    configured = "".join(p.read_text() for p in (tmp_path / "configs").glob("*.mlir"))
    workgroup = configurator.tile_lists(knobs)["workgroup"]
    assert f"workgroup = {workgroup}" in configured


@pytest.mark.e2e
@pytest.mark.parametrize("target, source", [
    pytest.param("gfx942", matmul_source(128, 256, 192, "f16", "f32", transpose_rhs=True), id="mm_gfx942"),
    pytest.param("sm_80", matmul_source(128, 256, 192, "f16", "f32", transpose_rhs=True), id="mm_sm80"),
    # unaligned: candidates carry padding
    pytest.param("mi300x", matmul_source(100, 300, 200, "f16", "f32", transpose_rhs=True), id="mm_unaligned_mi300x"),
    # the heuristic's first picks use a 32x32 MMA on the 16-wide output image: padded too
    pytest.param("mi300x", CONV, id="conv_mi300x"),
])
def test_cli_compile_only_end_to_end(tmp_path, target, source):
    (tmp_path / "mm.mlir").write_text(source)
    result = mltune(["tune", "mm.mlir", "--target", target, "--compile-only", "--budget", "4", "--run-dir", "run"],
                    cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert re.search(r"TileAndFuse\s+\d+\s+[\d.]+\s+4/4\s+100.0 %", result.stdout), result.stdout
    assert "nothing was benchmarked" in result.stdout
    assert len(list((tmp_path / "run" / "candidates").glob("*/candidate_*/module.vmfb"))) == 4


def test_gpu_heuristic_orders_by_the_shark_key(gpu_dumps, context):
    from mltune.features.gpu import gpu_contraction_features
    from mltune.rankers import RankingInput, make_ranker

    dump = gpu_dumps["mm_mi300x"]
    candidates = GpuContraction(dump.problem, dump.gpu, context, tile_and_fuse(dump)).candidates()
    features = gpu_contraction_features(dump.problem, dump.gpu, candidates)
    assert np.isfinite(features.values).all()
    ranker = make_ranker("heuristic", seed=3)
    ranker.start(RankingInput(dump.problem, dump.gpu, candidates))  # dispatches on the target kind
    order = np.array(ranker.ask(len(candidates)))
    assert sorted(order.tolist()) == list(range(len(candidates)))
    first = order[:50]
    assert features["tile_k_pow2"][first].all() and features["subgroups_fill_simds"][first].all()
    assert (features["register_overflow"][first] == 0).all()
    assert features["mma_intensity"][first].min() == features["mma_intensity"].max()
    # wave quantization: 256x384 on 304 CUs leaves most CUs idle with big tiles; the first picks do better
    assert features["wave_inefficiency"][first].mean() < features["wave_inefficiency"].mean()


def test_dispatch_for_another_target_is_refused(gpu_dumps, tmp_path):
    """A dumped ROCm dispatch tuned with the default (host) target: one line, exit 2, before any compile."""
    result = mltune(["tune", str(gpu_dumps["mm_mi300x"].bench), "--run-dir", "run"], cwd=tmp_path)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert "compiled for rocm (gfx942)" in result.stderr and "--target host" in result.stderr
