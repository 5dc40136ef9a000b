"""`mltune export unet`: a diffusion UNet from a `diffusers` configuration exported as IREE 3.13 compiles it."""

from __future__ import annotations

import numpy as np
import pytest
from iree_helpers import compile_cpu, mltune, run

from mltune.system.tools import tool_path


@pytest.mark.slow
def test_exported_sdxl_shaped_unet_agrees_with_diffusers(tmp_path):
    """SDXL's structure in miniature (added text and time embeddings, whose `torch.concat` IREE 3.13 refuses unless
    the export maps it to `aten.cat`), batch 2 as classifier-free guidance runs it, weights in an .irpa: IREE's
    llvm-cpu build computes what `diffusers` computes on the same inputs."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")
    pytest.importorskip("diffusers")
    from mltune.export.unet import DenoisingStep, build

    result = mltune(["export", "unet", "tiny-sdxl", "--out", "out", "--external-weights"], cwd=tmp_path, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    out = tmp_path / "out"
    flags = out / "tiny-sdxl_unet.flags"
    assert flags.read_text().splitlines()[0] == "--parameters=model=tiny-sdxl_unet.irpa"
    vmfb = compile_cpu(out / "tiny-sdxl_unet.mlir", tmp_path / "unet.vmfb")
    done = run(
        [
            tool_path("iree-run-module"),
            f"--module={vmfb}",
            "--device=local-task",
            f"--flagfile={flags}",
            f"--output=@{tmp_path / 'noise.npy'}",
        ],
        cwd=out,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    inputs = [np.load(out / line.split("@")[1]) for line in flags.read_text().split() if "@" in line]
    assert [a.shape for a in inputs] == [(2, 4, 16, 16), (2,), (2, 77, 64), (2, 16), (2, 6)]
    with torch.no_grad():
        expected = DenoisingStep(build("tiny-sdxl"))(*(torch.from_numpy(a) for a in inputs)).numpy()
    np.testing.assert_allclose(np.load(tmp_path / "noise.npy"), expected, rtol=1e-4, atol=1e-4)
