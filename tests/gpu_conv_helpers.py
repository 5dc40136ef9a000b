"""Batch-1 NCHW convolutions on GPU targets, and their configurations read back from IREE's output: shared by the
tests of the GPU convolution space and of its multi-loop contraction space (a 1x1 convolution as IREE dispatches it)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from iree_helpers import applied_compile_args, run

from mltune.emit.apply import make_applier
from mltune.frontend.conv_loops import output_loops
from mltune.spaces.gpu_convolution import KNOB_OF_LOOP, GpuConvolution


def _conv_source(op: str, x: str, w: str, o: str, stride: int) -> str:
    """A `@main` computing one named convolution `op` of `x` by `w` into a zero-filled f32 `o`."""
    return f"""func.func @main(%x: {x}, %w: {w}) -> {o} {{
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : {o}
  %acc = linalg.fill ins(%zero : f32) outs(%empty : {o}) -> {o}
  %r = {op} {{dilations = dense<1> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}} ins(%x, %w : {x}, {w}) outs(%acc : {o}) -> {o}
  return %r : {o}
}}
"""


def nchw_conv_source(c: int, hw: int, f: int, kernel: int, stride: int, element: str, batch: int = 1) -> str:
    """A `@main` computing one `linalg.conv_2d_nchw_fchw` with an f32 result."""
    out = (hw - kernel) // stride + 1
    return _conv_source(
        "linalg.conv_2d_nchw_fchw",
        f"tensor<{batch}x{c}x{hw}x{hw}x{element}>",
        f"tensor<{f}x{c}x{kernel}x{kernel}x{element}>",
        f"tensor<{batch}x{f}x{out}x{out}xf32>",
        stride,
    )


def nchw_depthwise_source(c: int, hw: int, kernel: int, stride: int) -> str:
    """A `@main` computing one f32 `linalg.depthwise_conv_2d_nchw_chw`, batch 1 (PyTorch's grouped convolution)."""
    out = (hw - kernel) // stride + 1
    return _conv_source(
        "linalg.depthwise_conv_2d_nchw_chw",
        f"tensor<1x{c}x{hw}x{hw}xf32>",
        f"tensor<{c}x{kernel}x{kernel}xf32>",
        f"tensor<1x{c}x{out}x{out}xf32>",
        stride,
    )


_LISTS = re.compile(r"\b(workgroup|subgroup|reduction) = \[([\d, ]*)\]")


def lowering_lists(text: str) -> dict[str, list[int]]:
    lowering = re.search(r"lowering_config = #iree_gpu.lowering_config<\{([^\n]*?)\}>", text).group(1)
    return {name: [int(v) for v in values.split(",")] for name, values in _LISTS.findall(lowering)}


def iree_default_knobs(configurator: GpuConvolution, text: str) -> dict[str, int]:
    """IREE's own TileAndFuse configuration in a dumped dispatch (`text`) as the convolution space's knobs (lists
    over the output's loops, then K)."""
    lists = lowering_lists(text)
    default = {
        "mma": [m.name for m in configurator.mmas].index(re.search(r"mma_layout<(\w+)>", text).group(1)),
        "wg_b": 1,
        "red_k": lists["reduction"][-1],
        "no_bank_fix": 0,
        "waves_per_eu": 0,
        "vector_distribute": 0,
        "sg_size": int(re.search(r"subgroup_size = (\d+)", text).group(1)),
        "prefetch": int(re.search(r"prefetch_num_stages = (\d+)", text).group(1)),
    }
    for i, loop in enumerate(output_loops(configurator.problem)):
        default[f"wg_{KNOB_OF_LOOP[loop]}"] = lists["workgroup"][i]
        if loop != "n":
            default[f"sg_{KNOB_OF_LOOP[loop]}"] = lists["subgroup"][i]
    return default


def assert_sampled_candidates_compile(dump: dict, context, tmp_path: Path) -> None:
    """Two sampled candidates, applied the target's way, compile and their tiles and workgroup size land in the
    executable's configuration."""
    configurator = dump["configurator"]
    candidates = configurator.candidates()
    for i, index in enumerate(np.random.default_rng(3).choice(len(candidates), 2, replace=False)):
        knobs = candidates.knobs(int(index))
        info = configurator.compilation_info(knobs)
        out = tmp_path / str(i)
        out.mkdir()
        applied = make_applier(dump["target"].kind, dump["stripped"], context).apply(dump["problem"], info)
        result = run(applied_compile_args(applied, dump["stripped"], out))
        assert result.returncode == 0, result.stderr[-2000:]
        configured = "".join(p.read_text() for p in (out / "configs").glob("*.mlir"))
        wanted = configurator.tile_lists(knobs)
        assert {name: lowering_lists(configured)[name] for name in wanted} == wanted, (knobs, configured[-2000:])
        size = configurator.derived_values(knobs)["workgroup_size"]
        assert f"workgroup_size = [{size}, 1, 1]" in configured
