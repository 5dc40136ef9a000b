"""The share of a model in dispatches mltune can tune, by op kind: by time where the dispatches are timed, by FLOPs
and bytes (compile-only) everywhere.

The model (any input `iree-compile` reads: torch, linalg) is compiled for `--target` (this CPU, a CUDA or a ROCm
arch) up to its executable configurations with its dispatches dumped; each dispatch's root op is read as mltune
reads it and given a space (`make_configurator`) or a reason, and its FLOPs and bytes are read from its IR
(`dispatch_cost`), times the calls the model's flow IR makes. Given a `--device` (llvm-cpu: this CPU by default),
the profile (`mltune.whole_model.profile`: every dumped dispatch compiled as IREE configures it, timed with
`iree-benchmark-module`) weighs them by time too. A GPU without the machine to time on is split in two: `--work W`
here (the dump, `W/dispatches.json`: no weights, a few MB), then `--dumped W --device cuda` where the GPU is.
`--dumped W --reclassify` reads the dumped root ops again with this checkout's spaces (a change to them needs no new
dump of the model). Compiling holds `--lock` shared, timing on this CPU holds it exclusively.

    python benchmarks/whole_models/model_tunable_share.py MODEL.mlir [--target host|sm_90|gfx942] [--work W]
        [--lock /tmp/mltune-cpu.lock] [--jobs 2] [--device local-task]
    python benchmarks/whole_models/model_tunable_share.py --dumped W --device cuda [--iree-flag=--iree-cuda-use-ptxas]
    python benchmarks/whole_models/model_tunable_share.py --dumped W --reclassify [--as-dispatches]
        [--timed-in W2] [--lock /tmp/mltune-cpu.lock]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, replace
from pathlib import Path
from typing import Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from measure_lock import held
from whole_models.dispatch_cost import DispatchCost, dispatch_cost
from whole_models.share_report import DISPATCH_ONLY, Dispatch, print_report
from whole_models.tune_examples import CPU_FLAGS

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from iree.compiler import ir  # noqa: E402
from iree.compiler.dialects import iree_codegen  # noqa: E402

from mltune.errors import UserError  # noqa: E402
from mltune.frontend.mlir import parse_module_file  # noqa: E402
from mltune.frontend.problem import Problem, Untunable  # noqa: E402
from mltune.frontend.root_ops import read_root_ops  # noqa: E402
from mltune.whole_model.profile import DispatchProfile, call_counts, compile_dispatches, executable_of, rank_dispatches  # noqa: E402
from mltune.emit.apply import annotatable_keys, annotates_source, match_key  # noqa: E402
from mltune.whole_model.input_form import input_form  # noqa: E402
from mltune.spaces.configure import make_configurator  # noqa: E402
from mltune.system.tools import run_tool, tool_path  # noqa: E402
from mltune.targets import facts_from_executable_target, parse_target  # noqa: E402

DUMPED = "dispatches.json"
TIMED = "profile.json"


def classify(
    bench: Path, context: ir.Context, work: Path, in_model: set[str] | None = None
) -> tuple[str, Problem | None, str, DispatchCost]:
    """(root op name, problem if tunable, op kind or the reason it is not tunable, FLOPs and bytes) of one dumped
    dispatch. `in_model`: the problems the model's source can carry a config for (CUDA: its ops, `model_keys`); a
    tunable one not among them is `DISPATCH_ONLY` and its kind."""
    module = parse_module_file(bench, context)
    cost = dispatch_cost(module)
    with context:
        variants = iree_codegen.get_executable_variant_ops(module)
        roots = read_root_ops(module) if variants else []
        facts = facts_from_executable_target(variants[0].attributes["target"]) if variants else None
    if not roots:
        return "(none)", None, "no root op", cost
    root = next((r for r in roots if isinstance(r, Problem)), roots[0])
    if not isinstance(root, Problem):
        return root.op_name, None, f"not tunable: {root.reason}", cost
    configurator = make_configurator(root, facts, context, bench, work)
    if isinstance(configurator, Untunable):
        return root.op_name, None, f"not tunable: {configurator.reason}", cost
    if in_model is not None and match_key(root) not in in_model:
        return root.op_name, root, f"{DISPATCH_ONLY}{root.op_kind}", cost
    return root.op_name, root, root.op_kind, cost


def model_keys(model: Path, target_name: str, flags: Sequence[str], work: Path) -> set[str] | None:
    """On a target whose candidates annotate the model's source (CUDA), the problems its ops can carry a config for
    (the source as mltune tunes it: in IREE's input form); None elsewhere (a spec reaches every dispatch)."""
    target = parse_target(target_name, probe=False)
    if not annotates_source(target.kind):
        return None
    if not model.is_file():
        raise UserError(f"{model} (the dumped model) is not here: --as-dispatches reads its source")
    context = ir.Context()
    work.mkdir(parents=True, exist_ok=True)
    source = input_form(target.prepare_source(model, work, context), [*target.compile_flags(), *flags], work)
    return annotatable_keys(source, context)


def dump(model: Path, target_name: str, work: Path, extra_flags: Sequence[str] = ()) -> list[Dispatch]:
    """Compile `model` for the target up to its executable configurations with its dispatches dumped into `work`,
    classify them, and write what the timing needs (`work/dispatches.json`, relative paths) beside them."""
    target = parse_target(target_name, probe=False)
    context = ir.Context()
    with tempfile.TemporaryDirectory(prefix="mltune-share-") as tmp:
        source = target.prepare_source(model, Path(tmp), context)  # sm_90: a copy carrying its device target
        flags = [*(CPU_FLAGS if target.kind == "cpu" else target.compile_flags()), *extra_flags]
        result = run_tool(
            [
                tool_path("iree-compile"),
                str(source),
                *flags,
                "--iree-codegen-add-tuner-attributes",
                f"--iree-hal-dump-executable-benchmarks-to={work / 'dump'}",
                "--compile-to=executable-configurations",
                "-o",
                os.devnull,
            ],
            timeout_s=1800,
        )
        if not result.ok:
            raise UserError(f"iree-compile cannot compile {model} for {target_name}: {result.describe_failure()}")
        counts = call_counts(source, flags, Path(tmp))
    dispatches = []
    for bench in sorted((work / "dump").glob("*_benchmark.mlir")):
        name = bench.stem.removeprefix("module_").removesuffix("_benchmark")
        op, problem, kind, cost = classify(bench, context, work / "spaces")
        executable = executable_of(name, list(counts))
        dispatches.append(Dispatch(name, bench, op, kind, problem, cost, counts[executable] if executable else 1))
    (work / DUMPED).write_text(
        json.dumps(
            {
                "model": str(model),
                "target": target_name,
                "dispatches": [
                    {
                        **asdict(d),
                        "bench": str(d.bench.relative_to(work)),
                        "problem": d.problem.to_record() if d.problem else None,
                        "cost": asdict(d.cost),
                    }
                    for d in dispatches
                ],
            },
            indent=1,
        )
    )
    return dispatches


def load(work: Path) -> tuple[str, str, list[Dispatch]]:
    """The model, target and dispatches `dump` wrote into `work`."""
    if not (work / DUMPED).is_file():
        raise UserError(f"{work} holds no {DUMPED}: give the --work folder of a run with a MODEL")
    data = json.loads((work / DUMPED).read_text())
    return (
        data["model"],
        data["target"],
        [
            Dispatch(
                **{
                    **d,
                    "bench": work / d["bench"],
                    "problem": Problem.from_record(d["problem"]) if d["problem"] else None,
                    "cost": DispatchCost(**d["cost"]),
                }
            )
            for d in data["dispatches"]
        ],
    )


def reclassify(dispatches: list[Dispatch], work: Path, in_model: set[str] | None = None) -> list[Dispatch]:
    """The dumped dispatches classified again (`classify`), their dump and calls kept."""
    context = ir.Context()
    classified = []
    for dispatch in dispatches:
        op, problem, kind, cost = classify(dispatch.bench, context, work / "spaces", in_model)
        classified.append(replace(dispatch, op=op, kind=kind, problem=problem, cost=cost))
    return classified


def time_dispatches(
    dispatches: list[Dispatch], work: Path, device: str, flags: list[str], jobs: int, lock: Path | None
) -> list[DispatchProfile]:
    """mltune's profile of the dumped dispatches on `device`: compiled (lock shared), then timed one at a time."""
    named = [(d.name, d.bench, d.op, d.problem) for d in dispatches]
    with held(lock, shared=True):
        built = compile_dispatches(named, work / "profile", jobs, flags)
    counts = Counter({d.name: d.calls for d in dispatches})
    with held(lock):
        return rank_dispatches(named, built, counts, (device,))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, nargs="?", help="the model to compile (not with --dumped)")
    parser.add_argument("--target", default="host", help="host (llvm-cpu), a CUDA arch (sm_90) or a ROCm arch (gfx942)")
    parser.add_argument("--dumped", type=Path, default=None, help="time what an earlier --work run dumped here")
    parser.add_argument(
        "--reclassify",
        action="store_true",
        help="with --dumped: read the dumped root ops again with this checkout's spaces",
    )
    parser.add_argument(
        "--as-dispatches",
        action="store_true",
        help="with --reclassify on CUDA: count a tunable "
        "dispatch no op of the model's source is (it needs the model file) apart, tunable as its dump",
    )
    parser.add_argument(
        "--timed-in",
        type=Path,
        default=None,
        help="without --device: the times an earlier timed "
        f"run of this dump wrote (W/{TIMED}), e.g. carried back from the GPU it ran on",
    )
    parser.add_argument(
        "--device",
        default=None,
        help="the runtime device to time on (llvm-cpu: local-task by default); "
        "none on a GPU target: FLOPs and bytes only",
    )
    parser.add_argument(
        "--iree-flag",
        action="append",
        default=[],
        help="a flag added to every compile (the model's "
        "and each dispatch's), e.g. --iree-flag=--iree-input-demote-f32-to-f16",
    )
    parser.add_argument("--lock", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--work", type=Path, default=None, help="keep the dumped dispatches here (default: a temporary folder)"
    )
    args = parser.parse_args()
    if (args.model is None) == (args.dumped is None):
        parser.error("give either MODEL or --dumped W")
    if args.reclassify and args.dumped is None:
        parser.error("--reclassify reads an earlier run's dump: give --dumped W")
    print("load average before: %.2f %.2f %.2f" % os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="mltune-share-") as tmp:
        work = args.dumped or args.work or Path(tmp)
        if args.dumped:
            model, target, dispatches = load(work)
            if args.reclassify:
                with held(args.lock, shared=True):
                    in_model = (
                        model_keys(Path(model), target, args.iree_flag, work / "model") if args.as_dispatches else None
                    )
                    dispatches = reclassify(dispatches, work, in_model)
        else:
            model, target = str(args.model), args.target
            work.mkdir(parents=True, exist_ok=True)
            with held(args.lock, shared=True):
                dispatches = dump(args.model, target, work, args.iree_flag)
        on_cpu = parse_target(target, probe=False).kind == "cpu"
        device = args.device or ("local-task" if on_cpu and args.timed_in is None else None)
        profiles = time_dispatches(dispatches, work, device, args.iree_flag, args.jobs, args.lock) if device else []
        if profiles:  # the times, for a later --reclassify --timed-in W with another checkout's spaces
            (work / TIMED).write_text(json.dumps({"device": device, "profiles": [asdict(p) for p in profiles]}))
        elif args.timed_in is not None:
            timed = json.loads((args.timed_in / TIMED).read_text())
            device, profiles = (
                f"{timed['device']} (earlier, {args.timed_in / TIMED})",
                [DispatchProfile(**p) for p in timed["profiles"]],
            )
    print(f"{model} for {target}" + (f", timed on {device}" if device else ", compile-only (not timed)"))
    print_report(dispatches, profiles)
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except UserError as err:
        print(f"model_tunable_share.py: {err}", file=sys.stderr)
        sys.exit(2)
