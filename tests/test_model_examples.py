"""The shipped model examples: their dispatches, call counts and what can be tuned, read with the real compiler."""

from __future__ import annotations

from pathlib import Path

from iree_helpers import HOST_FLAGS

from mltune.frontend.problem import Problem, Untunable
from mltune.input.tuning_input import prepare_input
from mltune.whole_model.profile import call_counts, executable_of
from mltune.targets.cpu import CpuTarget
from mltune.input.dispatches import read_dispatches
from mltune.tuning.prepare import configurators

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "models"


def _read(name: str, context, tmp_path):
    tuning_input = prepare_input(EXAMPLES / name, CpuTarget(), tmp_path, context)
    flags = (tmp_path / "inputs" / "flags.txt").read_text().splitlines()
    assert flags == ["--function=main", *(f.flag for f in tuning_input.invocation.inputs)], (
        "the function, then one seeded input file per argument"
    )
    return tuning_input, read_dispatches(tuning_input, context)


def test_transformer_block_calls_and_problems(context, tmp_path):
    tuning_input, dispatches = _read("transformer_block_f32.mlir", context, tmp_path)
    counts = call_counts(tuning_input.source, HOST_FLAGS, tmp_path)
    by_problem: dict[str, int] = {}
    for d in dispatches:
        if isinstance(d.problem, Problem):
            by_problem[d.problem.key] = by_problem.get(d.problem.key, 0) + counts[executable_of(d.name, list(counts))]
    # Q, K, V and the output projection are one problem, in two executables (4 calls); the MLP
    # matmuls and the two attention batch matmuls are one call each; the layer norm's mean and variance dispatches
    # are one reduction (2 calls), the softmax's sum of exponentials another; the heads' transposes around
    # attention are one elementwise problem (3 calls)
    assert by_problem == {
        "elementwise_128x4x64_f32f32f32_ppp_t_in1": 3,
        "reduction_128x256_f32f32f32_pr_in1_norm": 2,
        "reduction_4x128x128_f32f32f32_ppr_in2_norm": 1,
        "contraction_128x256x256_f32f32f32_nn": 4,
        "contraction_128x1024x256_f32f32f32_nn": 1,
        "contraction_128x256x1024_f32f32f32_nn": 1,
        "contraction_4x128x128x64_f32f32f32_nt": 1,
        "contraction_4x128x64x128_f32f32f32_nn": 1,
    }


def test_conv_net_tunes_its_batch_one_convolutions(context, tmp_path):
    _, dispatches = _read("small_convnet_f32.mlir", context, tmp_path)
    untunable = [d.problem for d in dispatches if isinstance(d.problem, Untunable)]
    read = [d for d in dispatches if isinstance(d.problem, Problem)]
    # the batch-1 NHWC x HWCF convolutions get a space (their spec inserts the batch IREE folds away); the sum
    # pooling is a convolution-like op with no channel loops, not tuned
    configured = list(configurators(read, context, tmp_path / "spaces"))
    untunable += [c for _, c in configured if isinstance(c, Untunable)]
    tunable = [d.problem for d, c in configured if not isinstance(c, Untunable)]
    assert len(untunable) == 1 and "convolution" in untunable[0].reason
    assert sorted(p.key for p in tunable) == [
        "contraction_1x10x7200_f32f32f32_nn",
        "convolution_1x30x30x32x3x3x32_f32f32f32_nhwc_hwcf",
        "convolution_1x32x32x32x3x3x16_f32f32f32_nhwc_hwcf",
    ]
