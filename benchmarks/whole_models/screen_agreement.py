"""Does a screen order a model's candidates as the model does? (`mltune.search.screen`, docs/whole-model-tuning.md)

For each exported model (`NAME.mlir` with its `NAME.flags`, as `examples/export/export_models.py` writes them),
the dispatches with the largest share of its time (mltune's profile) are taken in turn; for each, the heuristic
ranker's first `--candidates` candidates (what a screen sees first) are compiled three ways, with the same spec:
into the whole model (weights split out as `mltune tune` does), into the dispatch's dumped benchmark, and into the
problem's one-op model. Each set is timed against IREE's default build of its own module, interleaved in one process
(mltune's runner, `--rounds` rounds); the whole model twice, so that the model's own repeatability bounds what any
screen can reach. Printed per dispatch and screen: the Spearman rank correlation with the model's order, whether the
model's best candidate is among the screen's K best (K = 2, 4, 8), the model speedup of the best of the screen's K
best relative to the model's best ("kept": 1.00 is no loss), and each stage's compile seconds per candidate.

    cd examples/models/exported && flock -x /tmp/mltune-cpu.lock python ../../../benchmarks/whole_models/screen_agreement.py \\
        bert resnet50 gpt2 vit --candidates 16

On a GPU (`--target sm_90 --device cuda://0`) every module is built for that target and timed on that device; on
CUDA a candidate annotates its module's own op (the model's source, the dump, the one-op model), so only dispatches
whose op is in the model's source are studied, as `mltune tune` tunes only those.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from iree.compiler import ir
from scipy.stats import spearmanr

from mltune.emit.apply import make_applier
from mltune.execution.build import Builder
from mltune.execution.measurement import TimingPlan
from mltune.execution.runner import Runner
from mltune.frontend.mlir import new_context
from mltune.frontend.problem import Problem, Untunable
from mltune.input.call import model_call
from mltune.input.dispatches import read_dispatches
from mltune.input.tuning_input import TuningInput, prepare_input
from mltune.rankers import make_ranker
from mltune.rankers.base import RankingInput
from mltune.search.screen_module import dispatch_module, one_op_module
from mltune.targets import Target, parse_target
from mltune.tuning.prepare import configurators
from mltune.whole_model.input_form import in_input_form
from mltune.whole_model.profile import call_counts, profile_model
from mltune.whole_model.weights import without_weights

KS = (2, 4, 8)


@dataclass(frozen=True)
class Setting:
    """Where the study builds and times: the target, the device, compile jobs and the user's compile flags."""

    target: Target
    device: str
    jobs: int
    flags: tuple[str, ...]
    plan: TimingPlan


def _stage(
    name: str,
    tuning_input: TuningInput,
    problem: Problem,
    infos: list[tuple[int, str]],
    work: Path,
    setting: Setting,
    context: ir.Context,
    repeats: int = 1,
) -> tuple[list[dict[int, float]], float]:
    """Each candidate (index, compilation_info) applied to this stage's own module (a spec on CPU and ROCm, the
    source annotated on CUDA), its ratio to the stage's default build (per repeat), and compile seconds per
    candidate."""
    applier = make_applier(setting.target.kind, tuning_input.source, context)
    applied = [(index, applier.apply(problem, info)) for index, info in infos]
    builder = Builder(tuning_input, work / name, setting.jobs)
    default = builder.compile(-1, None, "baseline")
    if default.status != "ok":
        raise RuntimeError(f"{name}: the default build fails: {default.detail}")
    builds = builder.compile_many(applied, group=name)
    compile_s = statistics.median(b.seconds for b in builds)
    ok = [(b.index, b.vmfb) for b in builds if b.status == "ok"]
    runner = Runner(tuning_input.invocation, setting.device, work)
    ratios = [
        {m.index: m.ratio for m in runner.measure(default.vmfb, ok, setting.plan) if m.status == "ok"}
        for _ in range(repeats)
    ]
    return ratios, compile_s


def _compare(screen: dict[int, float], model: dict[int, float]) -> str:
    common = [i for i in model if i in screen]
    rho = spearmanr([screen[i] for i in common], [model[i] for i in common]).statistic
    best = min(common, key=lambda i: model[i])
    by_screen = sorted(common, key=lambda i: screen[i])
    cells = [f"{rho:+.2f}"]
    for k in KS:
        kept = min(model[i] for i in by_screen[:k])
        cells.append(f"{'yes' if best in by_screen[:k] else 'NO '} {model[best] / kept:.2f}")
    return " | ".join(cells)


