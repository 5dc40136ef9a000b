"""GPU matvecs (compile only): contractions IREE configures as a VectorDistribute reduction read as op kind
matvec, the space of that config holds IREE's own default, candidates applied by spec (ROCm) and annotation (CUDA)
compile with their config, and the features and heuristic work on them."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from iree.compiler import ir
from gpu_dump_helpers import dumped_translation, read_gpu_dump, reduction_config_knobs
from iree_helpers import checked_heuristic_order, compile_only_vector_distribute, matmul_source, run

from mltune.emit.apply import AnnotationApplier, SpecApplier, match_key
from mltune.features.gpu_matvec import gpu_matvec_features
from mltune.frontend.problem import Problem
from mltune.input.tuning_input import DUMP_PHASE_FLAG
from mltune.rankers import RankingInput, make_ranker
from mltune.spaces.configure import make_configurator
from mltune.spaces.gpu_matvec import GpuMatvec, row_loop
from mltune.system.tools import tool_path
from mltune.targets import GpuInfo, GpuTarget, parse_target

GEMV = matmul_source(1, 4096, 4096, "f16", "f32", transpose_rhs=True)  # 1x4096x4096, N x K weight
TARGETS = ("mi300x", "sm_90")


@dataclass
class MatvecDump:
    target: GpuTarget
    source: Path  # the model, as mltune compiles it (sm_90: with the target written in)
    stripped: Path
    problem: Problem
    gpu: GpuInfo
    lowering: str  # IREE's own lowering_config of the root op
    translation: str  # and its translation_info
    module: ir.Module


@pytest.fixture(scope="module")
def dumps(tmp_path_factory, context) -> dict[str, MatvecDump]:
    root = tmp_path_factory.mktemp("matvec")
    procs = {}
    for name in TARGETS:
        target = parse_target(name, probe=False)
        (root / name).mkdir()
        source = root / name / "model.mlir"
        source.write_text(GEMV)
        source = target.prepare_source(source, root / name, context)
        args = [
            tool_path("iree-compile"),
            str(source),
            *target.compile_flags(),
            "--iree-codegen-add-tuner-attributes",
            f"--iree-hal-dump-executable-benchmarks-to={root / name / 'bench'}",
            "-o",
            str(root / name / "m.vmfb"),
        ]
        procs[name] = (
            target,
            source,
            subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
        )
    found = {}
    for name, (target, source, proc) in procs.items():
        _, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr[-2000:]
        bench, stripped, module, problem, gpu, root_op = read_gpu_dump(root / name, context)
        found[name] = MatvecDump(
            target,
            source,
            stripped,
            problem,
            gpu,
            str(root_op.attributes["lowering_config"]),
            dumped_translation(bench.read_text()),
            module,
        )
    return found


@pytest.fixture(scope="module")
def configurators(dumps, context, tmp_path_factory) -> dict[str, GpuMatvec]:
    work = tmp_path_factory.mktemp("matvec_spaces")
    found = {
        name: make_configurator(dump.problem, dump.gpu, context, dump.stripped, work / name)
        for name, dump in dumps.items()
    }
    assert all(isinstance(c, GpuMatvec) for c in found.values()), found
    return found


def _knobs(problem: Problem, lowering: str, translation: str) -> dict[str, int]:
    """A reduction config in mltune's knobs."""
    return reduction_config_knobs(lowering, translation, row_loop(problem), problem.k[0])


def test_iree_reduction_configured_contractions_are_matvecs(dumps):
    """IREE's own default for a single-token GEMV is its reduction config, so the problem is a matvec; the source op
    and the stripped dispatch (no configuration) are the contraction it matches."""
    for dump in dumps.values():
        assert dump.problem.op_kind == "matvec" and "partial_reduction" in dump.lowering
        assert dump.problem.key == "matvec_1x4096x4096_f16f16f32_nt"
        assert match_key(dump.problem) == "contraction_1x4096x4096_f16f16f32_nt"
        assert Problem.from_record(dump.problem.to_record()) == dump.problem


@pytest.mark.parametrize("name", TARGETS)
def test_iree_default_is_in_the_space_and_rebuilt_exactly(dumps, configurators, name):
    dump, configurator = dumps[name], configurators[name]
    knobs = _knobs(dump.problem, dump.lowering, dump.translation)
    assert configurator.candidates().index_of(knobs) is not None, (knobs, dump.lowering)
    assert configurator.space.contains(knobs)
    info = configurator.compilation_info(knobs)
    translation = dump.translation.removeprefix("#iree_codegen.translation_info")  # printed bare inside the info
    assert f"lowering_config = {dump.lowering}, translation_info = {translation}>" == info.split("<", 1)[1]


