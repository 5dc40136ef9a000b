"""The numerics check on real runtime outputs: a retiled model passes, a model with an altered op is refused."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from iree_helpers import compile_cpu, matmul_source, random_inputs
from test_spec import spec_for

from mltune.whole_model.numerics import compare, run_outputs

# The tiny matmul, then `+ 1e-3` on every element: a wrong result of the kind a broken config would give.
ALTERED = matmul_source(32, 64, 48).replace(
    "  return %r : tensor<32x48xf32>",
    """  %e = tensor.empty() : tensor<32x48xf32>
  %bumped = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]} ins(%r : tensor<32x48xf32>) outs(%e : tensor<32x48xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 1.0e-3 : f32
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<32x48xf32>
  return %bumped : tensor<32x48xf32>""",
)


@pytest.fixture(scope="module")
def outputs(tiny, context, tmp_path_factory):
    root = tmp_path_factory.mktemp("numerics")
    invocation = random_inputs(tiny.source, context, root / "inputs")
    (root / "altered.mlir").write_text(ALTERED)
    (root / "spec.mlir").write_text(
        spec_for(tiny, {"wg_m": 16, "wg_n": 16, "vec_m": 4, "vec_n": 16, "vec_k": 8}, context)
    )
    builds = {
        "default": compile_cpu(tiny.source, root / "default.vmfb"),
        "retiled": compile_cpu(tiny.source, root / "retiled.vmfb", root / "spec.mlir"),
        "altered": compile_cpu(root / "altered.mlir", root / "altered.vmfb"),
    }
    assert (root / "default.vmfb").read_bytes() != (root / "retiled.vmfb").read_bytes(), "the spec changed the code"
    return {name: run_outputs(vmfb, invocation, "local-task", root / f"{name}.npz") for name, vmfb in builds.items()}


def test_a_retiled_model_computes_the_same(outputs):
    verdict = compare(outputs["default"], outputs["retiled"])
    assert verdict.ok, verdict.detail


def test_a_model_with_an_altered_op_is_refused(outputs):
    verdict = compare(outputs["default"], outputs["altered"])
    assert not verdict.ok
    assert "output 0 (float32)" in verdict.detail and "elements differ by more than" in verdict.detail


def test_tolerance_depends_on_the_element_type():
    rng = np.random.default_rng(0)
    ref = rng.uniform(-1, 1, size=(64, 64))
    noisy = ref * (1 + 3e-3)  # 0.3 %: rounding-level for bf16/f16, far too much for f32
    assert not compare([ref.astype(np.float32)], [noisy.astype(np.float32)]).ok
    assert compare([ref.astype(np.float16)], [noisy.astype(np.float16)]).ok
    assert compare([ref.astype(ml_dtypes.bfloat16)], [noisy.astype(ml_dtypes.bfloat16)]).ok
    ints = rng.integers(-5, 5, size=(8,), dtype=np.int32)
    assert compare([ints], [ints.copy()]).ok
    assert not compare([ints], [ints + 1]).ok
    nan = np.array([np.nan, 1.0], dtype=np.float32)
    assert not compare([nan], [np.array([0.0, 1.0], dtype=np.float32)]).ok
    assert not compare([ref.astype(np.float32)], [ref.astype(np.float16)]).ok