def study(stem: Path, candidates: int, dispatches: int, only: str, setting: Setting, work: Path) -> None:
    context, target = new_context(), setting.target
    call = model_call((), (), None, None, None, stem.with_suffix(".flags"))
    flags = (*call.compile_flags, *setting.flags)
    prepared = prepare_input(stem.with_suffix(".mlir"), target, work, context, call.function, 0, flags, call.inputs)
    tuning_input = without_weights(in_input_form(prepared, target.kind, work), target.kind, work / "weights")
    found = read_dispatches(tuning_input, context)
    problems = [d for d in found if isinstance(d.problem, Problem)]
    tunable = {
        d.problem.key: (d, c)
        for d, c in configurators(problems, context, work / "spaces", source=tuning_input.source)
        if not isinstance(c, Untunable)
    }  # on CUDA: only ops of the source, which a candidate annotates
    named = [(d.name, d.bench, d.problem.op_name, d.problem) for d, _ in tunable.values()]
    profiles = profile_model(
        named,
        call_counts(tuning_input.source, tuning_input.compile_flags, work),
        (setting.device,),
        work / "profile",
        setting.jobs,
    )
    for profile in [p for p in profiles if p.timed and p.problem_key in tunable and only in p.problem_key][:dispatches]:
        dispatch, configurator = tunable[profile.problem_key]
        problem = dispatch.problem
        space = configurator.candidates()
        ranker = make_ranker("heuristic", 0, dispatch.facts)
        ranker.start(RankingInput(problem, dispatch.facts, space))
        order = ranker.ask(candidates)
        infos = [(i, configurator.compilation_info(space.knobs(i))) for i in order]
        started = time.perf_counter()
        folder = work / dispatch.name
        model, model_s = _stage("model", tuning_input, problem, infos, folder, setting, context, repeats=2)
        screens = {"model again": (model[1], model_s)}
        dump = dispatch_module(dispatch.bench, target, context, folder / "dump", flags)
        ratios, seconds = _stage("dispatch", dump.tuning_input, problem, infos, folder, setting, context)
        screens["dispatch"] = (ratios[0], seconds)
        one_op = one_op_module(problem, target, context, folder / "one_op", flags, 0)
        if one_op is not None:
            ratios, seconds = _stage("one-op", one_op.tuning_input, problem, infos, folder, setting, context)
            screens["one-op"] = (ratios[0], seconds)
        print(
            f"\n{stem.name} {dispatch.name} {problem.key} (share {100 * profile.share:.0f} %, "
            f"{len(model[0])} of {len(order)} candidates ran in the model; "
            f"best model speedup {1 / min(model[0].values()):.2f}x; {time.perf_counter() - started:.0f} s)",
            flush=True,
        )
        print("screen | compile s/candidate | spearman | " + " | ".join(f"best in top {k}, kept" for k in KS))
        for name, (ratios, seconds) in screens.items():
            print(f"{name} | {seconds:.2f} | {_compare(ratios, model[0])}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", help="NAME of NAME.mlir and NAME.flags in the current folder")
    parser.add_argument("--candidates", type=int, default=16)
    parser.add_argument("--dispatches", type=int, default=1, help="per model, the top dispatches by share")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="", help="only problems whose key holds this text (e.g. _s1x2x2x1)")
    parser.add_argument("--target", default="host", help="llvm-cpu host, or a GPU target such as sm_90")
    parser.add_argument("--device", default="local-task", help="the IREE device every build is timed on")
    parser.add_argument("--jobs", type=int, default=2, help="compiles at once")
    parser.add_argument("--iree-flag", action="append", default=[], metavar="FLAG", help="added to every compile")
    args = parser.parse_args()
    setting = Setting(
        parse_target(args.target), args.device, args.jobs, tuple(args.iree_flag), TimingPlan(rounds=args.rounds)
    )
    for name in args.models:
        with tempfile.TemporaryDirectory(prefix=f"screen_agreement_{name}_") as work:
            study(Path(name), args.candidates, args.dispatches, args.only, setting, Path(work))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
