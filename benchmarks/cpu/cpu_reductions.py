"""Reductions and normalisations as models hold them, on llvm-cpu: mltune's best within a budget against IREE's default.

For each shape (BERT-base / GPT-2 and ViT-B/16 layer norms, BERT-base's attention softmax as an unfused attention
has it, the ResNet-50 global mean pool; an RMS norm with `--only`): IREE's default configuration is read from the
dispatch, the heuristic's first BUDGET candidates and shuffle's (seed 0) first BUDGET are compiled with plain
`iree-compile` and the candidate's tuning spec, and each build is timed once with `iree-benchmark-module` (fastest
of 5 repetitions of >= 0.1 s, splat inputs), IREE's default timed again after every 10. The best build of each
order is then timed again, interleaved with IREE's default, for ROUNDS rounds: the ratio is the median per-round
default / best (> 1: faster). The position is the 1-based place, in each order, of the first candidate within 5 %
of the best time of all builds timed. Compiling holds `--lock` shared, timing holds it exclusively.
(`cpu_convolutions.py` does the same for convolutions; this script reuses its dispatch reading, builds, timing and
table; a layer norm's two dispatches are one problem, configured by one spec.)

    python benchmarks/cpu/cpu_reductions.py [--budget 30] [--rounds 5] [--lock /tmp/mltune-cpu.lock] [--jobs 2]
                                        [--only NAME ...] [--details FILE]
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from cpu.cpu_convolutions import Study, build_study, dispatch, study_main

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from iree.compiler import ir  # noqa: E402

from mltune.frontend.one_op_reduction import ReductionShape, reduction_model  # noqa: E402
from mltune.spaces.cpu_reduction import CpuReduction, knobs_of_levels  # noqa: E402

SHAPES = {
    "bert_base_layernorm_128x768": ReductionShape("layernorm", (128, 768)),
    "vit_b16_layernorm_197x768": ReductionShape("layernorm", (197, 768)),
    "bert_base_softmax_12x128x128": ReductionShape("softmax", (12, 128, 128)),
    "resnet50_meanpool_2048x7x7": ReductionShape("meanpool", (1, 2048, 7, 7)),
    "llama_rmsnorm_128x4096": ReductionShape("rmsnorm", (128, 4096)),
}
DEFAULT_ONLY = tuple(list(SHAPES)[:4])


def build(name: str, budget: int, jobs: int, work: Path, context: ir.Context) -> Study:
    """Compile IREE's default build and each ranker's first `budget` candidates of one shape."""
    shape = SHAPES[name]
    read = partial(dispatch, configurator=CpuReduction, knobs_of=knobs_of_levels)
    return build_study(name, reduction_model(shape), shape.inputs, read, budget, jobs, work, context)


if __name__ == "__main__":
    sys.exit(study_main(__doc__, list(SHAPES), DEFAULT_ONLY, build))
