"""`benchmarks/whole_models/tune_model.py` on GPU targets, without a GPU: its default build is mltune's baseline, byte for
byte, and the command mltune recommends (a spec on ROCm, the annotated model on CUDA) compiles as it reads."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from mltune.execution.build import Builder
from mltune.frontend.mlir import new_context
from mltune.input.tuning_input import prepare_input
from mltune.whole_model.flags import compile_command
from mltune.search.settings import LoopSettings
from mltune.targets import parse_target
from mltune.tuning.compile_only import compile_only
from mltune.tuning.request import TuneRequest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from whole_models import tune_model  # noqa: E402

USER_FLAGS = ["--iree-opt-strip-assertions"]  # a user's --iree-flag: in the default and the tuned build alike
TARGET_TEXT = {"sm_90": b".target sm_90", "mi300x": b"gfx942"}  # in the PTX / the HSA code object


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("target_name", ["sm_90", "mi300x"])
def test_default_and_tuned_builds(tmp_path: Path, target_name: str) -> None:
    target = parse_target(target_name, probe=False)
    model = tune_model.matmul_model("64x128x32", tmp_path)
    default_vmfb = tmp_path / "default.vmfb"
    # mltune's work folder, as the script passes it: an sm_90 copy's path is in the binary
    default_args = tune_model.default_build_args(model, target, USER_FLAGS, tmp_path / "mltune", default_vmfb)
    assert default_args[-len(USER_FLAGS) - 2 :] == [*USER_FLAGS, "-o", str(default_vmfb)]
    tune_model.run(default_args)
    assert TARGET_TEXT[target_name] in default_vmfb.read_bytes()

    context = new_context()
    tuning_input = prepare_input(model, target, tmp_path / "mltune", context, extra_flags=USER_FLAGS)
    baseline = Builder(tuning_input, tmp_path / "mltune" / "candidates", 1).compile(-1, None, "baseline")
    assert baseline.status == "ok" and baseline.sha256 == _sha256(default_vmfb)

    run_dir = tmp_path / "run"  # one candidate, applied as `mltune tune` applies its winner
    request = TuneRequest(
        input_path=model,
        target=target,
        ranker="heuristic",
        settings=LoopSettings(budget=1),
        output=tmp_path / "out.mlir",
        run_dir=run_dir,
        dataset_dir=tmp_path / "datasets",
        compile_flags=tuple(USER_FLAGS),
    )
    (check,), _ = compile_only(request, context)
    assert check.compiled == 1
    candidate = next(p for p in (run_dir / "candidates").rglob("*.mlir"))
    command = (
        compile_command(candidate, tuning_input.compile_flags, None)
        if target.kind == "cuda"
        else compile_command(model, tuning_input.compile_flags, candidate)
    )
    (run_dir / "compile_command.txt").write_text(command + "\n")
    tuned_vmfb = tmp_path / "tuned.vmfb"
    tuned_args = tune_model.tuned_build_args(run_dir, tuned_vmfb)
    assert tuned_args is not None and tuned_args[-2:] == ["-o", str(tuned_vmfb)]
    tune_model.run(tuned_args)
    assert TARGET_TEXT[target_name] in tuned_vmfb.read_bytes()
    assert _sha256(tuned_vmfb) != _sha256(default_vmfb)  # the candidate's configuration was applied


def test_no_recommendation_and_bad_sizes(tmp_path: Path) -> None:
    assert tune_model.tuned_build_args(tmp_path, tmp_path / "tuned.vmfb") is None
    with pytest.raises(tune_model.UserError, match="MxNxK"):
        tune_model.matmul_model("64x0x32", tmp_path)
