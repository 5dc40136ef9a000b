"""What the terminal shows while a run works: one display per run, phases with their progress.

Code that does the work announces phases through `display()` (the run's display, set once by the
command line): `with display().phase("dump dispatches"):` for a step of unknown length, or a phase
with a total that is advanced as results land (`update(1)`, `set_postfix_str("best 1.12x")`, the
interface of a tqdm bar, so a loop that drew its own bar needs no other change). `say` prints a line,
`table` a block of lines such as the model's profile.

Three displays: on a terminal, tqdm bars on stderr and a closing line per phase with its duration;
off a terminal (a log file, CI), plain timestamped lines on stdout: the start and end of each phase
and its progress at most every `PLAIN_EVERY_S` seconds (every step with `-v`); with `--quiet`, only
warnings and the final report.
"""

from __future__ import annotations

import sys
import time
from typing import Protocol, Sequence, TextIO

from tqdm import tqdm

PLAIN_EVERY_S = 15.0  # off a terminal, a phase's progress is printed at most this often (unless verbose)


class Phase(Protocol):
    """One step of a run; the methods of a tqdm bar that the tuning loop uses."""

    def update(self, n: int = 1) -> None: ...

    def set_postfix_str(self, text: str) -> None: ...

    def close(self) -> None: ...

    def __enter__(self) -> Phase: ...

    def __exit__(self, *exc) -> None: ...


class Display(Protocol):
    def phase(self, title: str, total: int | None = None, initial: int = 0, unit: str = "") -> Phase: ...

    def say(self, text: str) -> None: ...

    def table(self, lines: Sequence[str]) -> None: ...


class _Closing:
    """Context-manager plumbing shared by the phases: leaving the `with` closes the phase."""

    def close(self) -> None: ...

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _SilentPhase(_Closing):
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass


class QuietDisplay:
    """`--quiet`: no progress, no lines; the final report alone."""

    def phase(self, title: str, total: int | None = None, initial: int = 0, unit: str = "") -> Phase:
        return _SilentPhase()

    def say(self, text: str) -> None:
        pass

    def table(self, lines: Sequence[str]) -> None:
        pass


def _elapsed(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 60 else f"{int(seconds // 60)} min {seconds % 60:02.0f} s"


class _PlainPhase(_Closing):
    def __init__(self, display: PlainDisplay, title: str, total: int | None, initial: int, unit: str):
        self.display, self.title, self.total, self.count, self.unit = display, title, total, initial, unit
        self.postfix = ""
        self.started = self.last_said = time.monotonic()
        self.closed = False
        self.display.say(f"{title} ..." if total is None else f"{title}: {initial}/{total} {unit}".rstrip())

    def _progress(self) -> str:
        counted = f"{self.count}/{self.total} {self.unit}".rstrip() if self.total is not None else ""
        return ", ".join(part for part in (counted, self.postfix) if part)

    def update(self, n: int = 1) -> None:
        self.count += n
        now = time.monotonic()
        if self.display.verbose or now - self.last_said >= PLAIN_EVERY_S:
            self.last_said = now
            self.display.say(f"{self.title}: {self._progress()}")

    def set_postfix_str(self, text: str) -> None:
        self.postfix = text

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            progress = self._progress()
            self.display.say(
                f"{self.title}: done in {_elapsed(time.monotonic() - self.started)}"
                f"{f' ({progress})' if progress else ''}"
            )


class PlainDisplay:
    """Off a terminal: one timestamped line per event, readable in a log file."""

    def __init__(self, stream: TextIO | None = None, verbose: bool = False):
        self.stream = stream
        self.verbose = verbose

    def phase(self, title: str, total: int | None = None, initial: int = 0, unit: str = "") -> Phase:
        return _PlainPhase(self, title, total, initial, unit)

    def say(self, text: str) -> None:
        stream = self.stream or sys.stdout
        print(f"{time.strftime('%H:%M:%S')} {text}", file=stream, flush=True)

    def table(self, lines: Sequence[str]) -> None:
        stream = self.stream or sys.stdout
        for line in lines:
            print(line, file=stream)
        stream.flush()


class _TerminalPhase(_Closing):
    """A tqdm bar (a counter with elapsed time when there is no total) and, when closed, one line saying how long
    the phase took, so that the finished phases stay on screen above the running one."""

    def __init__(self, title: str, total: int | None, initial: int, unit: str, verbose: bool):
        self.title, self.verbose, self.closed = title, verbose, False
        self.started = time.monotonic()
        bar_format = "{desc}: {elapsed}" if total is None else None
        self.bar = tqdm(
            total=total,
            initial=initial,
            desc=title,
            unit=unit or "it",
            dynamic_ncols=True,
            bar_format=bar_format,
            leave=False,
            file=sys.stderr,
        )

    def update(self, n: int = 1) -> None:
        self.bar.update(n)
        if self.verbose:
            tqdm.write(f"  {self.title}: {self.bar.n}/{self.bar.total} {self.bar.postfix or ''}", file=sys.stderr)

    def set_postfix_str(self, text: str) -> None:
        self.bar.set_postfix_str(text)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        counted = (
            f" ({self.bar.n}/{self.bar.total}{f', {self.bar.postfix}' if self.bar.postfix else ''})"
            if self.bar.total
            else ""
        )
        self.bar.close()
        tqdm.write(f"✓ {self.title}{counted} {_elapsed(time.monotonic() - self.started)}", file=sys.stderr)


class TerminalDisplay:
    """On a terminal: live bars on stderr; lines and tables written above them."""

    def __init__(self, verbose: bool = False):
        self.verbose = verbose

    def phase(self, title: str, total: int | None = None, initial: int = 0, unit: str = "") -> Phase:
        return _TerminalPhase(title, total, initial, unit, self.verbose)

    def say(self, text: str) -> None:
        tqdm.write(text, file=sys.stderr)

    def table(self, lines: Sequence[str]) -> None:
        for line in lines:
            tqdm.write(line, file=sys.stdout)
        sys.stdout.flush()


def make_display(quiet: bool = False, verbose: bool = False, stream: TextIO | None = None) -> Display:
    """The display for this process: quiet, live bars on a terminal, or plain lines off one."""
    if quiet:
        return QuietDisplay()
    out = stream or sys.stdout
    return TerminalDisplay(verbose) if out.isatty() else PlainDisplay(stream, verbose)


_current: list[Display] = [QuietDisplay()]


def display() -> Display:
    """The run's display (silent until the command line sets one: a library caller sees nothing)."""
    return _current[0]


def use_display(chosen: Display) -> None:
    _current[0] = chosen
