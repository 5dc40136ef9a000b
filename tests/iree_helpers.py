"""Shared helpers for the test suite: model sources, real IREE compiles, and reading configurations back.

Everything here runs the real tools (iree-compile, iree-opt, the mltune CLI); nothing is mocked.
"""

from __future__ import annotations


import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from iree.compiler import ir
from iree.compiler.dialects import iree_codegen

from mltune.emit.apply import Applied
from mltune.emit.op_config import config_levels as parse_levels  # the tests' name for it
from mltune.emit.spec import build_spec
from mltune.features.base import FeatureMatrix
from mltune.frontend.mlir import parse_module_file
from mltune.frontend.one_op_model import AttentionShape, ContractionShape, attention_model, contraction_model
from mltune.frontend.problem import ELEMENTWISE, Problem
from mltune.frontend.root_ops import read_root_ops
from mltune.records.dataset import FINALS_SUFFIX
from mltune.input.tuning_input import Invocation, write_random_inputs
from mltune.rankers import RankingInput, make_ranker
from mltune.system.tools import run_compiler, tool_path
from mltune.targets.cpu import CpuInfo

# The LLVM CPU that compile-only tests build for: the host unless MLTUNE_TEST_CPU names another (CI runs the
# CPU-facing tests again for a CPU of the other vector width, so no test can lean on this host's ISA).
TEST_CPU = os.environ.get("MLTUNE_TEST_CPU", "host")
HOST_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
]
CPU_FLAGS = [*HOST_FLAGS[:-1], f"--iree-llvmcpu-target-cpu={TEST_CPU}"]
LEVELS = ("distribution", "vector_common_parallel", "vector_reduction")
MLTUNE_TIMEOUT_S = 240


def matmul_source(
    m: int, k: int, n: int, in_type: str = "f32", out_type: str = "f32", transpose_rhs: bool = False
) -> str:
    """A `@main` computing one `linalg.matmul` (optionally with an N x K right-hand side)."""
    return contraction_model(ContractionShape(m, n, k, 0, in_type, out_type, transpose_rhs))


def batch_matmul_source(b: int, m: int, k: int, n: int, in_type: str = "f32", out_type: str = "f32") -> str:
    """A `@main` computing one `linalg.batch_matmul`."""
    return contraction_model(ContractionShape(m, n, k, b, in_type, out_type))


def conv2d_nhwc_source(
    n: int, h: int, w: int, c: int, f: int, kernel: int = 3, in_type: str = "f16", out_type: str = "f32"
) -> str:
    """A `@main` computing one unit-stride `linalg.conv_2d_nhwc_hwcf` (N x H x W x C input, K x K x C x F filter)."""
    oh, ow = h - kernel + 1, w - kernel + 1
    x, k, o = (
        f"tensor<{n}x{h}x{w}x{c}x{in_type}>",
        f"tensor<{kernel}x{kernel}x{c}x{f}x{in_type}>",
        f"tensor<{n}x{oh}x{ow}x{f}x{out_type}>",
    )
    return f"""func.func @main(%x: {x}, %w: {k}) -> {o} {{
  %zero = arith.constant 0.0 : {out_type}
  %empty = tensor.empty() : {o}
  %acc = linalg.fill ins(%zero : {out_type}) outs(%empty : {o}) -> {o}
  %r = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} ins(%x, %w : {x}, {k}) outs(%acc : {o}) -> {o}
  return %r : {o}
}}
"""


def attention_source(batch: int, m: int, k1: int, k2: int, n: int, element: str = "f16") -> str:
    """A `@main` computing one `iree_linalg_ext.attention` (query B x M x K1, key B x K2 x K1, value B x K2 x N),
    as a torch-style scaled dot-product attention reaches IREE; IREE dispatches it as `online_attention`."""
    return attention_model(AttentionShape(batch, m, k1, k2, n, element))


