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

from harness.events import CollectionStart, IndexBuild, IndexReady, RunReady, RunsPlanned, ShardsBuild, rate_text
from harness.events import Progress as Phase

__all__ = ["Progress", "Spinner", "EventRenderer", "enabled"]

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

    def show(self, label: str) -> None:
        """Redraw with another label (a phase's rate and time left; they come twice a second)."""
        self.label = label
        self._draw(force=True)

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
        self._thread: threading.Thread | None = None

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


class EventRenderer:
    """The command line's view of an experiment's events (harness.events): a spinner while the
    index is built (a bar of its documents, their rate and the time left once Anserini reports
    them), then one bar over the runs whose total is RunsPlanned's (configured runs plus
    cross-validated ones), its label the running search's topics, their rate and the time left;
    every event with text is written above the bar, as a plain line on stderr when it is not a
    terminal (Progress events have none: logs stay quiet). Use as a context manager; the instance
    is the Emit."""

    def __init__(self, stream=None):
        self.stream = sys.stderr if stream is None else stream
        self.total = 0
        self.spinner: Spinner | None = None
        self.bar: Progress | None = None
        self.indexing: Progress | None = None  # the build's documents

    def __enter__(self) -> EventRenderer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _line(self, text: str) -> None:
        if not text:
            return
        if self.bar is not None:
            self.bar.write(text)
        else:
            print(text, file=self.stream, flush=True)

    def __call__(self, event) -> None:
        match event:
            case RunsPlanned(total=total):
                self.total = total
            case Phase(phase="indexing") if enabled(self.stream):
                self._stop_spinner()
                if self.indexing is None:
                    self.indexing = Progress(event.total or 0, "indexing", stream=self.stream, unit="documents")
                self.indexing.done = event.done
                self.indexing.show(f"indexing ({rate_text(event.done, event.total, event.seconds, 'documents')})")
            case Phase() if self.bar is not None:
                self.bar.show(f"{event.phase}: {rate_text(event.done, event.total, event.seconds, event.unit)}")
            case Phase():
                pass  # no terminal, or nothing drawn yet: nothing to say
            case IndexBuild():
                self._line(str(event))
                self._stop_spinner()
                self.spinner = Spinner("indexing", stream=self.stream).__enter__()
            case IndexReady():
                self._stop_spinner()
                self._stop_indexing()
                self._line(str(event))
                if self.bar is None:
                    self.bar = Progress(self.total, "searching", stream=self.stream, unit="runs")
            case RunReady() if self.bar is not None:
                self.bar.update(label="searching")
                self.bar.write(str(event))  # redraws the bar, with the new count, below the line
            case CollectionStart():  # a study's next collection: its own runs, its own bar
                self.close()
                self._line(str(event))
            case ShardsBuild() if self.spinner is not None:
                # still indexing: the line goes above the spinner, which goes on
                self._stop_spinner()
                self._line(str(event))
                self.spinner = Spinner("indexing", stream=self.stream).__enter__()
            case _:
                self._stop_spinner()
                self._stop_indexing()
                self._line(str(event))

    def _stop_indexing(self) -> None:
        if self.indexing is not None:
            self.indexing.close()
            self.indexing = None

    def _stop_spinner(self) -> None:
        if self.spinner is not None:
            self.spinner.__exit__(None, None, None)
            self.spinner = None

    def close(self) -> None:
        self._stop_spinner()
        self._stop_indexing()
        if self.bar is not None:
            self.bar.close()
            self.bar = None
