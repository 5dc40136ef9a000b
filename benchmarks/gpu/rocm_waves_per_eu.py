"""Does IREE honour `amdgpu-waves-per-eu` on gfx942? Compile-only evidence (no AMD GPU is used).

For each dispatch, a seeded sample of tilings from mltune's space (with `waves_per_eu` unset) is compiled again
with each requested waves-per-EU value, from the dumped executable, with the real iree-compile for the target.
LLVM warns "failed to meet occupancy target given by 'amdgpu-waves-per-eu' ... desired occupancy was D, final
occupancy is F" when it cannot: the attribute then changes nothing the tuner wants. Each compile is counted as
honoured or warned, and against what mltune's space says (`mltune.spaces.occupancy`: does the space offer this
tiling with this value?), so the table shows both what the old space offered (every value for every tiling) and
what the new one does.

    python benchmarks/gpu/rocm_waves_per_eu.py [--target mi300x] [--samples 12] [--waves 2,4] [--only NAMES] [--seed 0] [--csv FILE]
"""

from __future__ import annotations

import argparse
import collections
import csv
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from gpu.rocm_spaces import ROOT, dispatch_spaces

WARNING = re.compile(r"failed to meet occupancy target.*desired occupancy was (\d+), final occupancy is (\d+)")
DEFAULT_DISPATCHES = "mm_nt_2048x1280x5120_f16,mm_nt_4096x4096x4096_f16,mm_nt_128x1280x2048_f16,bmm_64x512x512x64_f16"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="mi300x")
    parser.add_argument("--samples", type=int, default=12, help="tilings per dispatch")
    parser.add_argument("--waves", default="2,4")
    parser.add_argument("--only", default=DEFAULT_DISPATCHES)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--csv", type=Path, default=None, help="one row per compile")
    parser.add_argument("--work", type=Path, default=ROOT / "mltune-runs" / f"waves-{time.strftime('%Y%m%d-%H%M%S')}")
    args = parser.parse_args()
    waves = [int(w) for w in args.waves.split(",")]
    counts: collections.Counter = collections.Counter()
    rows = []
    for space in dispatch_spaces(args.only.split(","), args.target, args.work, args.jobs):
        c = space.candidates
        pool = np.flatnonzero(c.column("waves_per_eu") == 0)
        sample = np.random.default_rng(args.seed).choice(pool, size=min(args.samples, len(pool)), replace=False)
        for value in waves:
            knobs = [{**c.knobs(int(i)), "waves_per_eu": value} for i in sample]
            offered = [space.configurator.space.admits(k) for k in knobs]
            jobs = [
                (i, space.applier.apply(space.dispatch.problem, space.configurator.compilation_info(k)))
                for i, k in enumerate(knobs)
            ]
            builds = space.dispatch_builder.compile_many(jobs, f"{space.name}/waves{value}")
            for k, is_offered, build in zip(knobs, offered, builds):
                found = [WARNING.search(w) for w in build.warnings]
                final = next((int(m.group(2)) for m in found if m), value if build.status == "ok" else -1)
                verdict = "failed" if build.status != "ok" else ("honoured" if final >= value else "warned")
                counts[(value, is_offered, verdict)] += 1
                rows.append(
                    {
                        "dispatch": space.name,
                        "waves_per_eu": value,
                        "offered": is_offered,
                        "verdict": verdict,
                        "final_occupancy": final,
                        **k,
                        **space.configurator.derived_values(k),
                    }
                )
            print(
                f"{space.name:<30} waves {value}: "
                + ", ".join(
                    f"{v} {sum(r['verdict'] == v for r in rows if r['dispatch'] == space.name and r['waves_per_eu'] == value)}"
                    for v in ("honoured", "warned", "failed")
                ),
                flush=True,
            )
    print(
        "\n| waves_per_eu | tilings | honoured | warned (not met) | failed | offered by the space | offered and warned |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for value in waves:
        total = sum(n for (w, _, _), n in counts.items() if w == value)
        by = {
            v: sum(n for (w, _, verdict), n in counts.items() if w == value and verdict == v)
            for v in ("honoured", "warned", "failed")
        }
        offered = sum(n for (w, o, _), n in counts.items() if w == value and o)
        print(
            f"| {value} | {total} | {by['honoured']} | {by['warned']} | {by['failed']} | {offered} | "
            f"{counts[(value, True, 'warned')]} |"
        )
    if args.csv and rows:
        with open(args.csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
