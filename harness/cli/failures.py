"""Every failure is a clean exit: one ``harness: error:`` paragraph on stderr naming the file and
what to do, and an exit code. 2: bad input (a config, a data file, a path, a flag); 3: the
environment (full disk, permissions, read-only file system, memory, Java); 130/143: interrupted by
SIGINT (Ctrl-C) / SIGTERM. Tracebacks (Python's and Java's) only with ``--debug``.

Signals: SIGTERM and SIGHUP raise :class:`Terminated` (a KeyboardInterrupt) in the main thread, so
the same ``finally`` blocks that clean up after Ctrl-C run (temp folders removed, locks released,
previous outputs untouched). Started from the main thread, the JVM leaves SIGINT/SIGTERM/SIGHUP to
Python (``-Xrs``, so a signal while it starts is handled too); ``harness.engine.lucene`` also puts
Python's handlers back after it started, or Ctrl-C would be ignored from then on.
The long Java calls (index builds, batch searches) run on a worker thread
(:func:`harness.engine.lucene.interruptible`), so a signal acts at once; one that arrives during a
short Java call is handled when that call returns.
"""

from __future__ import annotations

import errno
import gzip
import os
import re
import signal
import sys
import threading
import zlib
from contextlib import contextmanager
from pathlib import Path

from harness.errors import HarnessError

__all__ = ["Terminated", "handle_signals", "report_failure", "strip_java_trace"]


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: cleaned up like Ctrl-C, exits 128 + the signal's number."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum, frame):
    raise Terminated(signum)


@contextmanager
def handle_signals():
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            previous[sig] = signal.signal(sig, _raise_terminated)
        except (OSError, ValueError):
            pass
    hook = sys.unraisablehook
    sys.unraisablehook = _lost_interrupts_delivered_again(hook)
    try:
        yield
    finally:
        sys.unraisablehook = hook
        for sig, handler in previous.items():
            try:
                signal.signal(sig, handler)
            except (OSError, ValueError, TypeError):
                pass


_AGAIN_AFTER = 0.05  # seconds: the callback that swallowed it has long returned


def _lost_interrupts_delivered_again(hook):
    """sys.unraisablehook while a command runs. A signal's handler runs in the main thread at its
    next step, which may be inside a weakref callback or a ``__del__`` (garbage collection, an
    import's module lock): Python cannot raise there, prints "Exception ignored in ..." and goes
    on, so the KeyboardInterrupt (or :class:`Terminated`) was lost and an interrupted `harness
    run` finished its index and report and exited 0 (seen once in tests/test_kills.py). Such an
    interrupt is sent again, as the same signal, from a timer thread a moment later: sent from
    here, its handler would run inside this hook, where Python cannot raise either. It then
    raises at the main thread's next step, outside the callback (should it land in one again, it
    comes back here), and the run is cleaned up and exits 130/143 as for any other. Every other
    unraisable exception goes to the hook there was."""

    def delivered_again(unraisable) -> None:
        e = unraisable.exc_value
        if isinstance(e, KeyboardInterrupt) and threading.current_thread() is threading.main_thread():
            signum = e.signum if isinstance(e, Terminated) else signal.SIGINT
            timer = threading.Timer(_AGAIN_AFTER, os.kill, (os.getpid(), signum))
            timer.daemon = True
            timer.start()
            return
        hook(unraisable)

    return delivered_again


# a frame as Java prints it ("at a.B.c(B.java:1)") or as pyjnius lists them (tab, no "at")
_JAVA_FRAME = re.compile(
    r"^\s*(at [\w$.<>/]+\(.*\)|\.\.\. \d+ more)\s*$|^\s+[\w$.<>/]+\((.*\.java:\d+|Unknown Source|Native Method)\)\s*$"
)


def strip_java_trace(text: str) -> str:
    """A message without the Java stack frames an exception's text may carry."""
    return "\n".join(line for line in str(text).splitlines() if not _JAVA_FRAME.match(line)).strip()


