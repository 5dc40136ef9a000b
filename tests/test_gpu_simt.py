"""GPU contractions no MMA intrinsic fits (f32 on sm_90), compile only: they get the SIMT TileAndFuse space, IREE's own
default is one of its points, sampled candidates applied by spec and by annotation compile for sm_90 with exactly
their config, and the features and heuristic work on them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from gpu_dump_helpers import dump_gpu_model, simt_config
from iree_helpers import applied_compile_args, batch_matmul_source, checked_heuristic_order, run

from mltune.emit.apply import make_applier
from mltune.features import extractor_for, model_kind
from mltune.features.gpu_simt import gpu_simt_features, simt_estimate, simt_gemm
from mltune.frontend.problem import Problem
from mltune.input.tuning_input import DUMP_PHASE_FLAG, prepare_input
from mltune.rankers.base import RankingInput
from mltune.rankers.simt_heuristic import REGISTER_HEADROOM, REGISTER_LIMIT, simt_heuristic_order
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.configure import make_configurator
from mltune.spaces.gpu_simt_contraction import GpuSimtContraction
from mltune.spaces.simt import PIPELINE

# BERT's MLP down projection as IREE dispatches it (a unit-batch batch matmul), 128 x 3072 -> 768 in f32
SOURCE = batch_matmul_source(1, 128, 3072, 768, "f32", "f32")


@pytest.fixture(scope="module")
def dumped(tmp_path_factory, context):
    target, prepared, bench, stripped, problem, gpu = dump_gpu_model(
        SOURCE, "sm_90", tmp_path_factory.mktemp("simt"), context
    )
    return {"target": target, "source": prepared, "bench": bench, "stripped": stripped, "problem": problem, "gpu": gpu}


@pytest.fixture(scope="module")
def configurator(dumped, context, tmp_path_factory) -> GpuSimtContraction:
    found = make_configurator(
        dumped["problem"], dumped["gpu"], context, dumped["stripped"], tmp_path_factory.mktemp("simt_space")
    )
    assert isinstance(found, GpuSimtContraction), found
    return found


def _knobs(problem: Problem, lists: dict[str, list[int]]) -> dict[str, int]:
    (m,), (n,), (k,) = problem.m, problem.n, problem.k
    return {
        "wg_m": lists["workgroup"][m],
        "wg_n": lists["workgroup"][n],
        "th_m": lists["thread"][m],
        "th_n": lists["thread"][n],
        "red_k": lists["reduction"][k],
        "promote": int("promote_operands" in lists),
    }


def test_f32_on_sm_90_gets_the_simt_space_with_iree_default(dumped, configurator):
    """IREE's default (no shared memory, one thread per 1 x 16 block, 256 threads) is a point of the space."""
    lists, threads = simt_config(dumped["bench"].read_text())
    default = _knobs(dumped["problem"], lists)
    assert configurator.space.admits(default), default
    assert configurator.workgroup_size(default) == threads
    assert configurator.pipeline_of(default) == PIPELINE


def test_picks_near_the_default_leave_gpu_spaces_alone(dumped, configurator):
    """`--near-default` places CPU tilings only: a GPU space is searched in its ranker's order alone."""
    from mltune.spaces.tile_coordinates import tile_coordinates

    assert tile_coordinates(configurator, configurator.candidates(), dumped["bench"].read_text()) is None