def masked_attention_source(batch: int, m: int, k1: int, k2: int, n: int, element: str) -> str:
    """`attention_source` with a boolean B x M x K2 mask operand (true: the key is attended to)."""
    mask = f"tensor<{batch}x{m}x{k2}xi1>"
    text = attention_source(batch, m, k1, k2, n, element)
    text = text.replace(") -> tensor<", f", %mask: {mask}) -> tensor<", 1)
    text = text.replace(
        "affine_map<(d0, d1, d2, d3, d4) -> ()>, ",
        "affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>, ",
    )
    return re.sub(r"ins\(%q, %k, %v, %scale : ([^)]*)\)", rf"ins(%q, %k, %v, %scale, %mask : \1, {mask})", text)


# The session's matmul (100x300 @ 300x1000) and batch matmul (12x128x64 @ 12x64x128) in one function: two dispatches.
TWO_OP_SOURCE = """func.func @main(%lhs: tensor<100x300xf32>, %rhs: tensor<300x1000xf32>, %a: tensor<12x128x64xf32>, %b: tensor<12x64x128xf32>) -> (tensor<100x1000xf32>, tensor<12x128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<100x1000xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<100x1000xf32>) -> tensor<100x1000xf32>
  %r0 = linalg.matmul ins(%lhs, %rhs : tensor<100x300xf32>, tensor<300x1000xf32>) outs(%f0 : tensor<100x1000xf32>) -> tensor<100x1000xf32>
  %e1 = tensor.empty() : tensor<12x128x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %r1 = linalg.batch_matmul ins(%a, %b : tensor<12x128x64xf32>, tensor<12x64x128xf32>) outs(%f1 : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  return %r0, %r1 : tensor<100x1000xf32>, tensor<12x128x128xf32>
}
"""


def assert_searched_together(run_dir: Path, summary: dict, records: list[dict], eager: bool = False) -> None:
    """The budget's shares fit in one window, so the dispatches are searched concurrently, not one after the other:
    every dispatch's candidates were compiled before any candidate was measured (the local executor's phases), or,
    where candidates are measured as soon as they are built (`eager`: Ray's actors, on a shared filesystem), every
    dispatch had a candidate whose compile started (its spec written) before the measurements of every other
    dispatch were over; searched one after the other, none could."""
    folders = {
        d["dispatch"]: list((run_dir / "candidates" / d["dispatch"]).glob("candidate_*")) for d in summary["dispatches"]
    }
    assert all(folders.values())
    by_problem = {d["problem"]: d["dispatch"] for d in summary["dispatches"]}
    measured: dict[str, list[float]] = {d: [] for d in folders}
    for record in records:
        if record["status"] == "ok":
            measured[by_problem[Problem.from_record(record["problem"]).key]].append(record["timestamp"])
    if not eager:
        built = [(folder / "module.vmfb").stat().st_mtime for found in folders.values() for folder in found]
        assert max(built) <= min(min(t) for t in measured.values() if t)
        return
    for dispatch, found in folders.items():
        started = min((folder / "spec.mlir").stat().st_mtime for folder in found)
        assert all(started <= max(others) for other, others in measured.items() if other != dispatch and others)


def dump_command(source: Path, dump_dir: Path, vmfb: Path) -> list[str]:
    """The command that dumps one configured benchmark file per dispatch (`mltune.input.tuning_input`)."""
    return [
        tool_path("iree-compile"),
        str(source),
        *CPU_FLAGS,
        "--iree-codegen-add-tuner-attributes",
        f"--iree-hal-dump-executable-benchmarks-to={dump_dir}",
        "-o",
        str(vmfb),
    ]


def run(args: Sequence[str], timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    """Run a tool to completion; `iree-compile` as mltune runs it (`run_compiler`: started again once if it hangs)."""
    if Path(args[0]).name != "iree-compile" or set(kwargs) - {"cwd"}:
        return subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, **kwargs)
    result = run_compiler(args, timeout_s=timeout, cwd=kwargs.get("cwd"))
    if result.timed_out:
        raise subprocess.TimeoutExpired(list(args), timeout, result.stdout, result.stderr)
    return subprocess.CompletedProcess(list(args), result.returncode, result.stdout, result.stderr)


