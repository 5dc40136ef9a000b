"""Where leave-one-out dropped configs, the end-to-end timing also measures the build with every config, and keeps it
when it ran faster than leave-one-out's choice (synthetic measurements: the rule, not a compiler)."""

from __future__ import annotations

from mltune.execution.measurement import Measurement
from mltune.whole_model.finish import CHECK_CHOICE, EVERY_CONFIG, RECOMMENDED, every_config_faster
from mltune.whole_model.verify import EndToEnd


def _measured(index: int, speedup: float) -> Measurement:
    """Synthetic: nine rounds of a build `speedup` times faster than the default's 100 us."""
    return Measurement(index, "ok", tuple(100.0 / speedup + 0.1 * (r % 3) for r in range(9)), (100.0,) * 9)


def test_every_config_is_kept_when_it_ran_faster_than_leave_one_outs_choice():
    timing = EndToEnd((RECOMMENDED, EVERY_CONFIG), (_measured(0, 1.05), _measured(1, 1.16)))
    assert every_config_faster(timing)
    swapped = timing.relabelled({RECOMMENDED: CHECK_CHOICE, EVERY_CONFIG: RECOMMENDED})
    assert round(swapped.estimate(RECOMMENDED).speedup, 2) == 1.16
    assert round(swapped.estimate(CHECK_CHOICE).speedup, 2) == 1.05


def test_leave_one_outs_choice_stays_when_every_config_was_slower_or_not_measured():
    assert not every_config_faster(EndToEnd((RECOMMENDED, EVERY_CONFIG), (_measured(0, 1.2), _measured(1, 1.1))))
    failed = Measurement(1, "run_error", detail="synthetic")
    assert not every_config_faster(EndToEnd((RECOMMENDED, EVERY_CONFIG), (_measured(0, 1.2), failed)))
    assert not every_config_faster(EndToEnd((RECOMMENDED,), (_measured(0, 1.2),)))
