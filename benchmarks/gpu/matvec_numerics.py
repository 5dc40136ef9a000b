"""Which configs of the CUDA matvec space compute the right result.

On a lent H100, Llama-3.2-1B's decode step had two of its three matvec winners refused by the numerics check (both
with 16 subgroups along K and the rows spread over lanes; docs/decoders-and-dynamic-shapes.md). This study builds a
one-op matvec (1 x K times K x N, f16 into f32) for sm_90, samples the space's configs in four classes (one row or
several per workgroup, one subgroup or several along K), writes each on the model as a CUDA run does, compiles it
and, unless `--compile-only`, runs it on the device on seeded random inputs against IREE's default build, with the
numerics check's own tolerance (`mltune.whole_model.numerics.compare`). It prints one line per config and a count
per class.

    python benchmarks/gpu/matvec_numerics.py --work DIR [--n 8192 --k 2048 --per-class 4 --device cuda://0]
"""

from __future__ import annotations

import argparse
import subprocess
from collections import Counter
from pathlib import Path

import numpy as np
from iree.compiler.dialects import iree_codegen

from mltune.emit.apply import AnnotationApplier
from mltune.frontend.mlir import new_context, parse_module_file
from mltune.frontend.one_op_model import ContractionShape, contraction_model
from mltune.frontend.problem import Problem
from mltune.frontend.root_ops import read_root_ops
from mltune.spaces.configure import make_configurator
from mltune.system.tools import tool_path
from mltune.targets import parse_target
from mltune.targets.base import facts_from_executable_target
from mltune.whole_model.numerics import compare


def _compile(source: Path, out: Path, *flags: str) -> None:
    subprocess.run([tool_path("iree-compile"), str(source), *flags, "-o", str(out)], check=True)


def _run(vmfb: Path, inputs: list[Path], device: str, out: Path) -> np.ndarray:
    subprocess.run(
        [tool_path("iree-run-module"), f"--module={vmfb}", f"--device={device}", "--function=main"]
        + [f"--input=@{path}" for path in inputs]
        + [f"--output=@{out}"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return np.load(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--n", type=int, default=8192)
    parser.add_argument("--k", type=int, default=2048)
    parser.add_argument("--per-class", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cuda://0")
    parser.add_argument("--compile-only", action="store_true")
    args = parser.parse_args()
    work, context = args.work, new_context()
    work.mkdir(parents=True, exist_ok=True)
    target = parse_target("sm_90", probe=False)
    (work / "model.mlir").write_text(contraction_model(ContractionShape(1, args.n, args.k, 0, "f16", "f32")))
    source = target.prepare_source(work / "model.mlir", work, context)
    flags = target.compile_flags()
    _compile(
        source,
        work / "default.vmfb",
        *flags,
        "--iree-codegen-add-tuner-attributes",
        f"--iree-hal-dump-executable-benchmarks-to={work / 'bench'}",
    )
    (bench,) = (work / "bench").glob("*_benchmark.mlir")
    module = parse_module_file(bench, context)
    with context:
        (problem,) = [root for root in read_root_ops(module) if isinstance(root, Problem)]
        facts = facts_from_executable_target(iree_codegen.get_executable_variant_ops(module)[0].attributes["target"])
    configurator = make_configurator(problem, facts, context, bench, work / "space")
    candidates = configurator.candidates()
    rows, sg_k = candidates.column("rows"), candidates.column("sg_k")
    rng = np.random.default_rng(args.seed)
    rng_inputs = np.random.default_rng(args.seed)
    inputs = [work / "lhs.npy", work / "rhs.npy"]
    np.save(inputs[0], rng_inputs.standard_normal((1, args.k)).astype(np.float16))
    np.save(inputs[1], rng_inputs.standard_normal((args.k, args.n)).astype(np.float16))
    reference = None if args.compile_only else _run(work / "default.vmfb", inputs, args.device, work / "default.npy")
    print(f"{problem.key}: {len(candidates)} candidates; {'compile only' if args.compile_only else args.device}")
    verdicts: Counter[tuple[str, str]] = Counter()
    applier = AnnotationApplier(source, context)
    for several_rows in (False, True):
        for several_sg_k in (False, True):
            cls = f"rows {'>1' if several_rows else '=1'}, sg_k {'>1' if several_sg_k else '=1'}"
            members = np.flatnonzero(((rows > 1) == several_rows) & ((sg_k > 1) == several_sg_k))
            for index in rng.choice(members, size=min(args.per_class, len(members)), replace=False):
                knobs = candidates.knobs(int(index))
                folder = work / f"candidate_{int(index)}"
                folder.mkdir(exist_ok=True)
                (folder / "annotated.mlir").write_text(
                    applier.apply(problem, configurator.compilation_info(knobs)).text
                )
                _compile(folder / "annotated.mlir", folder / "module.vmfb", *flags)
                verdict = "compiled"
                if reference is not None:
                    got = _run(folder / "module.vmfb", inputs, args.device, folder / "out.npy")
                    comparison = compare([reference], [got])
                    verdict = "right" if comparison.ok else f"WRONG: {comparison.detail}"
                verdicts[(cls, verdict.split(":")[0])] += 1
                print(f"{cls:22} {knobs} {verdict}")
    for (cls, verdict), count in sorted(verdicts.items()):
        print(f"{cls:22} {verdict:9} {count}")


if __name__ == "__main__":
    main()