def strip_config(bench: Path, out: Path) -> Path:
    result = run([tool_path("iree-opt"), str(bench), "--iree-codegen-strip-compilation-info", "-o", str(out)])
    assert result.returncode == 0, result.stderr[-2000:]
    return out


def applied_compile_args(applied: Applied, source: Path, out: Path, flags: Sequence[str] = ()) -> list[str]:
    """The iree-compile command building `source` with one applied candidate (its spec, or the annotated source it
    replaces, written into `out`) that dumps the executable configurations to `out/configs`."""
    extra = []
    if applied.kind == "spec":
        (out / "spec.mlir").write_text(applied.text)
        extra = [f"--iree-codegen-tuning-spec-path={out / 'spec.mlir'}"]
    else:
        source = out / "annotated.mlir"
        source.write_text(applied.text)
    return [
        tool_path("iree-compile"),
        str(source),
        *flags,
        *applied.flags,
        *extra,
        f"--iree-hal-dump-executable-configurations-to={out / 'configs'}",
        "-o",
        str(out / "x.vmfb"),
    ]


def compile_with_configs_dump(
    source: Path, out_dir: Path, spec: Path | None = None, flags: Sequence[str] = ()
) -> dict[str, list[dict[str, list[int]]]]:
    """Compile `source` (optionally with a tuning spec) and return the lowering configs of its contractions.

    The result maps an op name (`linalg.matmul`, ...) to the tiling levels the compiler chose for
    each op of that kind, read from `--iree-hal-dump-executable-configurations-to`.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    config_dir = out_dir / "configs"
    args = [
        tool_path("iree-compile"),
        str(source),
        *flags,
        f"--iree-hal-dump-executable-configurations-to={config_dir}",
        "-o",
        str(out_dir / "out.vmfb"),
    ]
    if spec is not None:
        args.append(f"--iree-codegen-tuning-spec-path={spec}")
    result = run(args)
    assert result.returncode == 0, result.stderr[-3000:]
    return applied_configs(config_dir)


_ROOT_CONFIG = re.compile(r"(linalg\.(?:batch_)?matmul) \{[^\n]*?lowering_config = #iree_cpu\.lowering_config<([^>]*)>")


def applied_configs(config_dir: Path) -> dict[str, list[dict[str, list[int]]]]:
    found: dict[str, list[dict[str, list[int]]]] = {}
    for path in sorted(config_dir.glob("*.mlir")):
        for op_name, body in _ROOT_CONFIG.findall(path.read_text()):
            found.setdefault(op_name, []).append(parse_levels(body))
    return found


def dump_one_op(source_text: str, name: str, directory: Path, context) -> dict:
    """A one-op model written as `directory/NAME.mlir` and dumped for the host CPU: its one tunable dispatch's
    benchmark, root problem, target facts and IREE's tile levels (the module is kept: its ops die with it); other
    dispatches (an elementwise producer) are left out."""
    source = directory / f"{name}.mlir"
    source.write_text(source_text)
    result = subprocess.run(
        dump_command(source, directory / "bench", directory / "model.vmfb"), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    tunable = []
    for bench in sorted((directory / "bench").glob("*_benchmark.mlir")):
        module = parse_module_file(bench, context)
        with context:
            problems = [p for p in read_root_ops(module) if isinstance(p, Problem) and p.op_kind != ELEMENTWISE]
        if problems:
            tunable.append((bench, module, problems))
    ((bench, module, (problem,)),) = tunable
    with context:
        cpu = CpuInfo.from_executable_target(
            str(iree_codegen.get_executable_variant_ops(module)[0].attributes["target"])
        )
        (root,) = iree_codegen.get_tuner_root_ops(module)
        levels = parse_levels(str(root.attributes["lowering_config"]))
    return {"source": source, "bench": bench, "problem": problem, "cpu": cpu, "levels": levels, "module": module}


def knobs_from_levels(problem: Problem, levels: dict[str, list[int]]) -> dict[str, int]:
    """The mltune knobs that describe a DoubleTilingExpert lowering config of `problem`."""
    (m,), (n,), (k,) = problem.m, problem.n, problem.k
    return {
        "wg_m": levels["distribution"][m],
        "wg_n": levels["distribution"][n],
        "vec_m": levels["vector_common_parallel"][m],
        "vec_n": levels["vector_common_parallel"][n],
        "vec_k": levels["vector_reduction"][k],
    }


def random_inputs(source: Path, context, directory: Path, seed: int = 0) -> Invocation:
    """`@main` of `source` with seeded random arguments written to `directory`, as mltune writes them."""
    module = parse_module_file(source, context)
    with context:
        main = next(op for op in module.body.operations if op.operation.name == "func.func")
        return Invocation("main", write_random_inputs(main, directory, seed), False)


def compile_with_dumps(source: Path, out: Path, *flags: str) -> Path:
    """`source` compiled for the host CPU into the new folder `out` (`module.vmfb`), with each executable's
    configuration (`configured_*.mlir`) and binary (`*.so`) dumped beside it."""
    out.mkdir()
    result = run(
        [
            tool_path("iree-compile"),
            str(source),
            *CPU_FLAGS,
            *flags,
            f"--iree-hal-dump-executable-configurations-to={out}",
            f"--iree-hal-dump-executable-binaries-to={out}",
            "-o",
            str(out / "module.vmfb"),
        ]
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return out


def configured_from_stripped_dump(configurator, knobs: dict[str, int], bench: Path, directory: Path, context) -> str:
    """The configuration IREE dumps for a dumped benchmark stripped of its own and compiled with the spec of
    `knobs`, as `mltune tune` and the screen compile a candidate."""
    spec = directory / "spec.mlir"
    spec.write_text(build_spec(configurator.problem, configurator.compilation_info(knobs), context))
    tuned = compile_with_dumps(
        strip_config(bench, directory / "stripped.mlir"), directory / "tuned", f"--iree-codegen-tuning-spec-path={spec}"
    )
    return "".join(path.read_text() for path in tuned.glob("configured_*.mlir"))


def outputs_on_random_inputs(vmfb: Path, input_shapes: Sequence[tuple[int, ...]], directory: Path) -> np.ndarray:
    """`@main`'s result on seeded standard-normal f32 inputs of `input_shapes` (the same for every build)."""
    args = []
    for index, dims in enumerate(input_shapes):
        path = directory / f"input{index}.npy"
        np.save(path, np.random.default_rng(index).standard_normal(dims).astype(np.float32))
        args.append(f"--input=@{path}")
    out = directory / f"{vmfb.parent.name}.npy"
    result = run([tool_path("iree-run-module"), f"--module={vmfb}", "--function=main", *args, f"--output=@{out}"])
    assert result.returncode == 0, result.stderr[-2000:]
    return np.load(out)


