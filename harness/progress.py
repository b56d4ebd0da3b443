"""Progress bars on stderr, drawn only when stderr is a terminal (no new dependency).

When the stream is not a TTY (a pipe, a file, a test's captured output, CI logs) nothing is
drawn at all: no carriage returns, no escape codes, so captured output stays clean.
``HARNESS_PROGRESS=never`` turns bars off on a terminal too.

    >>> import io
    >>> with Progress(3, "searching", stream=io.StringIO()) as bar:   # not a TTY: silent
    ...     bar.update()
    >>> bar.done
    1
"""

from __future__ import annotations

import os
import sys
import threading
import time

__all__ = ["Progress", "Spinner", "enabled"]

_CLEAR = "\r\x1b[K"  # back to column 0, erase the line
_WIDTH = 28
_FRAMES = "|/-\\"


def enabled(stream) -> bool:
    """Bars are drawn only on a terminal, and never when HARNESS_PROGRESS=never."""
    if os.environ.get("HARNESS_PROGRESS", "auto") == "never":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class Progress:
    """A counting bar: ``label [#####.....] done/total elapsed``. Redraws at most 10 times a
    second; ``close()`` erases it, so later log lines start on a clean line."""

    def __init__(self, total: int, label: str, *, stream=None, unit: str = ""):
        self.stream = sys.stderr if stream is None else stream
        self.total = max(int(total), 0)
        self.label = label
        self.unit = unit
        self.done = 0
        self.active = enabled(self.stream)
        self._t0 = time.monotonic()
        self._last = 0.0
        self._draw(force=True)

    def update(self, n: int = 1, label: str | None = None) -> None:
        self.done += n
        if label is not None:
            self.label = label
        self._draw(force=self.done >= self.total)

    def write(self, line: str) -> None:
        """Print a log line above the bar (the bar is redrawn below it)."""
        if self.active:
            self.stream.write(_CLEAR)
        print(line, file=self.stream, flush=True)
        self._draw(force=True)

    def _draw(self, force: bool = False) -> None:
        if not self.active:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.1:
            return
        self._last = now
        frac = min(self.done / self.total, 1.0) if self.total else 1.0
        fill = int(frac * _WIDTH)
        unit = f" {self.unit}" if self.unit else ""
        self.stream.write(
            f"{_CLEAR}{self.label} [{'#' * fill}{'.' * (_WIDTH - fill)}] "
            f"{self.done}/{self.total}{unit} {now - self._t0:.1f}s"
        )
        self.stream.flush()

    def close(self) -> None:
        if self.active:
            self.stream.write(_CLEAR)
            self.stream.flush()
            self.active = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Spinner:
    """For work that reports no counts (Anserini's IndexCollection): ``label | 3.2s``, ticking
    from a daemon thread while the block runs. Silent when stderr is not a terminal."""

    def __init__(self, label: str, *, stream=None):
        self.stream = sys.stderr if stream is None else stream
        self.label = label
        self.active = enabled(self.stream)
        self._stop = threading.Event()
        self._thread = None

    def _run(self) -> None:
        t0 = time.monotonic()
        i = 0
        while not self._stop.wait(0.2):
            self.stream.write(f"{_CLEAR}{self.label} {_FRAMES[i % 4]} {time.monotonic() - t0:.1f}s")
            self.stream.flush()
            i += 1

    def __enter__(self) -> Spinner:
        if self.active:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self.stream.write(_CLEAR)
            self.stream.flush()
