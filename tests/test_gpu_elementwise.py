"""GPU elementwise ops (compile only, no GPU): a GELU, a bias add written transposed, a transpose whose output IREE
stages in shared memory and an embedding gather, at BERT sizes, get the GPU elementwise space on gfx942 and sm_90;
the space holds IREE's own TileAndFuse config; sampled candidates applied the target's way (spec on ROCm, the
dumped dispatch annotated on CUDA) compile with exactly their config; the features and heuristic work on them."""

from __future__ import annotations

import re

import numpy as np
import pytest
from gpu_dump_helpers import GpuOpDump, assert_default_rebuilt, configured_candidate, dump_gpu_ops
from iree_helpers import checked_heuristic_order

from mltune.emit.apply import annotatable_keys, match_key
from mltune.features import extractor_for
from mltune.features.gpu_elementwise import TRANSACTION_BYTES, gpu_elementwise_features
from mltune.frontend.one_op_elementwise import BIAS_ADD, BIAS_GELU, Operand, elementwise_model, gather_body
from mltune.frontend.problem import ELEMENTWISE
from mltune.spaces.gpu_elementwise import GpuElementwise, contiguous_loops


MODELS = {  # BERT-base's elementwise dispatches at batch 1 (a 1024-row table for its 30522)
    "gelu": elementwise_model(
        [Operand("d0, d1", "tensor<128x3072xf32>"), Operand("d0, d1", "tensor<128x3072xf32>")],
        Operand("d0, d1", "tensor<128x3072xf32>"),
        BIAS_GELU,
    ),
    "bias_transposed": elementwise_model(
        [Operand("d0, d1, d2", "tensor<12x128x64xf32>"), Operand("d1, d2", "tensor<128x64xf32>")],
        Operand("d1, d0, d2", "tensor<128x12x64xf32>"),
        BIAS_ADD,
    ),
    "transpose": elementwise_model(
        [Operand("d0, d1", "tensor<128x768xf32>"), Operand("d1", "tensor<768xf32>")],
        Operand("d1, d0", "tensor<768x128xf32>"),
        BIAS_ADD,
    ),
    "gather": elementwise_model(
        [Operand("d0", "tensor<128xi64>"), Operand("d0, d1", "tensor<128x768xf32>")],
        Operand("d0, d1", "tensor<128x768xf32>"),
        gather_body("tensor<1024x768xf32>"),
        "tensor<1024x768xf32>",
    ),
}
TARGETS = ("gfx942", "sm_90")
CASES = [(target, model) for target in TARGETS for model in MODELS]
_LISTS = re.compile(r"\b(workgroup|thread|promote_operands) = \[([\d, ]*)\]")
_LOWERING = re.compile(r"lowering_config = (#iree_gpu.lowering_config<\{[^\n]*?\}>)")


@pytest.fixture(scope="module")
def dumps(tmp_path_factory, context) -> dict[tuple[str, str], GpuOpDump]:
    return dump_gpu_ops(tmp_path_factory.mktemp("gpu_elementwise"), MODELS, TARGETS, context)


def _knobs(lowering: str, loops: int) -> dict[str, int]:
    """A TileAndFuse elementwise config read back in the space's knobs."""
    lists = {name: [int(v) for v in values.split(",")] for name, values in _LISTS.findall(lowering)}
    knobs = {
        f"{level}_{loop}": lists[name][loop]
        for loop in range(loops)
        for level, name in (("wg", "workgroup"), ("th", "thread"))
    }
    return knobs | {"promote": int("promote_operands" in lists)}


def test_elementwise_ops_read_as_problems_with_their_loops_and_operands(dumps):
    """Every loop in `m`, the inputs counted, a transposed operand tagged, the gather's index type kept."""
    layouts = {model: dumps["gfx942", model].problem.layout for model in MODELS}
    assert layouts == {"gelu": "p_in2", "bias_transposed": "ppp_t_in2", "transpose": "pp_t_in2", "gather": "pp_in2"}
    gather = dumps["gfx942", "gather"].problem
    assert gather.op_kind == ELEMENTWISE and gather.m == (0, 1) and gather.operand_types == ("i64", "f32", "f32")
    assert contiguous_loops(dumps["gfx942", "transpose"].problem) == (0, 1)
    assert contiguous_loops(dumps["gfx942", "bias_transposed"].problem) == (2,)


@pytest.mark.parametrize("case", CASES)
def test_iree_default_is_in_the_gpu_elementwise_space(dumps, case):
    """IREE's TileAndFuse config of the dispatch is a point of the space, rebuilt exactly."""
    dump = dumps[case]
    assert isinstance(dump.configurator, GpuElementwise), dump.configurator
    assert_default_rebuilt(dump, _knobs(dump.lowering, len(dump.problem.bounds)), 10)


@pytest.mark.e2e
@pytest.mark.parametrize("case", CASES)
def test_candidates_compile_with_their_config(dumps, context, tmp_path, case):
    """Two random candidates compile and the root carries exactly their config. ROCm: a spec beside the model; CUDA:
    the dumped dispatch annotated."""
    dump = dumps[case]
    candidates = dump.configurator.candidates()
    for i, index in enumerate(np.random.default_rng(2).choice(len(candidates), 2, replace=False)):
        knobs = candidates.knobs(int(index))
        configured = configured_candidate(dump, knobs, tmp_path / f"candidate_{i}", context)
        (root,) = _LOWERING.findall(configured)
        assert _knobs(root, len(dump.problem.bounds)) == knobs
        assert f"workgroup_size = {dump.configurator.workgroup_shape(knobs)}" in configured


def test_on_cuda_the_ops_iree_dispatches_unchanged_are_found_in_the_model(dumps, context):
    """A whole-model run on CUDA writes a candidate onto the model's own op: the transposes and the gather are the
    ops IREE dispatches; the GELU is not, since IREE collapses its loops into one (listed as not tuned there)."""
    for model, in_model in {"bias_transposed": True, "transpose": True, "gather": True, "gelu": False}.items():
        dump = dumps["sm_90", model]
        assert (match_key(dump.problem) in annotatable_keys(dump.source, context)) == in_model, model


def test_features_and_heuristic_order(dumps):
    """The heuristic's first candidate reads and writes whole cache lines with stores of 128 bits or more, and IREE's
    default, which does too on these shapes, is in its first half."""
    for case, dump in dumps.items():
        candidates = dump.configurator.candidates()
        assert extractor_for(dump.problem, dump.gpu, ["TileAndFuse"]) is gpu_elementwise_features
        features, order = checked_heuristic_order(gpu_elementwise_features, dump.problem, dump.gpu, candidates)
        first = order[0]
        assert features["min_run_bytes"][first] >= TRANSACTION_BYTES, case
        assert features["store_vector_bytes"][first] >= 16, case
        default = candidates.index_of(_knobs(dump.lowering, len(dump.problem.bounds)))
        assert order.index(default) < len(candidates) // 2, case


def test_a_staged_output_tile_fits_shared_memory(dumps):
    """The transpose's promoted candidates keep their output tile within the 48 KiB a CUDA kernel gets without
    opting in (beyond it sm_90 refuses to compile: "uses 262144 bytes of shared memory")."""
    dump = dumps["sm_90", "transpose"]
    candidates = dump.configurator.candidates()
    promoted = candidates.column("promote") == 1
    tile = candidates.column("wg_0") * candidates.column("wg_1") * 4
    assert promoted.any() and tile[promoted].max() <= 48 * 1024 < tile.max()
