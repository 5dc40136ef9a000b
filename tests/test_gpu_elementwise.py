"""GPU elementwise ops (compile only, no GPU): a GELU, a bias add written transposed, a transpose whose output IREE
stages in shared memory and an embedding gather, at BERT sizes, get the GPU elementwise space on gfx942 and sm_90;
the space holds IREE's own TileAndFuse config; sampled candidates applied the target's way (spec on ROCm, the
dumped dispatch annotated on CUDA) compile with exactly their config; the features and heuristic work on them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from iree_helpers import applied_compile_args, checked_heuristic_order, dump_gpu_model, dumped_translation, run

from mltune.emit.apply import annotatable_keys, make_applier, match_key
from mltune.features import extractor_for
from mltune.features.gpu_elementwise import TRANSACTION_BYTES, gpu_elementwise_features
from mltune.frontend.problem import ELEMENTWISE, Problem
from mltune.spaces.configure import make_configurator
from mltune.spaces.gpu_elementwise import GpuElementwise, contiguous_loops
from mltune.targets import GpuInfo, GpuTarget


def _generic(name: str, ins: list[tuple[str, str]], out: tuple[str, str], body: str, loops: int) -> str:
    """`@main` of one `linalg.generic`: `ins` and `out` are (indexing map results, tensor type)."""
    dims = ", ".join(f"d{i}" for i in range(loops))
    maps = ", ".join(f"affine_map<({dims}) -> ({results})>" for results, _ in [*ins, out])
    args = ", ".join(f"%a{i}: {kind}" for i, (_, kind) in enumerate(ins))
    operands = ", ".join(f"%a{i}" for i in range(len(ins)))
    kinds = ", ".join(kind for _, kind in ins)
    iterators = ", ".join(['"parallel"'] * loops)
    return f"""func.func @{name}({args}) -> {out[1]} {{
  %e = tensor.empty() : {out[1]}
  %r = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{iterators}]}} ins({operands} : {kinds}) outs(%e : {out[1]}) {{
{body}
  }} -> {out[1]}
  return %r : {out[1]}
}}
"""


MODELS = {
    "gelu": _generic("main", [("d0, d1", "tensor<128x3072xf32>")], ("d0, d1", "tensor<128x3072xf32>"), """
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 0.5 : f32
    %t = math.tanh %x : f32
    %m = arith.mulf %t, %c : f32
    %y = arith.mulf %m, %x : f32
    linalg.yield %y : f32""", 2),
    "bias_transposed": _generic("main", [("d0, d1, d2", "tensor<12x128x64xf32>"), ("d1, d2", "tensor<128x64xf32>")],
                                ("d1, d0, d2", "tensor<128x12x64xf32>"), """
  ^bb0(%x: f32, %b: f32, %o: f32):
    %y = arith.addf %x, %b : f32
    linalg.yield %y : f32""", 3),
    "transpose": _generic("main", [("d0, d1", "tensor<128x768xf32>"), ("d1", "tensor<768xf32>")],
                          ("d1, d0", "tensor<768x128xf32>"), """
  ^bb0(%x: f32, %b: f32, %o: f32):
    %y = arith.addf %x, %b : f32
    linalg.yield %y : f32""", 2),
    "gather": _generic("main", [("d0", "tensor<128xi64>"), ("d0, d1", "tensor<128x768xf32>")],
                       ("d0, d1", "tensor<128x768xf32>"), """
  ^bb0(%id: i64, %p: f32, %o: f32):
    %col = linalg.index 1 : index
    %row = arith.index_cast %id : i64 to index
    %w = tensor.extract %table[%row, %col] : tensor<1024x768xf32>
    %y = arith.addf %w, %p : f32
    linalg.yield %y : f32""", 2).replace("func.func @main(", "func.func @main(%table: tensor<1024x768xf32>, "),
}
TARGETS = ("gfx942", "sm_90")
CASES = [(target, model) for target in TARGETS for model in MODELS]
_LISTS = re.compile(r"\b(workgroup|thread|promote_operands) = \[([\d, ]*)\]")
_LOWERING = re.compile(r"lowering_config = (#iree_gpu.lowering_config<\{[^\n]*?\}>)")


@dataclass
class ElementwiseDump:
    target: GpuTarget
    source: Path  # the model as mltune compiles it
    stripped: Path  # the dumped dispatch without its configuration
    problem: Problem
    gpu: GpuInfo
    lowering: str  # IREE's own lowering_config of the root op
    translation: str
    configurator: GpuElementwise


@pytest.fixture(scope="module")
def dumps(tmp_path_factory, context) -> dict[tuple[str, str], ElementwiseDump]:
    root = tmp_path_factory.mktemp("gpu_elementwise")
    found = {}
    for target_name, model in CASES:
        directory = root / f"{target_name}_{model}"
        directory.mkdir()
        target, source, bench, stripped, problem, gpu = dump_gpu_model(MODELS[model], target_name, directory, context)
        text = bench.read_text()
        configurator = make_configurator(problem, gpu, context, stripped, directory / "work")
        found[target_name, model] = ElementwiseDump(target, source, stripped, problem, gpu,
                                                    _LOWERING.search(text).group(1), dumped_translation(text),
                                                    configurator)
    return found


def _knobs(lowering: str, loops: int) -> dict[str, int]:
    """A TileAndFuse elementwise config read back in the space's knobs."""
    lists = {name: [int(v) for v in values.split(",")] for name, values in _LISTS.findall(lowering)}
    knobs = {f"{level}_{loop}": lists[name][loop] for loop in range(loops)
             for level, name in (("wg", "workgroup"), ("th", "thread"))}
    return knobs | {"promote": int("promote_operands" in lists)}


