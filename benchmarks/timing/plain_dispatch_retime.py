"""The best candidate of each dumped dispatch tuned by `gpu_heuristic_unseen.py --dispatches ... --keep K --out R`,
re-measured with plain tools: `iree-compile` of the dump as IREE configured it (the default) and of the run's
output (`out.mlir`, the dispatch annotated with the winner's `compilation_info`), then `iree-benchmark-module` on
both and on a copy of the default, in rounds whose order rotates. Each time is the fastest of 3 repetitions of at
least 0.1 s of 20-dispatch batches (as mltune's profile times a dispatch). Prints, per dispatch, the tuned build's
speedup over the default (median and spread over rounds) and the copy's (should read 1.00x).

Constants a dump names without holding (a convolution's fused batch norm) are restored as zeros in both builds, as
`mltune tune` restores them. Both are compiled from the phase they were dumped at (`--compile-from=flow`, as mltune
builds a dump: from the start, IREE folds a batch-1 contraction's unit loop again and drops the winner's config).
Devices run side by side, each its dispatches one after the other (the device `R`
names for each dispatch).

    python benchmarks/timing/plain_dispatch_retime.py --keep K --rows R [--rounds 8] [--iree-flag=...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mltune.frontend.dump_constants import restore_dropped_constants
from mltune.input.tuning_input import executable_flags
from mltune.whole_model.profile import time_dispatch


def retime(shape: str, run: str, device: str, keep: Path, work: Path, rounds: int, flags: list[str]) -> str:
    """One dispatch's rounds on `device`: a line of the table."""
    if not (keep / shape / run / "out.mlir").is_file():
        return f"{shape:<28} {run:<10} {device:<8} (no candidate beat the default: nothing to re-measure)"
    folder = work / shape
    folder.mkdir()
    default_source = restore_dropped_constants(keep / shape / f"{shape}.mlir", folder / "default.mlir")
    sources = {"default": default_source, "tuned": keep / shape / run / "out.mlir"}
    vmfbs = {name: folder / f"{name}.vmfb" for name in ("default", "default copy", "tuned")}
    for name, source in sources.items():
        subprocess.run(
            ["iree-compile", str(source), *executable_flags(flags), "-o", str(vmfbs[name])],
            check=True,
            capture_output=True,
        )
    vmfbs["default copy"].write_bytes(vmfbs["default"].read_bytes())
    names = list(vmfbs)
    times: dict[str, list[float]] = {name: [] for name in names}
    for number in range(rounds):
        for name in names[number % len(names) :] + names[: number % len(names)]:
            us, why = time_dispatch(vmfbs[name], device)
            if why:
                raise RuntimeError(f"{shape} {name}: {why}")
            times[name].append(us)
    tuned = [d / t for d, t in zip(times["default"], times["tuned"])]
    copy = [d / c for d, c in zip(times["default"], times["default copy"])]
    spread = f"({min(tuned):.2f}-{max(tuned):.2f})"
    return (
        f"{shape:<28} {run:<10} {device:<8} {statistics.median(times['default']):>10.1f} "
        f"{statistics.median(times['tuned']):>10.1f} {statistics.median(tuned):>6.2f}x {spread}"
        f" {statistics.median(copy):>6.2f}x ({min(copy):.2f}-{max(copy):.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, required=True, help="gpu_heuristic_unseen.py's --keep folder")
    parser.add_argument("--rows", type=Path, required=True, help="gpu_heuristic_unseen.py's --out file")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--iree-flag", action="append", default=[], metavar="FLAG")
    args = parser.parse_args()
    rows = json.loads(args.rows.read_text())["rows"]
    best: dict[str, dict] = {}
    for row in rows:  # the run that found each dispatch's fastest candidate
        if row["shape"] not in best or row["best_speedup"] > best[row["shape"]]["best_speedup"]:
            best[row["shape"]] = row
    print(
        f"{'dispatch':<28} {'run':<10} {'device':<8} {'default us':>10} {'tuned us':>10} {'tuned speedup':>20} "
        f"{'copy of the default':>20}"
    )
    by_device: dict[str, list[dict]] = {}
    for row in best.values():
        by_device.setdefault(row["device"], []).append(row)

    def on_device(device_rows: list[dict], scratch: Path) -> list[str]:
        return [
            retime(row["shape"], row["run"], row["device"], args.keep, scratch, args.rounds, args.iree_flag)
            for row in device_rows
        ]

    with tempfile.TemporaryDirectory(prefix="mltune-retime-") as scratch, ThreadPoolExecutor(len(by_device)) as pool:
        for lines in pool.map(on_device, by_device.values(), [Path(scratch)] * len(by_device)):
            print("\n".join(lines), flush=True)


if __name__ == "__main__":
    main()
