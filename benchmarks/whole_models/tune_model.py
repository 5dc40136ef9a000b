"""Tune a whole model, then re-measure the result with plain IREE tools.

`mltune tune MODEL --budget N` prints where the model spends its time and tunes the top
problems; this script then prints that breakdown again (from `summary.json`), the problems
tuned and what leave-one-out kept, and re-measures the recommendation with `iree-compile` and
`iree-benchmark-module` alone:
- IREE's default build is made exactly as mltune makes its baseline (`mltune.input.tuning_input.default_build`:
  the target's flags and every `--iree-flag` (IREE 3.13 accepts `--iree-cuda-use-ptxas` and ignores it: every
  CUDA build carries PTX that the driver assembles at load, `docs/scaling.md`); for sm_90, which IREE 3.13
  does not know, a copy of the model carrying a hand-written `#hal.executable.target` and no target flags);
- the tuned build is the command line mltune recommends (`RUN_DIR/compile_command.txt`). On CPU and
  ROCm it adds `--iree-codegen-tuning-spec-path` (and any recommended flags) to the default build; IREE
  ignores tuning specs on CUDA, so there mltune's output is the model itself, its root ops annotated
  with the winning `compilation_info` (`RUN_DIR/annotated.mlir`, for sm_90 the copy carrying its
  target), compiled with the same flags as the default;
- both run as `iree-benchmark-module --device=DEVICE --function=main --flagfile=RUN_DIR/inputs/flags.txt`
  (the arguments mltune used), interleaved over `--rounds` rounds, alternating which goes first.
A time is the fastest of 5 repetitions of one process, each repetition the mean wall time of
synchronous calls of `main` (on a GPU: submission, kernels and the wait for them, call after call,
after a 0.2 s warm-up); the script prints median and min over rounds and the median per-round ratio.
When mltune timed at kernel level (`summary.json`'s `kernel_timing`), both builds are also made with
`--iree-hal-benchmark-dispatch-repeat-count` at mltune's count and compared the same way, beside
mltune's kernel-level ratio.

    python benchmarks/whole_models/tune_model.py [--model examples/models/transformer_block_f32.mlir] [--budget 60] [--rounds 10]
    python benchmarks/whole_models/tune_model.py --model mm.mlir --target sm_90 --devices cuda://0 --budget 100 --rounds 10 \\
        --iree-flag=--iree-cuda-use-ptxas --iree-flag=--iree-cuda-use-ptxas-from=/usr/local/cuda/bin/ptxas
    python benchmarks/whole_models/tune_model.py --matmul 4096x4096x4096 --target mi300x --budget 100   # a one-op f16 model

`--matmul MxNxK` writes a one-op model into the work folder (f16 inputs, N x K weight, f32
accumulation: `collect_dataset.py`'s GPU problems). mltune's `--flag-search` is on for CPU targets
(`--no-flag-search` turns it off) and never passed for GPU ones: its flag variants are CPU flags.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from collection.collect_dataset import H
from whole_models.tune_examples import benchmark_ms, run

from mltune.errors import UserError
from mltune.execution.devices import parse_devices
from mltune.frontend.mlir import new_context
from mltune.frontend.one_op_model import ContractionShape, contraction_model
from mltune.input.tuning_input import default_build
from mltune.targets import Target, parse_target

ROOT = Path(__file__).resolve().parents[2]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, as for every other bad input
        raise UserError(message)


def matmul_model(text: str, work: Path) -> Path:
    """A one-op model for `MxNxK` (f16, N x K weight, f32 accumulation), written into `work`."""
    found = re.fullmatch(r"(\d+)x(\d+)x(\d+)", text)
    if not found or 0 in (dims := tuple(int(d) for d in found.groups())):
        raise UserError(f"--matmul: expected positive sizes MxNxK such as 4096x4096x4096, got {text!r}")
    shape = ContractionShape(*dims, **H)
    work.mkdir(parents=True, exist_ok=True)
    path = work / f"{shape.name}.mlir"
    path.write_text(contraction_model(shape))
    return path


def tune_command(args: argparse.Namespace, model: Path, run_dir: Path, target: Target, output: Path) -> list[str]:
    """`mltune tune` for `model`, with the options given to this script passed through."""
    command = [
        sys.executable,
        "-m",
        "mltune.cli",
        "tune",
        str(model),
        "--target",
        args.target,
        "--budget",
        str(args.budget),
        "--run-dir",
        str(run_dir),
        "--dataset-dir",
        str(args.dataset_dir or args.work / "datasets"),
        "-o",
        str(output),
    ]
    command += ["--devices", args.devices] if args.devices else []
    command += ["--ranker", args.ranker] if args.ranker else []
    command += ["--top", str(args.top)] if args.top else []
    command += ["--timing", args.timing] if args.timing else []
    command += ["--flag-search"] if args.flag_search and target.kind == "cpu" else []
    return command + [f"--iree-flag={flag}" for flag in args.iree_flags]


def default_build_args(model: Path, target: Target, iree_flags: list[str], work_dir: Path, vmfb: Path) -> list[str]:
    """`iree-compile` building `model` with IREE's defaults, as mltune builds its baseline."""
    work_dir.mkdir(parents=True, exist_ok=True)
    source, flags = default_build(model, target, work_dir, new_context(), iree_flags)
    return ["iree-compile", str(source), *flags, "-o", str(vmfb)]


