"""Compile time of ROCm candidates from the whole model against from the dumped executable (compile only, no GPU).

For each dispatch, a seeded sample of mltune's candidates is compiled one at a time both ways, alternating
(model, dispatch, model, dispatch ...), with the real iree-compile for the target: the model with the spec as the
tuning loop builds it, and the dumped executable benchmark stripped of IREE's configuration with the same spec
(what `mltune tune --compile-only` now compiles on ROCm). It prints each candidate's two wall times, whether
both builds agree (both compiled or both failed), and the ratio model / dispatch: min, median and max per
dispatch and over all. Run it alone on the machine (e.g. under the shared lock): it measures wall time.

    python benchmarks/gpu/rocm_dispatch_compile.py [--target mi300x] [--samples 6] [--only NAMES or MODEL.mlir files]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from gpu.rocm_spaces import ROOT, dispatch_spaces

DEFAULT_DISPATCHES = (
    "mm_nt_2048x1280x5120_f16,mm_nt_4096x4096x4096_f16,bmm_64x512x512x64_f16,conv3x3_nhwc_2x32x32x320_f16"
)


def spread(values: list[float]) -> str:
    return f"min {min(values):.2f} / median {statistics.median(values):.2f} / max {max(values):.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="mi300x")
    parser.add_argument("--samples", type=int, default=6, help="candidates per dispatch")
    parser.add_argument("--only", default=DEFAULT_DISPATCHES)
    parser.add_argument(
        "--work", type=Path, default=ROOT / "mltune-runs" / f"dispatch-compile-{time.strftime('%Y%m%d-%H%M%S')}"
    )
    args = parser.parse_args()
    ratios, model_s, dispatch_s, disagreements = [], [], [], 0
    for space in dispatch_spaces(args.only.split(","), args.target, args.work):
        label = f"{space.name}/{space.dispatch.name}"  # a model has several dispatches
        if space.dispatch_builder is space.model_builder:
            print(f"{label}: compiled from the model only (the dumped executable does not apply)")
            continue
        c = space.candidates
        sample = np.random.default_rng(0).choice(len(c), size=min(args.samples, len(c)), replace=False)
        mine = []
        for index in sample:
            applied = space.applier.apply(
                space.dispatch.problem, space.configurator.compilation_info(c.knobs(int(index)))
            )
            model = space.model_builder.compile(int(index), applied, f"{label}/model_{index}")
            dispatch = space.dispatch_builder.compile(int(index), applied, f"{label}/dispatch_{index}")
            agree = (model.status == "ok") == (dispatch.status == "ok")
            disagreements += not agree
            mine.append(model.seconds / dispatch.seconds)
            model_s.append(model.seconds)
            dispatch_s.append(dispatch.seconds)
            print(
                f"{label:<48} candidate {index:>6}: model {model.seconds:5.2f} s ({model.status}), dispatch "
                f"{dispatch.seconds:5.2f} s ({dispatch.status}){'' if agree else '  DISAGREE'}",
                flush=True,
            )
        print(f"{label}: model / dispatch {spread(mine)}")
        ratios += mine
    print(
        f"\nall ({len(ratios)} candidates): model / dispatch {spread(ratios)}; model s {spread(model_s)}; "
        f"dispatch s {spread(dispatch_s)}; builds that disagree: {disagreements}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