def compile_cpu(source: Path, out: Path, spec: Path | None = None) -> Path:
    """`source` compiled for the host CPU (with a tuning spec, if given), to run here; the compile must succeed."""
    args = [tool_path("iree-compile"), str(source), *HOST_FLAGS, "-o", str(out)]
    if spec is not None:
        args.append(f"--iree-codegen-tuning-spec-path={spec}")
    result = run(args)
    assert result.returncode == 0, result.stderr[-2000:]
    return out


def mltune(args: Sequence[str], cwd: Path, timeout: float = MLTUNE_TIMEOUT_S) -> subprocess.CompletedProcess:
    """Run the real CLI in a child Python, as a user would (`python -m mltune.cli ...`)."""
    return run([sys.executable, "-m", "mltune.cli", *args], timeout=timeout, cwd=cwd)


def checked_heuristic_order(
    extractor: Callable, problem: Problem, target, candidates
) -> tuple[FeatureMatrix, list[int]]:
    """The candidates' features (checked finite, one row each) and the heuristic ranker's whole order (checked to be
    a permutation)."""
    features = extractor(problem, target, candidates)
    assert features.values.shape == (len(candidates), len(features.names)) and np.isfinite(features.values).all()
    ranker = make_ranker("heuristic")
    ranker.start(RankingInput(problem, target, candidates))
    order = ranker.ask(len(candidates))
    assert sorted(order) == list(range(len(candidates)))
    return features, order


