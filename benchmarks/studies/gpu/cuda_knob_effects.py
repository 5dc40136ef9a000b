"""Which pipeline knobs and compiler flags change the code IREE generates for a CUDA matmul candidate.

It takes one candidate's annotated model (`RUN_DIR/candidates/*/candidate_*/annotated.mlir` of
`mltune tune MODEL --target sm_90 --compile-only`), compiles it as it is and with one change at a time
(a `prefetch_num_stages`, a workgroup reordering, another intrinsic, a global flag), dumps each build's
optimized LLVM IR and prints whether it differs from the unchanged build's, with the NVVM intrinsics it calls
(`mma.sync`, `cp.async`, `ldmatrix`, barriers): a knob whose IR is byte-identical does nothing on this target.

    python benchmarks/studies/gpu/cuda_knob_effects.py RUN_DIR/candidates/DISPATCH/candidate_N/annotated.mlir --work DIR
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

OPTIONS = "use_igemm_convolution = false"
VARIANTS: dict[str, tuple[tuple[str, str] | None, list[str]]] = {
    "as annotated": (None, []),
    "prefetch_num_stages = 0": ((r"prefetch_num_stages = \d+", "prefetch_num_stages = 0"), []),
    "prefetch_num_stages = 3": ((r"prefetch_num_stages = \d+", "prefetch_num_stages = 3"), []),
    "prefetch_num_stages = 4": ((r"prefetch_num_stages = \d+", "prefetch_num_stages = 4"), []),
    "reorder_workgroups_strategy Transpose": (
        (OPTIONS, OPTIONS + ", reorder_workgroups_strategy = #iree_gpu.reorder_workgroups_strategy<Transpose>"),
        [],
    ),
    "--iree-llvmgpu-prefetch-num-stages=3": (None, ["--iree-llvmgpu-prefetch-num-stages=3"]),
    "--iree-codegen-reorder-workgroups-strategy=transpose": (
        None,
        ["--iree-codegen-reorder-workgroups-strategy=transpose"],
    ),
    "--iree-llvmgpu-use-direct-load": (None, ["--iree-llvmgpu-use-direct-load"]),
    "--iree-llvmgpu-enable-shared-memory-reuse": (None, ["--iree-llvmgpu-enable-shared-memory-reuse"]),
    "NV_WMMA_F32_16x16x16_F16": ((r"NV_MMA_SYNC_F32_16x8x16_F16", "NV_WMMA_F32_16x16x16_F16"), []),
}


def compile_variant(source: str, flags: list[str], work: Path) -> tuple[int, str, Counter, str]:
    """Exit code, digest of the optimized LLVM IR, its NVVM intrinsic counts, and the first error line."""
    work.mkdir(parents=True, exist_ok=True)
    model = work / "model.mlir"
    model.write_text(source)
    dump = work / "dump"
    done = subprocess.run(
        [
            "iree-compile",
            str(model),
            *flags,
            f"--iree-hal-dump-executable-intermediates-to={dump}",
            "-o",
            str(work / "model.vmfb"),
        ],
        capture_output=True,
        text=True,
    )
    optimized = sorted(dump.glob("*.optimized.ll")) if dump.is_dir() else []
    if done.returncode != 0 or not optimized:
        error = next((line for line in done.stderr.splitlines() if "error" in line), done.stderr.strip()[-200:])
        return done.returncode, "", Counter(), error
    text = optimized[0].read_text()
    return 0, hashlib.sha256(text.encode()).hexdigest()[:12], Counter(re.findall(r"@llvm\.nvvm\.[\w.]+", text)), ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("annotated", type=Path)
    parser.add_argument("--work", type=Path, required=True)
    args = parser.parse_args()
    source = args.annotated.read_text()
    reference = None
    for index, (name, (edit, flags)) in enumerate(VARIANTS.items()):
        text = re.sub(edit[0], edit[1], source) if edit else source
        code, digest, intrinsics, error = compile_variant(text, flags, args.work / f"v{index}")
        reference = reference or digest
        same = "same IR" if digest == reference else ("FAILED" if code else "different IR")
        calls = ", ".join(f"{n.removeprefix('@llvm.nvvm.')} x{c}" for n, c in sorted(intrinsics.items()))
        print(f"{name:<55} {same:<12} {digest:<12} {calls or error[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
