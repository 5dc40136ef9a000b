"""How the Ray executor shares queued benchmarks among its actors, and when a timing round counts as disturbed."""

from __future__ import annotations

import os

from mltune.execution.ray_cluster import call_share
from mltune.execution.timing_worker import DISTURBED_CORES, GPU_HOST_CORES, disturbed_cores


def test_an_actor_that_frees_first_takes_its_part_not_the_whole_queue():
    # four actors, three busy with one candidate each, 44 queued: the idle one takes a quarter of the 47
    assert call_share(queued=44, unanswered=3, actors=4) == 11
    assert call_share(queued=2, unanswered=1, actors=2) == 1, "the busy one, free a moment later, takes the other"
    assert call_share(queued=5, unanswered=0, actors=1) == 5, "one actor takes all"
    assert call_share(queued=1, unanswered=30, actors=4) == 1, "never more than is queued, never nothing"


def test_shares_spread_a_queue_over_every_actor():
    queued, unanswered, taken = 44, 3, []
    for _ in range(4):
        share = call_share(queued, unanswered, 4)
        taken.append(share)
        queued, unanswered = queued - share, unanswered + share
    assert queued == 0 and taken == [11, 11, 11, 11], "the queue goes to all four, none takes more than its part"


def test_a_gpu_round_is_disturbed_only_when_other_load_leaves_its_host_side_no_core():
    assert disturbed_cores("local-task") == DISTURBED_CORES
    assert disturbed_cores("cuda://0") == max(DISTURBED_CORES, len(os.sched_getaffinity(0)) - GPU_HOST_CORES)