def compile_only_vector_distribute(tmp_path: Path, file_name: str, text: str, target: str, budget: int) -> Path:
    """`mltune tune FILE --target T --compile-only` on `text`: checks that all `budget` VectorDistribute candidates
    compiled and returns the run's candidates folder."""
    (tmp_path / file_name).write_text(text)
    result = mltune(
        ["tune", file_name, "--target", target, "--compile-only", "--budget", str(budget), "--run-dir", "run"],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert re.search(rf"VectorDistribute\s+\d+\s+[\d.]+\s+{budget}/{budget}\s+100.0 %", result.stdout), result.stdout
    return tmp_path / "run" / "candidates"


def interrupt_when(proc: subprocess.Popen, ready: Callable[[], bool], timeout_s: float) -> tuple:
    """Wait up to `timeout_s` until `ready()` while `proc` (an `mltune tune`) runs, then press Ctrl-C and return its
    (stdout, stderr); a process left running by a failed check is killed, never leaked."""
    try:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and proc.poll() is None and not ready():
            time.sleep(0.05)
        assert ready(), f"not ready within the deadline (exit code {proc.poll()})"
        assert proc.poll() is None, proc.communicate()[1][-2000:]
        proc.send_signal(signal.SIGINT)
        return proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


WEIGHT_LIMIT = 16 << 10  # constants of this many bytes or more leave a model split by `split_mlp`


def _hex(values: np.ndarray) -> str:
    return '"0x' + values.astype("<f4").tobytes().hex().upper() + '"'


def mlp_source(seed: int = 0) -> str:
    """A two-layer perceptron whose weights are constants in the source, as exporters inline them (synthetic, seeded):
    two weights above `WEIGHT_LIMIT`, a bias below it and a splat."""
    rng = np.random.default_rng(seed)
    w1, b1, w2 = (rng.uniform(-1, 1, shape).astype(np.float32) for shape in ((64, 128), (128,), (128, 64)))
    return f"""func.func @main(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {{
  %w1 = arith.constant dense<{_hex(w1)}> : tensor<64x128xf32>
  %b1 = arith.constant dense<{_hex(b1)}> : tensor<128xf32>
  %w2 = arith.constant dense<{_hex(w2)}> : tensor<128x64xf32>
  %half = arith.constant dense<0.5> : tensor<128x64xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x128xf32>) -> tensor<16x128xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<16x64xf32>, tensor<64x128xf32>) outs(%f1 : tensor<16x128xf32>) -> tensor<16x128xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}} ins(%h, %b1 : tensor<16x128xf32>, tensor<128xf32>) outs(%e1 : tensor<16x128xf32>) {{
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  }} -> tensor<16x128xf32>
  %w2h = arith.addf %w2, %half : tensor<128x64xf32>
  %e2 = tensor.empty() : tensor<16x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %y = linalg.matmul ins(%r, %w2h : tensor<16x128xf32>, tensor<128x64xf32>) outs(%f2 : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}}
"""


def split_mlp(root: Path, context: ir.Context):
    """`mlp_source` in `root` as the user gives it (weights inlined) and split (`mltune.whole_model.weights`), with seeded
    inputs: (inlined tuning input, split tuning input, the split)."""
    from mltune.input.tuning_input import TuningInput
    from mltune.whole_model import weights

    source = root / "mlp.mlir"
    source.write_text(mlp_source())
    module = parse_module_file(source, context)
    inputs = write_random_inputs(module.body.operations[0], root / "inputs", seed=0)
    inlined = TuningInput(source, Invocation("main", inputs, False), (), tuple(CPU_FLAGS))
    made = weights.split(inlined.source, inlined.compile_flags, root / "weights", 0, WEIGHT_LIMIT)
    assert made is not None
    return inlined, weights.compiled_from(inlined, made), made


def trial_record_files(dataset_dir: Path) -> list[Path]:
    """A data home's files of runs' trials: every `ARCH/RUN.jsonl`, not the finalists' re-measures beside them."""
    return sorted(f for f in dataset_dir.glob("*/*.jsonl") if not f.name.endswith(f"{FINALS_SUFFIX}.jsonl"))
