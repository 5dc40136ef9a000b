"""Batch matmuls with a unit batch (a transformer's matmuls as exported) on GPU targets, compile only (no GPU here).

Their dumped dispatch, compiled from the start, is configured as another loop nest than the model's (global
optimization runs on it again), and IREE emits their constraints for that nest (`mltune/spaces/emitted_loops.py`
renumbers them). Candidates applied the target's way, to the model or to the dump as mltune builds one (from the phase
it was dumped at), compile with their own tiles."""

from __future__ import annotations

import re
import subprocess

import pytest
from gpu_dump_helpers import dump_gpu_model
from iree_helpers import applied_compile_args, batch_matmul_source

from mltune.emit.apply import make_applier
from mltune.input.tuning_input import prepare_input
from mltune.spaces.configure import make_configurator
from mltune.spaces.gpu_contraction import PIPELINE, GpuContraction
from mltune.spaces.iree_constraints import emit_constraints
from mltune.spaces.vector_distribute import PIPELINE as VECTOR_DISTRIBUTE

CASES = {  # target: operand type (sm_90 has no f32 MMA intrinsic)
    "gfx942": "f32",
    "sm_90": "f16",
}


@pytest.fixture(scope="module", params=sorted(CASES))
def unit_batch(request, tmp_path_factory, context):
    """A 1 x 128 x 192 (K 256) batch matmul dumped for the target: (target, model source, bench, stripped bench,
    problem, configurator)."""
    directory = tmp_path_factory.mktemp(f"unit_batch_{request.param}")
    text = batch_matmul_source(1, 128, 256, 192, CASES[request.param], "f32")
    target, source, bench, stripped, problem, gpu = dump_gpu_model(text, request.param, directory, context)
    return (
        target,
        source,
        bench,
        stripped,
        problem,
        make_configurator(problem, gpu, context, bench, directory / "spaces"),
    )


def test_iree_emits_constraints_for_another_loop_nest(unit_batch, context, tmp_path):
    """Why the renumbering exists: the dispatch holds loops (1, 128, 192, 256), IREE's constraints a contraction
    whose unit batch became a unit M and a unit K loop. If IREE stops doing so, this test says the mapping is moot."""
    _, _, _, stripped, problem, _ = unit_batch
    assert problem.bounds == (1, 128, 192, 256) and problem.batch == (0,)
    tile_and_fuse = next(c for c in emit_constraints(stripped, tmp_path, context) if c.pipeline == PIPELINE)
    assert tile_and_fuse.loop_roles == ("m", "m", "n", "k", "k")
    assert {"wg_0", "sg_0", "red_4", "problem_dim_4"} <= tile_and_fuse.variables()


def test_unit_batch_gets_both_pipelines(unit_batch):
    _, _, _, _, _, configurator = unit_batch
    assert isinstance(configurator, GpuContraction), configurator
    candidates = configurator.candidates()
    pipelines = {configurator.pipeline_of(candidates.knobs(i)) for i in range(len(candidates))}
    assert pipelines == {PIPELINE, VECTOR_DISTRIBUTE}


def _picks(configurator: GpuContraction) -> list[dict[str, int]]:
    """Of each pipeline, its first and its middle candidate."""
    candidates = configurator.candidates()
    picked = []
    for pipeline in (PIPELINE, VECTOR_DISTRIBUTE):
        rows = [i for i in range(len(candidates)) if configurator.pipeline_of(candidates.knobs(i)) == pipeline]
        picked += [candidates.knobs(rows[0]), candidates.knobs(rows[len(rows) // 2])]
    return picked


def _assert_configured_with_their_tiles(configurator, problem, applier, source, flags, tmp_path) -> None:
    """Each of `_picks`, applied to `source` by `applier` and compiled with `flags`: the compiler configured the
    dispatch with its pipeline and workgroup tiles."""
    procs = []
    for index, knobs in enumerate(_picks(configurator)):
        info = configurator.compilation_info(knobs)
        out = tmp_path / str(index)
        out.mkdir()
        args = applied_compile_args(applier.apply(problem, info), source, out, flags)
        procs.append((info, out, subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    for info, out, proc in procs:
        _, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr[-2000:]
        configured = "".join(p.read_text() for p in (out / "configs").glob("*.mlir"))
        workgroup = re.search(r"workgroup = \[[^\]]*\]", info).group(0)
        pipeline = re.search(r"pipeline<\w+>", info).group(0)
        assert workgroup in configured and pipeline in configured, (info, configured[-2000:])


@pytest.mark.e2e
def test_unit_batch_candidates_compile_with_their_tiles(unit_batch, context, tmp_path):
    """Candidates of both pipelines, applied to the model as `mltune tune` applies them (a spec on ROCm, an annotation
    on CUDA), compile, and the compiler configured the dispatch with their pipeline and workgroup tiles."""
    target, source, _, _, problem, configurator = unit_batch
    _assert_configured_with_their_tiles(
        configurator, problem, make_applier(target.kind, source, context), source, target.compile_flags(), tmp_path
    )


@pytest.mark.e2e
@pytest.mark.slow  # 8 compiles; tests/test_gpu_simt.py checks a dump's candidate lands in the default run
def test_the_dumped_dispatch_takes_its_candidates_too(unit_batch, context, tmp_path):
    """Tuned from its dumped benchmark (built as `mltune tune` builds a dump), the same candidates configure the
    dispatch as written."""
    target, _, bench, _, problem, model_space = unit_batch
    tuning_input = prepare_input(bench, target, tmp_path, context)
    configurator = make_configurator(problem, model_space.gpu, context, bench, tmp_path / "spaces")
    assert isinstance(configurator, GpuContraction), configurator
    _assert_configured_with_their_tiles(
        configurator,
        problem,
        make_applier(target.kind, tuning_input.source, context),
        tuning_input.source,
        tuning_input.compile_flags,
        tmp_path,
    )