def test_space_sizes_and_z3_agree(configurators):
    for name, configurator in configurators.items():
        candidates = configurator.candidates()
        assert 1000 < len(candidates) < 20000, (name, len(candidates))
        for i in np.random.default_rng(0).choice(len(candidates), 10, replace=False):
            assert configurator.space.contains(candidates.knobs(int(i)))


@pytest.mark.e2e
@pytest.mark.parametrize("name", TARGETS)
def test_candidates_compile_with_their_config(dumps, configurators, context, tmp_path, name):
    """Two random candidates, applied to the model the target's way (spec on ROCm, annotation on CUDA), compile, and
    the compiler configured the dispatch with exactly their lists, workgroup size and subgroup size; on ROCm the
    stripped dump built as mltune builds one (from the phase it was dumped at) too. (Compiled from the start, global
    optimization folds the dump's unit M into a reduction loop, and the spec matches no contraction.)"""
    dump, configurator = dumps[name], configurators[name]
    candidates = configurator.candidates()
    applier = AnnotationApplier(dump.source, context) if dump.target.kind == "cuda" else SpecApplier(context)
    for i, index in enumerate(np.random.default_rng(1).choice(len(candidates), 2, replace=False)):
        knobs = candidates.knobs(int(index))
        applied = applier.apply(dump.problem, configurator.compilation_info(knobs))
        source, extra = tmp_path / f"annotated_{i}.mlir", []
        if applied.kind == "spec":
            source = dump.source
            (tmp_path / f"spec_{i}.mlir").write_text(applied.text)
            extra = [*dump.target.compile_flags(), f"--iree-codegen-tuning-spec-path={tmp_path / f'spec_{i}.mlir'}"]
        else:
            source.write_text(applied.text)
        assert _configured_knobs(dump.problem, [str(source), *extra], tmp_path / f"model_{i}") == knobs
        if applied.kind == "spec":
            built = [str(dump.stripped), DUMP_PHASE_FLAG, extra[-1]]
            assert _configured_knobs(dump.problem, built, tmp_path / f"dump_{i}") == knobs


def _configured_knobs(problem: Problem, args: list[str], out) -> dict[str, int]:
    """`iree-compile ARGS` (source and flags), and the knobs of the configuration IREE gave the dispatch."""
    result = run(
        [
            tool_path("iree-compile"),
            *args,
            f"--iree-hal-dump-executable-configurations-to={out}",
            "-o",
            str(out.with_suffix(".vmfb")),
        ]
    )
    assert result.returncode == 0, result.stderr[-2000:]
    configured = "".join(p.read_text() for p in out.glob("*.mlir"))
    lowering = re.search(r"lowering_config = (#iree_gpu.lowering_config<\{[^\n]*?\}>)", configured).group(1)
    return _knobs(problem, lowering, dumped_translation(configured))


@pytest.mark.slow
@pytest.mark.e2e
def test_cli_compile_only_annotates_the_model(tmp_path):
    """sm_90 through the CLI: the model's `linalg.matmul` carries each candidate's reduction config."""
    candidates = compile_only_vector_distribute(tmp_path, "gemv.mlir", GEMV, "sm_90", 3)
    annotated = sorted(candidates.glob("*/candidate_*/annotated.mlir"))
    assert len(annotated) == 3 and all("partial_reduction" in path.read_text() for path in annotated)


def test_features_and_heuristic_order(dumps, configurators):
    dump, configurator = dumps["sm_90"], configurators["sm_90"]
    candidates = configurator.candidates()
    _, order = checked_heuristic_order(gpu_matvec_features, dump.problem, dump.gpu, candidates)
    first = candidates.knobs(order[0])
    assert first["vector"] * 2 == 16 and first["lanes_k"] * first["vector"] * 2 >= 128  # coalesced 16-byte loads
    default = candidates.index_of(_knobs(dump.problem, dump.lowering, dump.translation))
    assert order.index(default) < len(candidates) // 2


@pytest.mark.parametrize("name", ["shuffle", "tpe"])
def test_generic_rankers_order_matvecs(dumps, configurators, name):
    """Shuffle and TPE need nothing matvec-specific; TPE is told synthetic ratios (faster with more rows per workgroup)."""
    dump, configurator = dumps["mi300x"], configurators["mi300x"]
    candidates = configurator.candidates()
    ranker = make_ranker(name)
    ranker.start(RankingInput(dump.problem, dump.gpu, candidates))
    seen: list[int] = []
    for _ in range(3):
        batch = ranker.ask(8)
        seen += batch
        for index in batch:
            ranker.tell(index, 1.0 / candidates.knobs(index)["rows"])
    assert len(set(seen)) == 24 and all(0 <= i < len(candidates) for i in seen)