def tuned_build_args(run_dir: Path, vmfb: Path) -> list[str] | None:
    """The recommended `iree-compile` command writing `vmfb`; None when mltune recommends IREE's defaults."""
    recommended = run_dir / "compile_command.txt"
    if not recommended.is_file():
        return None
    args = shlex.split(recommended.read_text())
    args[args.index("-o") + 1] = str(vmfb)
    return args


def print_breakdown(summary: dict) -> None:
    print("\nPer-dispatch time (dumped benchmarks, IREE default) x calls per model run:")
    print(f"  {'dispatch':<38} {'op':<20} {'us/call':>9} {'calls':>5} {'share':>6}  problem")
    for p in summary["profile"]:
        timed = f"{p['time_us']:9.1f}" if p["time_us"] is not None else f"{'-':>9}"  # one dispatch: not timed
        print(
            f"  {p['dispatch'][:38]:<38} {p['op'][:20]:<20} {timed} {p['calls']:5d} "
            f"{100 * p['share']:5.1f}%  {p['problem'] or 'not tunable'}"
        )
    winners = {d["problem"]: d for d in summary["dispatches"]}
    print("\nTuned (budget split by share):")
    for a in summary["allocations"]:
        d = winners[a["problem"]]
        won = f"{d['winner']['speedup']:.2f}x in the model" if d["winner"] else "no config beat the default"
        verdict = ""
        check = summary["config_check"]
        if check and a["problem"] in check["gain"]:
            kept = a["problem"] in check["kept"]
            verdict = (
                f"; checked {check['method']}, gain {check['gain'][a['problem']]:.3f}: {'kept' if kept else 'dropped'}"
            )
        print(
            f"  {a['problem']:<40} {100 * a['share']:5.1f}% of time, {a['budget']:3d} candidates "
            f"({d['benchmarked']} benchmarked): {won}{verdict}"
        )
    flags = summary["flags"]
    if flags:
        for name, m in flags["measured"].items():
            print(f"  flag variant {name}: {m['interval']}")
        print(f"  flags kept: {' '.join(flags['kept']) or 'none'}")


def repeated(command: list[str], repeat: int, vmfb: Path) -> list[str]:
    """An `iree-compile ... -o X` command that also repeats each dispatch `repeat` times per call, writing `vmfb`."""
    out = list(command)
    out[out.index("-o") + 1] = str(vmfb)
    out.insert(out.index("-o"), f"--iree-hal-benchmark-dispatch-repeat-count={repeat}")
    return out