def _say(message: str) -> None:
    try:
        print(f"harness: error: {message}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _file_in_traceback(e: BaseException) -> str | None:
    """The file a failing reader had open, for exceptions that do not name one (gzip, zlib,
    UnicodeDecodeError): an open file object or a ``path``/``source`` local of the innermost frame."""
    tb = e.__traceback__
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        loc = frame.f_locals
        for name in ("self", "fh", "f", "fp", "file"):
            obj = loc.get(name)
            n = getattr(obj, "name", None)
            if isinstance(n, (str, bytes, os.PathLike)) and not isinstance(obj, type):
                return os.fsdecode(n)
        for name in ("path", "source", "filename"):
            v = loc.get(name)
            if isinstance(v, (str, Path)) and v:
                return str(v)
    return None


_ENVIRONMENT = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
    errno.EMFILE: "too many open files",
    errno.ENFILE: "too many open files in the system",
    errno.EIO: "input/output error (a failing disk or network file system?)",
    errno.ENOMEM: "out of memory",
    errno.EXDEV: "cannot rename across file systems (is the output or index folder itself a mount point?)",
    errno.EBUSY: "the folder is busy (is the output or index folder itself a mount point?)",
}
_BAD_PATH = {
    errno.ELOOP: "symlink loop (a link that points back to itself)",
    errno.ENOENT: "no such file or folder",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.EISDIR: "is a folder, expected a file",
    errno.ENAMETOOLONG: "file name too long",
    errno.ENXIO: "no such device",
}
_ADVICE = {
    errno.ENOSPC: "free some space, or write elsewhere (`output:`, `index.path:` or $HARNESS_INDEXES)",
    errno.EDQUOT: "free some space, or write elsewhere (`output:`, `index.path:` or $HARNESS_INDEXES)",
    errno.EACCES: "give this user access to it (chmod/chown), or write elsewhere",
    errno.EPERM: "give this user access to it, or write elsewhere",
    errno.EROFS: "write the output and index to a writable folder (`output:`, `index.path:`, $HARNESS_INDEXES)",
    errno.EMFILE: "raise the limit (`ulimit -n`) or use fewer threads",
    errno.ENFILE: "close other programs or raise the system's limit",
    errno.EXDEV: "mount the folder that holds it (e.g. reports/, indexes/) instead: the harness swaps it in place",
    errno.EBUSY: "mount the folder that holds it (e.g. reports/, indexes/) instead: the harness swaps it in place",
}


def _os_error(e: OSError) -> tuple[str, int]:
    where = " and ".join(str(f) for f in (e.filename, e.filename2) if f is not None) or _file_in_traceback(e)
    what = e.strerror or str(e)
    if e.errno in _ENVIRONMENT:
        msg = f"{_ENVIRONMENT[e.errno]}: {where}" if where else _ENVIRONMENT[e.errno]
        advice = _ADVICE.get(e.errno, "check the file system and try again")
        return f"{msg} ({what}); {advice}. Previous outputs and caches are intact.", 3
    if e.errno in _BAD_PATH:
        msg = f"{_BAD_PATH[e.errno]}: {where}" if where else _BAD_PATH[e.errno]
        return f"{msg}; check the path in the config or on the command line.", 2
    return f"{what}{': ' + where if where else ''}; check the file system and try again.", 3


def _is_java_exception(e: BaseException) -> bool:
    return any(c.__module__.startswith("jnius") and "Exception" in c.__name__ for c in type(e).__mro__)


def report_failure(e: BaseException) -> int:
    """Print one paragraph for ``e`` and return the exit code (see the module doc)."""
    if isinstance(e, KeyboardInterrupt):
        signum = e.signum if isinstance(e, Terminated) else signal.SIGINT
        name = signal.Signals(signum).name
        try:
            print(
                f"harness: interrupted ({name}); previous outputs, indexes and caches are as they were",
                file=sys.stderr,
                flush=True,
            )
        except (OSError, ValueError):
            pass
        return 128 + int(signum)
    if isinstance(e, HarnessError):
        _say(strip_java_trace(str(e)))
        return e.exit_code
    if isinstance(e, BrokenPipeError):  # `harness evaluate ... | head`: the reader left
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141
    if isinstance(e, (gzip.BadGzipFile, zlib.error, EOFError)) or type(e).__name__ == "LZMAError":
        where = _file_in_traceback(e)
        _say(
            f"{where or 'a compressed input'}: not a valid compressed file ({type(e).__name__}: {e}); "
            "it is truncated or corrupt: recompress or replace it."
        )
        return 2
    if isinstance(e, OSError):
        msg, code = _os_error(e)
        _say(msg)
        return code
    if isinstance(e, UnicodeDecodeError):
        where = _file_in_traceback(e)
        _say(f"{where or 'an input file'}: not valid UTF-8 ({e}); convert the file to UTF-8.")
        return 2
    if isinstance(e, RecursionError):
        where = _file_in_traceback(e)
        _say(
            f"{where + ': ' if where else ''}an input is nested too deeply to read (recursion limit); "
            "flatten it (e.g. a YAML config with hundreds of nested levels)."
        )
        return 2
    if isinstance(e, MemoryError):
        _say(
            "out of memory; an input is far larger than expected or a parameter (depth, samples, threads) "
            "asks for too much: check them, or run on a machine with more memory."
        )
        return 3
    if _is_java_exception(e):
        cls = getattr(e, "classname", None) or type(e).__name__
        inner = strip_java_trace(getattr(e, "innermessage", None) or str(e))
        advice = (
            "give Java more memory with HARNESS_JAVA_OPTS=-Xmx8g"
            if "OutOfMemoryError" in str(cls)
            else "run again with --debug for Java's stack trace"
        )
        _say(f"Java failed: {cls}: {inner}; {advice}.")
        return 3
    _say(
        f"internal error: {type(e).__name__}: {e}. This is a bug in the harness; run again with --debug "
        "and report the traceback. Previous outputs and caches are intact."
    )
    return 3
