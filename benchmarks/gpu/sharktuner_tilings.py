"""The SHARK tuner's tilings of one dispatch, as JSON lines (runs in the SHARK tuner's own environment, not mltune's).

`amdsharktuner` pins its own IREE release (its Python bindings differ from the one mltune uses), so this script
imports nothing of mltune and is run by `sharktuner_coverage.py` with the interpreter of an environment that has
`amdsharktuner` and its `iree-base-compiler` (e.g. `python -m venv st && st/bin/pip install amdsharktuner`).
It dumps the model's dispatch benchmarks with that environment's `iree-compile` for a ROCm target, asks the
tuner's candidate generator (`candidate_gen.generate_solutions`, with its command line's defaults: any subgroup
count, waves per EU 2, prefetch 2) for every solution of each pipeline, and prints one line per solution:

    {"pipeline": "TileAndFuse", "mma": "MFMA_F32_16x16x16_F16", "workgroup": [...], "subgroup": [...],
     "reduction": [...], "subgroup_basis": [...]}

then one summary line per pipeline (`{"pipeline": ..., "solutions": N, "seconds": S, "complete": bool}`).
No candidate is compiled here and no GPU is used.

    st/bin/python benchmarks/gpu/sharktuner_tilings.py MODEL.mlir --target gfx942 [--limit 5000] [--seconds 300]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from amdsharktuner import candidate_gen, common, dispatch_parser
from iree.compiler.dialects import iree_codegen

PIPELINES = {
    "TileAndFuse": iree_codegen.DispatchLoweringPassPipeline.LLVMGPUTileAndFuse,
    "VectorDistribute": iree_codegen.DispatchLoweringPassPipeline.LLVMGPUVectorDistribute,
}


def _list(text: str, name: str) -> list:
    """The (possibly nested) integer list `name = [...]` of a printed attribute; [] if absent."""
    start = text.find(f" {name} = [")
    if start < 0:
        return []
    start = text.index("[", start)
    depth = 0
    for end in range(start, len(text)):
        depth += {"[": 1, "]": -1}.get(text[end], 0)
        if depth == 0:
            return json.loads(text[start : end + 1])
    return []


def tiling(pipeline: str, info: str) -> dict:
    """The tiling of one printed `compilation_info`."""
    mma = re.search(r"(?:virtual_)?mma_layout<(\w+)", info)
    return {
        "pipeline": pipeline,
        "mma": mma.group(1) if mma else "",
        "workgroup": _list(info, "workgroup"),
        "subgroup": _list(info, "subgroup"),
        "reduction": _list(info, "reduction"),
        "subgroup_basis": _list(info, "subgroup_basis"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--target", default="gfx942")
    parser.add_argument("--limit", type=int, default=5000, help="solutions per pipeline at most")
    parser.add_argument("--seconds", type=float, default=300, help="enumeration time per pipeline at most")
    parser.add_argument("--pipelines", default=",".join(PIPELINES))
    args = parser.parse_args()
    compiler = Path(sys.executable).parent / "iree-compile"
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(
            [
                str(compiler),
                str(args.model),
                "--iree-hal-target-device=hip",
                f"--iree-hip-target={args.target}",
                "--iree-config-add-tuner-attributes",
                f"--iree-hal-dump-executable-benchmarks-to={work}",
                "-o",
                f"{work}/model.vmfb",
            ],
            check=True,
            capture_output=True,
        )
        (bench,) = sorted(Path(work).glob("*_benchmark.mlir"))
        text = bench.read_text()
    for name in args.pipelines.split(","):
        with common.TunerContext() as context:
            module = dispatch_parser.parse_mlir(text, context)
            tuner = candidate_gen.set_dispatch_tuner(module, context)
            target = common.get_target_info(module)
            started, count, complete = time.perf_counter(), 0, True
            for solution in candidate_gen.generate_solutions(
                tuner, target, context, num_subgroups=-1, codegen_pipeline=PIPELINES[name]
            ):
                print(json.dumps(tiling(name, str(solution[0].configuration))), flush=True)
                count += 1
                if count >= args.limit or time.perf_counter() - started > args.seconds:
                    complete = False
                    break
            print(
                json.dumps(
                    {
                        "pipeline": name,
                        "solutions": count,
                        "seconds": round(time.perf_counter() - started, 2),
                        "complete": complete,
                    }
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
