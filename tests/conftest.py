"""Session fixtures: real models dumped once with iree-compile, read back into `Problem`s.

Each model is compiled once per session (in parallel) with the tuner attributes and
`--iree-hal-dump-executable-benchmarks-to`, exactly as mltune itself does (`mltune.input.tuning_input`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from iree.compiler import ir
from iree.compiler.dialects import iree_codegen
from iree_helpers import batch_matmul_source, dump_command, matmul_source, parse_levels

from mltune.frontend.mlir import new_context, parse_module_file
from mltune.frontend.problem import Problem
from mltune.frontend.root_ops import read_root_ops
from mltune.targets.cpu import CpuInfo

MODELS = {
    "matmul": matmul_source(100, 300, 1000),  # f32 100x300 @ 300x1000
    "batch_matmul": batch_matmul_source(12, 128, 64, 128),  # f32 12x128x64 @ 12x64x128
    "matmul_nt_f16": matmul_source(128, 768, 3072, "f16", "f32", transpose_rhs=True),
    "tiny": matmul_source(32, 64, 48),  # f32 32x64 @ 64x48, for fast runs
    # transposed LHS (K x M): (64x32)^T @ 64x48
    "matmul_tn": matmul_source(32, 64, 48)
    .replace(
        "linalg.matmul ins(%lhs, %rhs : tensor<32x64xf32>",
        "linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
        "affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%lhs, %rhs : tensor<64x32xf32>",
    )
    .replace("%lhs: tensor<32x64xf32>", "%lhs: tensor<64x32xf32>"),
}


@dataclass
class Dumped:
    """One dumped model: its source, compiled vmfb, its dispatch benchmark file and what mltune reads from it."""

    name: str
    source: Path
    vmfb: Path
    bench: Path
    problem: Problem
    cpu: CpuInfo
    default_levels: dict[str, list[int]]  # IREE's own configuration of the root op
    module: ir.Module  # kept alive while the session uses anything parsed from it


# Python's bytecode caches are written even where the machine's environment asks not to (PYTHONDONTWRITEBYTECODE):
# the tests start a few hundred Python children (the command line, timing workers), each of which would otherwise
# compile mltune's modules again, and pytest would rewrite every test module's assertions on every run.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


@pytest.fixture(autouse=True)
def isolated_data_home(tmp_path_factory, monkeypatch):
    """Every test, and every mltune process it starts, writes its records, models and runs into a data home of
    its own, never the user's (and never reads another test's records as earlier runs)."""
    monkeypatch.setenv("MLTUNE_HOME", str(tmp_path_factory.mktemp("data_home")))


@pytest.fixture(scope="session")
def context() -> ir.Context:
    return new_context()


@pytest.fixture(scope="session")
def dumps(tmp_path_factory, context) -> dict[str, Dumped]:
    root = tmp_path_factory.mktemp("dumps")
    procs = {}
    for name, text in MODELS.items():
        directory = root / name
        directory.mkdir()
        source = directory / f"{name}.mlir"
        source.write_text(text)
        procs[name] = (
            source,
            subprocess.Popen(
                dump_command(source, directory / "bench", directory / "model.vmfb"),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            ),
        )
    result = {}
    for name, (source, proc) in procs.items():
        _, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"dumping {name} failed: {stderr[-2000:]}"
        benches = sorted((source.parent / "bench").glob("*_benchmark.mlir"))
        assert len(benches) == 1, f"{name}: expected one dispatch, got {benches}"
        module = parse_module_file(benches[0], context)
        with context:
            roots = read_root_ops(module)
            assert len(roots) == 1 and isinstance(roots[0], Problem), roots
            variant = iree_codegen.get_executable_variant_ops(module)[0]
            cpu = CpuInfo.from_executable_target(str(variant.attributes["target"]))
            (root_op,) = iree_codegen.get_tuner_root_ops(module)
            levels = parse_levels(str(root_op.attributes["lowering_config"]))
        result[name] = Dumped(name, source, source.parent / "model.vmfb", benches[0], roots[0], cpu, levels, module)
    return result


@pytest.fixture(scope="session")
def tiny(dumps) -> Dumped:
    return dumps["tiny"]