def test_elementwise_ops_read_as_problems_with_their_loops_and_operands(dumps):
    """Every loop in `m`, the inputs counted, a transposed operand tagged, the gather's index type kept."""
    layouts = {model: dumps["gfx942", model].problem.layout for model in MODELS}
    assert layouts == {"gelu": "p_in1", "bias_transposed": "ppp_t_in2", "transpose": "pp_t_in2", "gather": "pp_in2"}
    gather = dumps["gfx942", "gather"].problem
    assert gather.op_kind == ELEMENTWISE and gather.m == (0, 1) and gather.operand_types == ("i64", "f32", "f32")
    assert contiguous_loops(dumps["gfx942", "transpose"].problem) == (0, 1)
    assert contiguous_loops(dumps["gfx942", "bias_transposed"].problem) == (2,)


@pytest.mark.parametrize("case", CASES)
def test_iree_default_is_in_the_gpu_elementwise_space(dumps, case):
    """IREE's TileAndFuse config of the dispatch is a point of the space, rebuilt exactly."""
    dump = dumps[case]
    assert isinstance(dump.configurator, GpuElementwise), dump.configurator
    knobs = _knobs(dump.lowering, len(dump.problem.bounds))
    candidates = dump.configurator.candidates()
    assert 10 < len(candidates) < 20000 and candidates.index_of(knobs) is not None, (knobs, dump.lowering)
    info = dump.configurator.compilation_info(knobs)
    translation = dump.translation.removeprefix("#iree_codegen.translation_info")
    assert f"lowering_config = {dump.lowering}, translation_info = {translation}>" == info.split("<", 1)[1]


@pytest.mark.e2e
@pytest.mark.parametrize("case", CASES)
def test_candidates_compile_with_their_config(dumps, context, tmp_path, case):
    """Two random candidates compile and the root carries exactly their config. ROCm: a spec beside the model; CUDA:
    the dumped dispatch annotated."""
    dump = dumps[case]
    candidates = dump.configurator.candidates()
    source = dump.stripped if dump.target.kind == "cuda" else dump.source
    applier = make_applier(dump.target.kind, source, context)
    for i, index in enumerate(np.random.default_rng(2).choice(len(candidates), 2, replace=False)):
        knobs = candidates.knobs(int(index))
        applied = applier.apply(dump.problem, dump.configurator.compilation_info(knobs))
        out = tmp_path / f"candidate_{i}"
        out.mkdir()
        flags = [] if dump.target.kind == "cuda" else dump.target.compile_flags()  # a dispatch names its target
        result = run(applied_compile_args(applied, source, out, flags))
        assert result.returncode == 0, result.stderr[-2000:]
        configured = "".join(path.read_text() for path in (out / "configs").glob("*.mlir"))
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
