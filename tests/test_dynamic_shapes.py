"""Models with dynamic dimensions and decoders exported as IREE 3.13 takes them: specialised to the shapes the user
names and tuned, and `mltune export decoder` checked against torch (where torch is installed)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from iree_helpers import CPU_FLAGS, compile_cpu, mltune, run

import mltune as api
from mltune.frontend.mlir import new_context, parse_module_file
from mltune.input.export_hints import export_hint
from mltune.input.specialize import function_abi, has_dynamic_signature, specialise
from mltune.system.tools import tool_path

DECODER = Path(__file__).resolve().parent.parent / "examples" / "models" / "decoder"
DYNAMIC_PREFILL = DECODER / "tiny-llama_prefill_dynamic.mlir"

# What a `transformers` decoder exported with input ids alone carries (its mask's packed-sequence check), written
# by hand: IREE 3.13's torch lowering refuses the op
DIFF = """func.func @main(%x: !torch.vtensor<[1,4],si64>) -> !torch.vtensor<[1,3],si64> {
  %int1 = torch.constant.int 1
  %int-1 = torch.constant.int -1
  %none = torch.constant.none
  %0 = torch.operator "torch.aten.diff"(%x, %int1, %int-1, %none, %none) : (!torch.vtensor<[1,4],si64>, !torch.int, !torch.int, !torch.none, !torch.none) -> !torch.vtensor<[1,3],si64>
  return %0 : !torch.vtensor<[1,3],si64>
}
"""


@pytest.mark.slow
def test_the_dynamic_export_has_nothing_to_tune_until_specialised(tmp_path):
    """IREE dumps no benchmark of a dispatch with a dynamic workload: the export as it is has no problem, and the
    same file specialised to a sequence of 16 has its projections and MLP as static contractions of M = 16."""
    assert has_dynamic_signature(DYNAMIC_PREFILL)
    dump = tmp_path / "dynamic_dump"
    result = run(
        [
            tool_path("iree-compile"),
            str(DYNAMIC_PREFILL),
            *CPU_FLAGS,
            f"--iree-hal-dump-executable-benchmarks-to={dump}",
            "-o",
            str(tmp_path / "dynamic.vmfb"),
        ]
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert not list(dump.glob("*main*")), "a dispatch of the dynamic call was dumped"
    context = new_context()
    abi = function_abi(parse_module_file(DYNAMIC_PREFILL, context), None, context)
    assert [a.shape for a in abi.arguments] == [(1, None)] and abi.arguments[0].element_type == "i64"
    specialised = specialise(
        parse_module_file(DYNAMIC_PREFILL, context), None, [(1, 16)], tmp_path / "prefill.1x16.mlir", context
    )
    assert specialised.changes == (("!torch.vtensor<[1,?],si64>", "!torch.vtensor<[1,16],si64>"),)
    assert not has_dynamic_signature(specialised.source)
    problems = api.problems(specialised.source)
    contractions = [p.problem for p in problems if p.problem.op_kind == "contraction"]
    assert contractions and all(tuple(c.sizes(c.m)) == (16,) for c in contractions), [c.key for c in contractions]


@pytest.mark.slow
def test_a_specialised_build_computes_what_the_dynamic_one_does(tmp_path):
    """The casts at the entry change no value: both builds give the same logits on the same token ids."""
    ids = np.random.default_rng(0).integers(0, 256, size=(1, 16), dtype=np.int64)
    np.save(tmp_path / "ids.npy", ids)
    context = new_context()
    specialised = specialise(
        parse_module_file(DYNAMIC_PREFILL, context), None, [(1, 16)], tmp_path / "prefill.1x16.mlir", context
    )
    outputs = []
    for source in (DYNAMIC_PREFILL, specialised.source):
        vmfb = compile_cpu(source, tmp_path / f"{source.stem}.vmfb")
        out = tmp_path / f"{source.stem}.out.npy"
        result = run(
            [
                tool_path("iree-run-module"),
                f"--module={vmfb}",
                "--device=local-task",
                f"--input=@{tmp_path / 'ids.npy'}",
                f"--output=@{out}",
            ]
        )
        assert result.returncode == 0, result.stderr[-2000:]
        outputs.append(np.load(out))
    assert outputs[0].shape == (1, 16, 256)
    np.testing.assert_allclose(outputs[0], outputs[1], rtol=1e-5, atol=1e-5)


def test_a_known_export_failure_names_its_fix(tmp_path):
    (tmp_path / "m.mlir").write_text(DIFF)
    result = mltune(["tune", "m.mlir", "--run-dir", "run", "--dataset-dir", "datasets"], cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert "torch.aten.diff" in line and "(fix:" in line and "mltune export decoder" in line, line
    assert not (tmp_path / "run").exists(), "a refused run leaves no folder"
    assert export_hint("error: ... torch.vtensor.literal ...").startswith("a `transformers` model")
    assert export_hint("error: something else") == ""


@pytest.mark.slow
def test_export_needs_its_extra_or_says_so(tmp_path):
    """Without torch the command says which extra to install in one line; with it, the tiny decoder exports."""
    result = mltune(["export", "decoder", "tiny-llama", "--out", "out", "--seq-len", "8"], cwd=tmp_path)
    try:
        import iree.turbine  # noqa: F401
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        assert result.returncode == 2 and "pip install 'mltune[export]'" in result.stderr, result.stderr
        return
    assert result.returncode == 0, result.stderr[-2000:]
    assert (tmp_path / "out" / "tiny-llama_prefill.mlir").is_file()
    assert (tmp_path / "out" / "tiny-llama_prefill.flags").read_text() == "--input=@tiny-llama_prefill.input0.npy\n"


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["prefill", "decode"])
def test_exported_decoder_agrees_with_torch(mode, tmp_path):
    """The export IREE compiles computes what `transformers` computes: prefill of 8 tokens, and one decode step
    against a 16-token cache (random keys and values), on llvm-cpu against torch eager."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")
    pytest.importorskip("transformers")
    from mltune.export.decoder import DecodeStep, Prefill, build, export_decoder

    exported = export_decoder("tiny-llama", tmp_path, mode=mode, seq_len=8, cache_len=16)
    vmfb = compile_cpu(exported.mlir, tmp_path / "decoder.vmfb")
    result = run(
        [
            tool_path("iree-run-module"),
            f"--module={vmfb}",
            "--device=local-task",
            f"--flagfile={exported.flags}",
            f"--output=@{tmp_path / 'out.npy'}",
        ],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    inputs = [np.load(tmp_path / line.split("@")[1]) for line in exported.flags.read_text().split()]
    wrapper = (Prefill if mode == "prefill" else DecodeStep)(build("tiny-llama"))
    with torch.no_grad():
        expected = wrapper(*(torch.from_numpy(a) for a in inputs)).numpy()
    got = np.load(tmp_path / "out.npy")
    assert got.shape == expected.shape == ((1, 8, 256) if mode == "prefill" else (1, 1, 256))
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.slow
def test_two_shapes_of_a_dynamic_decoder_are_tuned_one_run_each(tmp_path):
    """`--shape` twice: a run per shape on the model specialised to it, each saying which shapes it tuned for; every
    spec written is linked into `-o`, and the dynamic build is left as IREE configures it."""
    result = mltune(
        [
            "tune",
            str(DYNAMIC_PREFILL),
            "--shape",
            "1x16xi64",
            "--shape",
            "1x32xi64",
            "--budget",
            "2",
            "--ranker",
            "heuristic",
            "--run-dir",
            "runs",
            "--dataset-dir",
            "datasets",
            "-o",
            "spec.mlir",
            "-q",
        ],
        cwd=tmp_path,
        timeout=1200,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    for tag in ("1x16", "1x32"):
        run_dir = tmp_path / "runs" / f"{tag}xi64"
        summary = json.loads((run_dir / "summary.json").read_text())
        assert any("tuned for the shapes" in a and f"[1,{tag[2:]}]" in a for a in summary["inputs"]["arguments"])
        assert not has_dynamic_signature(run_dir / f"tiny-llama_prefill_dynamic.{tag}.mlir")
        assert f"specialised to !torch.vtensor<[1,?],si64> -> !torch.vtensor<[1,{tag[2:]}],si64>" in result.stdout
    written = sorted(p.name for p in tmp_path.glob("spec*.mlir"))
    if len(written) > 1:  # a shape kept a config: its spec, and one linking every shape's
        assert "spec.mlir" in written and "Spec for every shape: spec.mlir" in result.stdout
