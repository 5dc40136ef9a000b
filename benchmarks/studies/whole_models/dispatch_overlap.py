"""Whether dispatches of one model call ran at the same time on the device: from `iree-profile`'s host dispatch
events of HAL profiling captures (`mltune.whole_model.in_model`), the share of all dispatches' time that overlapped
another dispatch, and the dispatches most overlapped.

    python benchmarks/studies/whole_models/dispatch_overlap.py CAPTURE.ireeprof [CAPTURE.ireeprof ...]

A dispatch's in-model time is its span, from its first workgroup's start to its last one's end; where another
dispatch ran within that span, the span holds time the two shared."""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from mltune.whole_model.in_model import read_capture


def events(capture: Path) -> list[tuple[int, int, str]]:
    rows = [json.loads(line) for line in read_capture(capture).splitlines() if line.startswith("{")]
    return sorted(
        (row["start_host_time_ns"], row["end_host_time_ns"], row["key"])
        for row in rows
        if row.get("type") == "host_dispatch_event" and row.get("valid", True)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("captures", type=Path, nargs="+")
    for capture in parser.parse_args().captures:
        spans = events(capture)
        total = sum(end - start for start, end, _ in spans)
        shared: dict[str, int] = defaultdict(int)
        for i, (start, end, key) in enumerate(spans):
            for other_start, other_end, _ in spans[max(0, i - 64) : i + 64]:
                if (other_start, other_end) != (start, end):
                    shared[key] += max(0, min(end, other_end) - max(start, other_start))
        overlapped = sum(shared.values())
        print(
            f"{capture}: {len(spans)} dispatch events, {100 * overlapped / total:.1f} % of their time shared "
            "with another dispatch"
        )
        for key, ns in sorted(shared.items(), key=lambda item: -item[1])[:5]:
            if ns:
                print(f"  {key}: {ns / 1e3:.0f} us shared")


if __name__ == "__main__":
    main()