def test_space_holds_the_limits_and_z3_agrees(configurator):
    candidates = configurator.candidates()
    c = candidates.column
    threads = (c("wg_m") // c("th_m")) * (c("wg_n") // c("th_n"))
    shared = 4 * (c("wg_m") + c("wg_n")) * c("red_k") * c("promote")
    assert len(candidates) > 1000 and threads.max() <= 1024 and (threads % 32 == 0).all()
    assert shared.max() <= 48 * 1024 and (3072 % c("red_k") == 0).all() and c("promote").min() == 0
    for i in np.random.default_rng(0).choice(len(candidates), 5, replace=False):
        assert configurator.space.contains(candidates.knobs(int(i)))


@pytest.mark.e2e
def test_candidates_compile_with_their_config(dumped, configurator, context, tmp_path):
    """Three sampled candidates (two promoted), applied as mltune applies configs on CUDA (annotating the source),
    compile for sm_90 and the compiler configured the dispatch with exactly their lists and workgroup size."""
    candidates = configurator.candidates()
    promoted = np.flatnonzero(candidates.column("promote"))
    rng = np.random.default_rng(2)
    picks = [*map(int, rng.choice(promoted, 2, replace=False)), int(rng.integers(len(candidates)))]
    applier = make_applier(dumped["target"].kind, dumped["source"], context)
    for i, index in enumerate(picks):
        knobs = candidates.knobs(index)
        out = tmp_path / f"candidate_{i}"
        out.mkdir()
        applied = applier.apply(dumped["problem"], configurator.compilation_info(knobs))
        result = run(applied_compile_args(applied, dumped["source"], out, dumped["target"].compile_flags()))
        assert result.returncode == 0, result.stderr[-2000:]
        lists, threads = simt_config("".join(p.read_text() for p in (out / "configs").glob("*.mlir")))
        assert _knobs(dumped["problem"], lists) == knobs and threads == configurator.workgroup_size(knobs)


def test_a_candidate_lands_on_the_dumped_dispatch_compiled_from_its_phase(dumped, configurator, context, tmp_path):
    """The dumped unit-batch contraction with a candidate annotated, compiled as mltune builds a dump (from the flow
    phase: `prepare_input`'s flags): IREE configures it with the candidate. Compiled from the start, global
    optimization folds the unit batch into a new op and the candidate is dropped: IREE's own config comes back."""
    tuning_input = prepare_input(dumped["bench"], dumped["target"], tmp_path, context)
    assert tuning_input.invocation.dispatch_level and DUMP_PHASE_FLAG in tuning_input.compile_flags
    knobs = configurator.candidates().knobs(0)
    default_lists, _ = simt_config(dumped["bench"].read_text())
    assert _knobs(dumped["problem"], default_lists) != knobs
    applied = make_applier(dumped["target"].kind, tuning_input.source, context).apply(
        dumped["problem"], configurator.compilation_info(knobs)
    )
    for flags, landed in ((tuning_input.compile_flags, True), ((), False)):
        out = tmp_path / f"from_phase_{landed}"
        out.mkdir()
        result = run(applied_compile_args(applied, tuning_input.source, out, flags))
        assert result.returncode == 0, result.stderr[-2000:]
        lists, _ = simt_config("".join(p.read_text() for p in (out / "configs").glob("*.mlir")))
        assert (len(lists["workgroup"]) == 4 and _knobs(dumped["problem"], lists) == knobs) is landed, lists


def test_features_and_heuristic_order(dumped, configurator):
    problem, gpu = dumped["problem"], dumped["gpu"]
    candidates = configurator.candidates()
    assert extractor_for(problem, gpu, [PIPELINE]) is not gpu_simt_features  # one extractor for both kinds of tiling
    features, order = checked_heuristic_order(extractor_for(problem, gpu), problem, gpu, candidates)
    assert features.names == gpu_simt_features(problem, gpu, candidates).names
    estimate = simt_estimate(problem, gpu, candidates)
    # spilling candidates last; before the estimate, registers within the headroom (the tiles divide M and N)
    spills = estimate.registers[order] > REGISTER_LIMIT
    tight = estimate.registers[order] > REGISTER_HEADROOM * REGISTER_LIMIT
    assert (np.diff(spills.astype(int)) >= 0).all() and (np.diff(tight[~spills].astype(int)) >= 0).all()
    first = order[0]
    # enough workgroups for most of the 132 SMs, and warps in flight on each of an SM's 4 sub-partitions
    assert features.values[first, features.names.index("busy_sms")] >= 0.5
    warps = simt_gemm(problem, candidates).threads[first] // gpu.subgroup_sizes[0]
    in_flight = (
        min(estimate.resident[first], -(-features.values[first, features.names.index("workgroups")] // gpu.cores))
        * warps
    )
    assert in_flight >= gpu.simds_per_cu


def _candidates(rows: list[tuple[int, ...]]) -> CandidateSet:
    return CandidateSet(("wg_m", "wg_n", "th_m", "th_n", "red_k", "promote"), np.array(rows))


def test_estimate_prices_idle_sub_partitions(dumped):
    """A warp issues on one SMSP: 96 one-warp workgroups (one per SM) leave 3 of 4 sub-partitions idle, 384 (three
    per SM) fill three. On the H100 this shape ran them at 0.234 and 0.106 of IREE's default
    (`benchmarks/results/sm_90/simt_f32/`); the estimate without sub-partitions put them within 8 %."""
    candidates = _candidates([(32, 32, 4, 8, 64, 1), (8, 32, 4, 2, 64, 1)])
    cycles = simt_estimate(dumped["problem"], dumped["gpu"], candidates).cycles
    assert cycles[0] > 1.5 * cycles[1]


@pytest.mark.parametrize("partial", ["m", "n"])
def test_heuristic_on_partial_tiles_leads_with_unstaged_operands(dumped, context, partial):
    """Synthetic sizes (the dumped problem with M = 197 or N = 769, primes: every tile but 1 is partial): staged
    candidates on partial tiles come last, and on a partial N the narrower thread blocks first."""
    problem = dumped["problem"]
    bounds = list(problem.bounds)
    bounds[(problem.m if partial == "m" else problem.n)[0]] = 197 if partial == "m" else 769
    problem = dataclasses.replace(problem, bounds=tuple(bounds))
    candidates = GpuSimtContraction(problem, dumped["gpu"], context).candidates()
    order = simt_heuristic_order(RankingInput(problem, dumped["gpu"], candidates), seed=0)
    c = candidates.column
    partial_tile = (197 % c("wg_m") > 0) if partial == "m" else (769 % c("wg_n") > 0)
    fits = simt_estimate(problem, dumped["gpu"], candidates).registers[order] <= REGISTER_LIMIT  # spills go last
    staged = (partial_tile & (c("promote") > 0))[order][fits]
    assert staged.any() and (np.diff(staged.astype(int)) >= 0).all()
    if partial == "n":
        widths = np.where(partial_tile, c("th_n"), 1)[order][fits][~staged]
        assert (np.diff(widths) >= 0).all() and widths[0] == 1 and widths[-1] > 1


def test_the_shipped_forest_ranks_simt_candidates_with_its_simt_model(dumped, configurator, capsys):
    """SIMT candidates have features of their own: the sm_90 forest ranks them with its `simt_gemm` model
    (learned from real models' f32 contractions and convolutions), never with the `contraction` model of MMA
    tilings, and an f16 problem of the same kind (MMA candidates) keeps the op kind's name."""
    from mltune.rankers import make_ranker

    problem, gpu = dumped["problem"], dumped["gpu"]
    candidates = configurator.candidates()
    assert model_kind(problem, gpu, candidates) == "simt_gemm"
    mma = CandidateSet(("wg_m", "wg_n", "mma"), np.array([[64, 64, 0]]))
    assert model_kind(problem, gpu, mma) == "contraction"
    ranker = make_ranker("random-forest")
    ranker.start(RankingInput(problem, gpu, candidates))
    order = ranker.ask(20)
    said = capsys.readouterr().err
    assert "simt_gemm on sm_90 ranked by" in said and "another kind" not in said, said
    assert len(set(order)) == 20
