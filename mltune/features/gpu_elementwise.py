"""Features of GPU elementwise candidates (`mltune.spaces.gpu_elementwise`): such an op only moves memory, so what
counts is how its accesses coalesce, how wide each thread's access is, how many bytes each SM keeps in flight, and
how evenly the workgroups fill the GPU.

Threads are laid over a workgroup's tile with the last loop fastest (IREE's TileAndFuse distribution), so a warp's
lanes run along the last loop first: an operand whose last dimension walks that loop is read (or written) in runs of
`lanes x thread tile` elements, one that does not walk it at all is one broadcast element per warp, any other is
read in runs of its thread tile. A promoted output is stored from shared memory in whole rows (its run is its
workgroup tile's row).
"""

from __future__ import annotations

import numpy as np

from mltune.emit.operand_types import operand_loops
from mltune.features.base import FeatureMatrix
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.targets.gpu import GpuInfo

RESIDENT_THREADS = 2048  # threads one SM (H100) or CU (CDNA3: 32 waves of 64) keeps resident
RESIDENT_WORKGROUPS = 32  # workgroups one SM or CU keeps resident at most
TRANSACTION_BYTES = 128  # a cache line: a warp's accesses coalesce into such lines


def _runs(
    problem: Problem,
    operands: list[tuple[int, ...]],
    wg: list[np.ndarray],
    th: list[np.ndarray],
    promote: np.ndarray,
    sg_size: int,
) -> list[np.ndarray]:
    """Each operand's contiguous bytes per warp access (rank-0 operands left out), the output's last; `operands`:
    the loops each operand walks; `wg`, `th`: the candidates' workgroup and thread tiles per loop."""
    last = len(problem.bounds) - 1
    lanes_last = np.minimum(wg[last] // th[last], sg_size)
    runs = []
    for loops, element in zip(operands, problem.operand_types):
        if not loops:
            continue
        if last not in loops:  # the lanes along the last loop all read one element: a broadcast, one transaction
            runs.append(np.full(len(promote), TRANSACTION_BYTES))
            continue
        elements = lanes_last * th[last] if loops[-1] == last else th[loops[-1]]
        runs.append(elements * element_bytes(element))
    promoted_row = wg[operands[-1][-1]] * element_bytes(problem.out_type)
    runs[-1] = np.where(promote > 0, promoted_row, runs[-1])
    return runs


def gpu_elementwise_features(problem: Problem, gpu: GpuInfo, candidates: CandidateSet) -> FeatureMatrix:
    sg_size = gpu.subgroup_sizes[0]
    loops = range(len(problem.bounds))
    wg = [candidates.column(f"wg_{loop}") for loop in loops]
    th = [candidates.column(f"th_{loop}") for loop in loops]
    threads = np.prod([w // t for w, t in zip(wg, th)], axis=0)
    workgroups = np.prod([-(-size // w) for size, w in zip(problem.bounds, wg)], axis=0)
    resident = np.minimum(RESIDENT_WORKGROUPS, RESIDENT_THREADS // threads)
    waves = workgroups / (gpu.cores * resident)
    busy = np.minimum(resident, np.ceil(workgroups / gpu.cores))  # workgroups at once on the busiest core
    per_thread = np.prod(th, axis=0)
    moved = sum(element_bytes(element) for element in problem.operand_types)
    operands = operand_loops(problem)
    promote = candidates.column("promote")
    runs = _runs(problem, operands, wg, th, promote, sg_size)
    output_loop = operands[-1][-1]
    columns = {
        "log2_threads": np.log2(threads),
        "log2_workgroups": np.log2(workgroups),
        "waves": waves,
        "last_wave_idle": np.where(waves > 1, np.ceil(waves) - waves, 0.0) / np.maximum(np.ceil(waves), 1),
        "fills_gpu": (workgroups >= gpu.cores).astype(np.float64),
        "occupancy": busy * threads / RESIDENT_THREADS,
        "elements_per_thread": per_thread,
        "store_vector_bytes": th[output_loop] * element_bytes(problem.out_type),
        "in_flight_bytes_per_core": busy * threads * per_thread * moved,
        "min_run_bytes": np.minimum.reduce(runs),
        "output_run_bytes": runs[-1],
        "promote": promote,
    }
    total = int(np.prod(problem.bounds))
    problem_level = {
        "log2_elements": np.log2(total),
        "bytes_per_element": moved,
        "operands": len(problem.operand_types),
    }
    columns.update({name: np.full(len(candidates), value, dtype=np.float64) for name, value in problem_level.items()})
    return FeatureMatrix.from_columns({name: np.asarray(values, dtype=np.float64) for name, values in columns.items()})
