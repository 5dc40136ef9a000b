"""The model profile times every dispatch: dumps whose captured constants IREE dropped are restored, and a dispatch
that still cannot be timed is named with the reason (never a NaN in the table)."""

from __future__ import annotations

import math
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from iree_helpers import dump_command, run

from mltune.frontend.dump_constants import missing_resources, restore_dropped_constants
from mltune.whole_model import profile
from mltune.whole_model.profile import profile_model
from mltune.whole_model.profile_table import profile_lines
from mltune.system.tools import tool_path


def _blob(values: np.ndarray) -> str:
    return "0x04000000" + values.astype(np.float32).tobytes().hex()


def _model_with_constants() -> str:
    """Two dispatches, each capturing a constant tensor held as a `dense_resource` (as PyTorch exports do with a
    convolution's bias): a matmul plus bias, and a scaling."""
    rng = np.random.default_rng(0)  # synthetic constants
    generic = (
        "linalg.generic {{indexing_maps = [{maps}], iterator_types = [{iters}]}} ins({ins}) outs({outs}) {{\n"
        "  ^bb0(%a: f32, %b: f32, %o: f32):\n    %s = {op} %a, %b : f32\n    linalg.yield %s : f32\n  }}"
    )
    row_maps = "affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>"
    bias_add = generic.format(
        maps=row_maps,
        iters='"parallel", "parallel"',
        ins="%mm, %bias : tensor<8x32xf32>, tensor<32xf32>",
        outs="%empty : tensor<8x32xf32>",
        op="arith.addf",
    )
    scaling = generic.format(
        maps=", ".join(["affine_map<(i) -> (i)>"] * 3),
        iters='"parallel"',
        ins="%y, %scale : tensor<64xf32>, tensor<64xf32>",
        outs="%e2 : tensor<64xf32>",
        op="arith.mulf",
    )
    results = "tensor<8x32xf32>, tensor<64xf32>"
    return f"""func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %y: tensor<64xf32>) -> ({results}) {{
  %bias = arith.constant dense_resource<bias_32> : tensor<32xf32>
  %scale = arith.constant dense_resource<scale_64> : tensor<64xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%acc : tensor<8x32xf32>)
    -> tensor<8x32xf32>
  %out = {bias_add} -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %sc = {scaling} -> tensor<64xf32>
  return %out, %sc : {results}
}}
{{-#
  dialect_resources: {{
    builtin: {{
      bias_32: "{_blob(rng.standard_normal(32))}",
      scale_64: "{_blob(rng.standard_normal(64))}"
    }}
  }}
#-}}
"""


@pytest.fixture(scope="module")
def dumps(tmp_path_factory) -> list[Path]:
    root = tmp_path_factory.mktemp("profile")
    source = root / "model.mlir"
    source.write_text(_model_with_constants())
    result = run(dump_command(source, root / "bench", root / "model.vmfb"))
    assert result.returncode == 0, result.stderr[-2000:]
    benches = sorted((root / "bench").glob("*_benchmark.mlir"))
    assert len(benches) == 2
    return benches


@pytest.mark.slow  # the dumps' profile: on CPUs the time shares come from the model's own profile
def test_the_dumps_lack_their_constants_and_get_them_back(dumps, tmp_path):
    for bench in dumps:
        missing = missing_resources(bench.read_text())
        assert set(missing) & {"bias_32", "scale_64"}, "IREE dumps the constant's use, not its blob"
        plain = run([tool_path("iree-compile"), str(bench), "-o", str(tmp_path / "plain.vmfb")])
        assert plain.returncode != 0 and "resource does not exist" in plain.stderr
        restored = restore_dropped_constants(bench, tmp_path / f"{bench.stem}.restored.mlir")
        assert restored != bench and not missing_resources(restored.read_text())
        fixed = run([tool_path("iree-compile"), str(restored), "-o", str(tmp_path / "fixed.vmfb")])
        assert fixed.returncode == 0, fixed.stderr[-2000:]


@pytest.mark.slow  # 5 s: on CPUs the time shares come from the model's own profile (test_in_model_profile)
def test_every_dispatch_is_timed(dumps, tmp_path):
    named = [(bench.stem, bench, "op", None) for bench in dumps]
    profiles = profile_model(named, Counter(), ("local-task",), tmp_path / "profile", jobs=1)
    assert all(p.timed and math.isfinite(p.time_us) and p.time_us > 0 for p in profiles), profiles
    assert sum(p.share for p in profiles) == pytest.approx(1.0)
    table = "\n".join(profile_lines(profiles, [], whole_model=True))
    assert "nan" not in table.lower() and "not timed" not in table


@pytest.mark.slow  # the dumps' profile: on CPUs the time shares come from the model's own profile
def test_a_dispatch_that_cannot_be_timed_is_named_with_the_reason(dumps, tmp_path):
    broken = tmp_path / "broken_benchmark.mlir"
    broken.write_text(dumps[0].read_text().replace("linalg.matmul", "linalg.no_such_op", 1))
    named = [(bench.stem, bench, "op", None) for bench in (dumps[1], broken)]
    profiles = profile_model(named, Counter(), ("local-task",), tmp_path / "profile", jobs=1)
    untimed = [p for p in profiles if not p.timed]
    assert [p.name for p in untimed] == ["broken_benchmark"] and untimed[0].share == 0.0
    assert "does not compile" in untimed[0].untimed and "no_such_op" in untimed[0].untimed
    assert profiles[0].timed and profiles[0].share == pytest.approx(1.0), "the timed dispatch keeps the whole share"
    table = "\n".join(profile_lines(profiles, [], whole_model=True))
    assert "nan" not in table.lower()
    assert "broken_benchmark" in table and "not timed: its dump does not compile" in table


def test_several_devices_share_the_dumps_one_dump_at_a_time_each(monkeypatch, tmp_path):
    """Synthetic timings (a stand-in for `iree-benchmark-module` that sleeps and records its device): eight dumps
    over two devices; both time, neither times two at once, a dump that did not compile uses no device."""
    busy, used, lock = set(), [], threading.Lock()

    def stand_in(vmfb, device):
        with lock:
            assert device not in busy, f"{device} timed two dumps at once"
            busy.add(device)
            used.append(device)
        time.sleep(0.05)
        with lock:
            busy.discard(device)
        return float(vmfb.stem.split("_")[1]), ""

    monkeypatch.setattr(profile, "time_dispatch", stand_in)
    named = [(f"d_{i}", tmp_path / f"d_{i}.mlir", "op", None) for i in range(1, 10)]
    built = [(tmp_path / f"d_{i}.vmfb", "" if i < 9 else "error: no") for i in range(1, 10)]
    profiles = profile.rank_dispatches(named, built, Counter(), ("cuda://0", "cuda://1", "cuda://0"))
    assert len(used) == 8 and set(used) == {"cuda://0", "cuda://1"}
    assert [p.name for p in profiles] == [f"d_{i}" for i in range(8, 0, -1)] + ["d_9"]
    assert sum(p.share for p in profiles) == pytest.approx(1.0) and not profiles[-1].timed
