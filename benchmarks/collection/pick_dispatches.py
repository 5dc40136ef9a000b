"""Pick the dumped dispatches of real models that a GPU dataset of the newer op kinds is collected on.

Reads the `dispatches.json` of `model_tunable_share.py --work` folders (each model compiled for one target, its
dispatches dumped and classified), keeps one dispatch per distinct problem, and per op kind and operand type takes up
to `--per-kind` of them spread evenly over the kind's range of FLOPs (bytes for elementwise ops, which do no
arithmetic to speak of), skipping the smallest elementwise ones (under `--min-bytes`: launch-bound on any GPU) and
the largest of all (over `--max-flops`: a vocabulary projection whose slow candidates would take a lane's time). The
picks are copied to `--out` as `MODEL_KIND_dN.mlir` in an order that interleaves the kinds, so that a collection
cut short still covers each; `--out/picked.json` says where each came from. `--also` adds dispatches dumped
elsewhere (files named as they should be kept), before the picks.

    python benchmarks/collection/pick_dispatches.py W/bert_sm_90 W/resnet50_sm_90 ... --out DIR \\
        [--kinds convolution,depthwise_convolution,elementwise,reduction] [--per-kind 10] [--also FILE ...]
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import sys
from pathlib import Path


def distinct_problems(folders: list[Path]) -> dict[str, list[dict]]:
    """Per op kind, the first dispatch of each distinct problem over the dumped models (with its model's name)."""
    seen: set[str] = set()
    kinds: dict[str, list[dict]] = {}
    for folder in folders:
        dumped = json.loads((folder / "dispatches.json").read_text())
        for dispatch in dumped["dispatches"]:
            problem = dispatch["problem"]
            key = json.dumps(problem, sort_keys=True)
            if problem is None or key in seen:
                continue
            seen.add(key)
            model = folder.name.removesuffix(f"_{dumped['target']}")
            kinds.setdefault(problem["op_kind"], []).append({**dispatch, "model": model, "folder": str(folder)})
    return kinds


def spread(dispatches: list[dict], count: int, size: str) -> list[dict]:
    """Up to `count` of the dispatches, evenly spaced over their order by `size` (both ends kept)."""
    ordered = sorted(dispatches, key=lambda d: d["cost"][size])
    if len(ordered) <= count:
        return ordered
    step = (len(ordered) - 1) / (count - 1)
    return [ordered[round(i * step)] for i in range(count)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, help="model_tunable_share.py --work folders")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--kinds", default="convolution,depthwise_convolution,elementwise,reduction,multi_loop_contraction,contraction"
    )
    parser.add_argument("--per-kind", type=int, default=10)
    parser.add_argument("--also", nargs="*", type=Path, default=[], help="more dumped dispatches, kept as named")
    parser.add_argument("--max-flops", type=float, default=2e9, help="dispatches larger than this are left out")
    parser.add_argument("--min-bytes", type=float, default=100e3, help="elementwise ops smaller than this are left out")
    args = parser.parse_args()
    found = distinct_problems(args.folders)
    picked = []
    for kind in filter(None, args.kinds.split(",")):
        candidates = [d for d in found.get(kind, []) if d["cost"]["flops"] <= args.max_flops]
        if kind == "elementwise":
            candidates = [d for d in candidates if d["cost"]["bytes"] >= args.min_bytes]
        picked.append(spread(candidates, args.per_kind, "bytes" if kind == "elementwise" else "flops"))
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for extra in args.also:
        shutil.copyfile(extra, args.out / extra.name)
        rows.append({"name": extra.stem, "file": str(extra)})
    for dispatch in (d for group in itertools.zip_longest(*picked) for d in group if d is not None):
        number = dispatch["name"].split("_dispatch_")[1].split("_")[0]
        name = f"{dispatch['model']}_{dispatch['problem']['op_kind']}_d{number}"
        shutil.copyfile(Path(dispatch["folder"]) / dispatch["bench"], args.out / f"{name}.mlir")
        rows.append(
            {
                "name": name,
                "model": dispatch["model"],
                "dispatch": dispatch["name"],
                "problem": dispatch["problem"],
                "cost": dispatch["cost"],
            }
        )
    (args.out / "picked.json").write_text(json.dumps(rows, indent=1) + "\n")
    for row in rows:
        problem = row.get("problem") or {"layout": "", "bounds": row["file"]}
        print(f"{row['name']:48} {problem['layout']:14} {problem['bounds']}")
    print(f"{len(rows)} dispatches in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