def retime(
    default_vmfb: Path, tuned_vmfb: Path, inputs: Path, device: str, rounds: int, summary: dict, level: str = "call"
) -> None:
    """Time both modules in interleaved rounds, alternating which goes first, and print the comparison;
    `level` kernel compares the builds that repeat each dispatch, and mltune's kernel-level end-to-end."""
    default_ms, tuned_ms, ratios = [], [], []
    for round_index in range(rounds):
        order = [default_vmfb, tuned_vmfb] if round_index % 2 == 0 else [tuned_vmfb, default_vmfb]
        times = {vmfb: benchmark_ms(vmfb, inputs, device) for vmfb in order}
        default_ms.append(times[default_vmfb])
        tuned_ms.append(times[tuned_vmfb])
        ratios.append(times[default_vmfb] / times[tuned_vmfb])
    mltune_said = (
        summary["per_call"]
        if level != "kernel" and summary.get("per_call")
        else summary.get("as_built") or (summary["end_to_end"] or {}).get("recommended")
    )
    e2e = mltune_said["speedup"] if mltune_said else None
    print(
        f"\nEnd to end on {device}, {level} level, {rounds} interleaved rounds of iree-benchmark-module (fastest "
        "of 5 reps each), ms:"
    )
    print(f"  IREE default  median {statistics.median(default_ms):7.3f}  min {min(default_ms):7.3f}")
    print(f"  tuned         median {statistics.median(tuned_ms):7.3f}  min {min(tuned_ms):7.3f}")
    print(
        f"  speedup: median of per-round ratios {statistics.median(ratios):.3f}x, "
        f"ratio of mins {min(default_ms) / min(tuned_ms):.3f}x; tuned faster in {sum(r > 1 for r in ratios)}/"
        f"{len(ratios)} rounds" + (f" (mltune measured {e2e:.3f}x in-process)" if e2e else "")
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(description=__doc__.splitlines()[0])
    model = parser.add_mutually_exclusive_group()
    model.add_argument("--model", type=Path, default=ROOT / "examples" / "models" / "transformer_block_f32.mlir")
    model.add_argument(
        "--matmul",
        metavar="MxNxK",
        default=None,
        help="tune a one-op f16 matmul (N x K weight, f32 accumulation) instead of --model",
    )
    parser.add_argument("--target", default="host", help="as for mltune tune: host, sm_90, mi300x, gfx942, ...")
    parser.add_argument(
        "--devices",
        default=None,
        help="passed to mltune tune; the first one also runs iree-benchmark-module "
        "(default: mltune's, local-task for CPUs, cuda://0 or hip://0 for GPUs)",
    )
    parser.add_argument(
        "--iree-flag",
        action="append",
        default=[],
        metavar="FLAG",
        dest="iree_flags",
        help="an iree-compile flag for mltune (--iree-flag) and for the default build (repeatable)",
    )
    parser.add_argument("--ranker", default=None, help="passed to mltune tune (default: mltune's)")
    parser.add_argument(
        "--flag-search",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="let mltune measure its compile-flag variants first (CPU targets only; default on)",
    )
    parser.add_argument(
        "--timing",
        default=None,
        choices=["auto", "call", "kernel"],
        help="passed to mltune tune (default: mltune's, kernel level on GPUs)",
    )
    parser.add_argument("--budget", type=int, default=60)
    parser.add_argument("--top", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument(
        "--dataset-dir",
        type=Path,
        default=None,
        help="records (and the seed order for known problems); default: WORK/datasets",
    )
    parser.add_argument("--work", type=Path, default=ROOT / "mltune-runs" / f"model-{time.strftime('%Y%m%d-%H%M%S')}")
    return parser


def tune_and_retime(args: argparse.Namespace) -> int:
    target = parse_target(args.target)  # an unknown target fails here, in one line
    device = parse_devices(args.devices, target)[0]
    model = matmul_model(args.matmul, args.work) if args.matmul else args.model
    if not model.is_file():
        raise UserError(f"model not found: {model}")
    run_dir = args.work / model.stem
    output = run_dir / ("annotated.mlir" if target.kind == "cuda" else "best_spec.mlir")
    command = tune_command(args, model, run_dir, target, output)
    print("$", shlex.join(command), flush=True)
    print(f"load average before: {os.getloadavg()[0]:.1f} (on {os.cpu_count()} cores)", flush=True)
    tune = subprocess.run(command, capture_output=True, text=True)
    args.work.mkdir(parents=True, exist_ok=True)
    (args.work / "mltune_stdout.txt").write_text(tune.stdout + tune.stderr)
    if tune.returncode != 0:
        print((tune.stdout + tune.stderr).strip(), file=sys.stderr)
        return 1
    summary = json.loads((run_dir / "summary.json").read_text())
    print_breakdown(summary)
    default_vmfb, tuned_vmfb = run_dir / "check_default.vmfb", run_dir / "check_tuned.vmfb"
    # the same work folder as mltune's: an sm_90 copy lands where mltune's is, and its path is in the binary
    default_args = default_build_args(model, target, args.iree_flags, run_dir, default_vmfb)
    print("\n$", shlex.join(default_args))
    run(default_args)
    tuned_args = tuned_build_args(run_dir, tuned_vmfb)
    if tuned_args is None:
        why = summary.get("refused") or summary.get("withdrawn") or "no spec, no flags"
        print(f"\nmltune recommends IREE's defaults ({why}): the speedup is 1 by construction")
        return 0
    print("$", shlex.join(tuned_args))
    run(tuned_args)
    retime(default_vmfb, tuned_vmfb, run_dir / "inputs" / "flags.txt", device, args.rounds, summary)
    if summary.get("kernel_timing"):
        repeat = summary["kernel_timing"]["repeat"]
        kernel_vmfbs = run_dir / "check_default_repeated.vmfb", run_dir / "check_tuned_repeated.vmfb"
        for command, vmfb in zip((default_args, tuned_args), kernel_vmfbs):
            print("$", shlex.join(repeated(command, repeat, vmfb)))
            run(repeated(command, repeat, vmfb))
        retime(*kernel_vmfbs, run_dir / "inputs" / "flags.txt", device, args.rounds, summary, "kernel")
    print(f"  mltune wall time {summary['wall_seconds']:.0f} s; load average after: {os.getloadavg()[0]:.1f}")
    return 0


def main() -> int:
    try:
        return tune_and_retime(build_parser().parse_args())
    except UserError as err:
        print(f"tune_model.py: error: {err}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as err:
        last = (err.stderr or "").strip().splitlines()
        print(
            f"tune_model.py: {shlex.join(err.cmd)} failed with exit code {err.returncode}"
            f"{': ' + last[-1] if last else ''}",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
