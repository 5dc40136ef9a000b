"""One measurement at a time on a shared machine: an flock(1)-compatible lock held while measuring."""

from __future__ import annotations

import contextlib
import fcntl
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def held(lock: Path | None, shared: bool = False) -> Iterator[None]:
    """Hold the lock on `lock` (the file `flock FILE cmd` takes) for the block: exclusive to measure, `shared` for
    heavy work that must not overlap a measurement (compiling); None holds nothing."""
    if lock is None:
        yield
        return
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
