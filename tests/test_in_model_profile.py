"""Each dispatch timed inside runs of the whole model (`mltune.whole_model.in_model`): IREE's HAL profiling on llvm-cpu
read back with `iree-profile`, mapped onto the dumped dispatches, and used by `mltune tune` for the time shares."""

from __future__ import annotations

import contextlib
import json
from dataclasses import replace
from pathlib import Path

import pytest

from mltune.execution.build import Builder
from mltune.frontend.problem import Problem
from mltune.input.call import model_call
from mltune.input.tuning_input import prepare_input
from mltune.whole_model.in_model import FunctionTime, NotProfiled, function_times, profile_in_model, profiling_mode
from mltune.whole_model.profile import problem_times, rank_in_model
from mltune.targets import CpuTarget
from mltune.input.dispatches import read_dispatches

EXPORTS = Path(__file__).resolve().parent.parent / "examples" / "models" / "exported"


def _event(key: str, duration_ns: int, valid: bool = True) -> str:
    return json.dumps({"type": "host_dispatch_event", "key": key, "duration_ns": duration_ns, "valid": valid})


def test_events_become_calls_per_model_call_and_median_times():
    """Synthetic `iree-profile` rows of 2 model calls: a function run 3 times a call, one run once, an invalid
    event and a summary row left out."""
    rows = [_event("main$async_dispatch_1_matmul", ns) for ns in (10_000, 12_000, 11_000, 9_000, 30_000, 11_500)]
    rows += [
        _event("main$async_dispatch_2_conv", 50_000),
        _event("main$async_dispatch_2_conv", 70_000),
        _event("main$async_dispatch_2_conv", 1, valid=False),
        json.dumps({"type": "dispatch_summary"}),
        "noise",
    ]
    conv, matmul = function_times("\n".join(rows), calls=2)
    assert (conv.function, conv.calls, conv.time_us) == ("main$async_dispatch_2_conv", 1, 60.0)
    assert (matmul.calls, matmul.time_us) == (3, pytest.approx(11.25))
    with pytest.raises(NotProfiled):
        function_times(json.dumps({"type": "dispatch_summary"}), calls=2)


def test_only_the_hal_drivers_checked_here_are_profiled():
    assert profiling_mode("local-task") == profiling_mode("local-sync") == "host-execution"
    assert profiling_mode("cuda://0") is None and profiling_mode("hip") is None


@pytest.fixture(scope="module")
def resnet(tmp_path_factory, context):
    """The committed ResNet-50 export, prepared as `mltune tune` prepares it, and IREE's default build."""
    work = tmp_path_factory.mktemp("in_model")
    with contextlib.chdir(EXPORTS):  # the flags file names its input relative to the model, as a user runs it
        call = model_call((), (), None, None, None, Path("resnet50.flags"))
        tuning_input = prepare_input(
            Path("resnet50.mlir").resolve(), CpuTarget(), work, context, call.function, given=call.inputs
        )
    default = Builder(tuning_input, work / "candidates", 2).compile(-1, None, "baseline")
    assert default.status == "ok", default.detail
    named = [
        (d.name, d.bench, d.problem.op_name, d.problem if isinstance(d.problem, Problem) else None)
        for d in read_dispatches(tuning_input, context)
    ]
    return {"input": tuning_input, "vmfb": default.vmfb, "named": named, "work": work}


@pytest.mark.slow  # with the next: 7 s for the committed ResNet-50's default build
def test_every_dumped_dispatch_is_timed_inside_the_model(resnet):
    times = profile_in_model(resnet["vmfb"], resnet["input"].invocation, "local-task", resnet["work"] / "profile")
    profiles = rank_in_model(resnet["named"], times)
    assert {p.name for p in profiles} == {name for name, _, _, _ in resnet["named"]}
    assert all(p.timed_in == "model" and p.calls >= 1 and p.time_us > 0 for p in profiles)
    assert 0.5 < sum(p.share for p in profiles) <= 1.0 + 1e-9, "shares of all the model's dispatch time"
    assert profiles == sorted(profiles, key=lambda p: -p.share)
    missing = [("main$async_dispatch_99_embedded_elf_x86_64", *resnet["named"][0][1:])]
    with pytest.raises(NotProfiled, match="dispatch_99"):
        rank_in_model(missing, times)


@pytest.mark.slow
def test_a_dispatch_benchmark_or_an_unchecked_device_is_not_profiled(resnet):
    invocation = resnet["input"].invocation
    with pytest.raises(NotProfiled, match="one dispatch"):
        profile_in_model(resnet["vmfb"], replace(invocation, dispatch_level=True), "local-task", resnet["work"])
    with pytest.raises(NotProfiled, match="not used on cuda"):
        profile_in_model(resnet["vmfb"], invocation, "cuda://0", resnet["work"])


def test_a_global_initializers_dispatch_is_listed_untimed_not_a_reason_to_time_the_dumps():
    """Synthetic profile: an initializer's dispatch (a decoder's rotary tables) runs as the module loads, so a
    call's profile never holds it; the call's dispatches keep their shares, the initializer's is 0 and says why."""
    times = [
        FunctionTime("main$async_dispatch_3_matmul_128x64x64_f32", 2, 10.0),
        FunctionTime("main$async_dispatch_5_softmax_f32", 1, 5.0),
    ]
    bench = Path("unused.mlir")
    named = [
        ("main$async_dispatch_3_embedded_elf_x86_64", bench, "linalg.matmul", None),
        ("_initializer_0_dispatch_0_embedded_elf_x86_64", bench, "linalg.generic", None),
        ("main$async_dispatch_5_embedded_elf_x86_64", bench, "linalg.softmax", None),
    ]
    profiles = rank_in_model(named, times)
    assert [p.name for p in profiles] == [named[0][0], named[2][0], named[1][0]]
    assert [round(p.share, 3) for p in profiles] == [0.8, 0.2, 0.0]
    assert not profiles[-1].timed and "once as the module loads" in profiles[-1].untimed
    assert problem_times(named, times) == {None: 25.0}
