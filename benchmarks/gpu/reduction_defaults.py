"""IREE's own configuration of layer-norm, RMS-norm and softmax dispatches on GPU targets (compile only): for each
one-op model (`mltune.frontend.one_op_reduction`, f32, BERT / GPT-2 / ViT sizes) dumped as mltune dumps a GPU model,
the problem mltune reads, the tuner root's `lowering_config`, the other configured ops and the `translation_info`
(`docs/gpu-reductions.md`).

    python benchmarks/gpu/reduction_defaults.py --target gfx942 --target sm_90 --work DIR
"""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

from iree.compiler import ir
from iree.compiler.dialects import iree_codegen

from mltune.frontend.mlir import parse_module_file
from mltune.frontend.one_op_reduction import ReductionShape, reduction_model
from mltune.frontend.root_ops import read_root_ops
from mltune.system.tools import tool_path
from mltune.targets import parse_target

SHAPES = (
    ReductionShape("layernorm", (128, 768)),
    ReductionShape("rmsnorm", (128, 768)),
    ReductionShape("softmax", (12, 128, 128)),
    ReductionShape("softmax", (12, 197, 197)),
)
TRANSLATION = re.compile(r"(translation_info = #iree_codegen.translation_info<[^\n]*?>)\} \{")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", action="append", required=True)
    parser.add_argument("--work", type=Path, required=True)
    args = parser.parse_args()
    context = ir.Context()
    for name in args.target:
        target = parse_target(name, probe=False)
        for shape in SHAPES:
            directory = args.work / name / shape.name
            directory.mkdir(parents=True, exist_ok=True)
            (directory / "model.mlir").write_text(reduction_model(shape))
            source = target.prepare_source(directory / "model.mlir", directory, context)
            command = [
                tool_path("iree-compile"),
                str(source),
                *target.compile_flags(),
                "--iree-codegen-add-tuner-attributes",
                f"--iree-hal-dump-executable-benchmarks-to={directory / 'bench'}",
                "-o",
                str(directory / "m.vmfb"),
            ]
            subprocess.run(command, check=True, capture_output=True)
            for bench in sorted((directory / "bench").glob("*_benchmark.mlir")):
                with context:
                    module = parse_module_file(bench, context)
                    problems = [str(getattr(p, "key", p)) for p in read_root_ops(module)]
                    roots = [str(op.attributes["lowering_config"]) for op in iree_codegen.get_tuner_root_ops(module)]
                text = bench.read_text()
                print(f"{name} {shape.name} {bench.name}\n  problem: {', '.join(problems)}\n  root: {roots[0]}")
                for config in re.findall(r"lowering_config = (#iree_gpu\.lowering_config<\{[^\n]*?\}>)", text):
                    if config != roots[0]:
                        print(f"  fused op: {config}")
                print(f"  {TRANSLATION.search(text).group(1)}")


if __name__ == "__main__":
    main()
