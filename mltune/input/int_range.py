"""`--int-range`: the integers generated arguments are drawn from, parsed without loading numpy (the command line
checks it before any work)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass


@dataclass(frozen=True)
class IntRange:
    """Integers drawn uniformly from `low` to `high - 1` (half-open, as Python's `range`)."""

    low: int
    high: int

    def __str__(self) -> str:
        return f"{self.low}:{self.high}"

    def describe(self) -> str:
        return f"[{self.low}, {self.high})"


DEFAULT_INT_RANGE = IntRange(0, 2)
KERNEL_INT_RANGE = IntRange(-4, 5)  # one-op models check a kernel, not a model: signed values test more


def int_range(text: str) -> IntRange:
    """An argparse type: `LOW:HIGH`, integers from LOW to HIGH - 1."""
    low, sep, high = text.partition(":")
    try:
        parsed = IntRange(int(low), int(high)) if sep else None
    except ValueError:
        parsed = None
    if parsed is None or parsed.high <= parsed.low:
        raise argparse.ArgumentTypeError(f"expected LOW:HIGH with LOW < HIGH, such as 0:2 or 0:30522, got {text!r}")
    return parsed
