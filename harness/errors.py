"""The harness's errors. Every error a user can cause is a HarnessError subclass whose message
says what went wrong, where (file:line or key path), what was given and what is allowed.

The CLI maps each class to an exit code; nothing else in the package picks exit codes.
"""

import os
import warnings
from collections.abc import Sequence

__all__ = [
    "HarnessError",
    "ConfigError",
    "AccessError",
    "DataError",
    "EngineError",
    "ExpectationError",
    "StudyError",
    "OutputError",
    "ConfigProblem",
    "HarnessWarning",
    "read_error",
    "warn",
]


class HarnessError(Exception):
    """Base class: an error the user can act on (no traceback needed)."""

    exit_code = 2

    def __reduce__(self):
        # Picklable whatever the subclass's __init__ takes, so an error raised on a Dask worker
        # reaches the driver as itself (same class, message and exit code).
        return (_restore, (type(self), str(self), self.__dict__))


def _restore(cls, message: str, state: dict) -> HarnessError:
    e = cls.__new__(cls)
    Exception.__init__(e, message)
    e.__dict__.update(state)
    return e


class ConfigProblem:
    """One problem in a config: the key path (e.g. ``runs[1].jm.lambda``) and the message."""

    __slots__ = ("path", "message")

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def __repr__(self) -> str:
        return f"ConfigProblem({self.path!r}, {self.message!r})"


class ConfigError(HarnessError):
    """A config file is invalid. Carries every problem found, so they are reported at once."""

    def __init__(self, source: str, problems: Sequence[ConfigProblem]):
        self.source = source
        self.problems = list(problems)
        lines = [f"{source}: {len(self.problems)} problem(s) in the config:"]
        lines += [f"  - {p}" for p in self.problems]
        super().__init__("\n".join(lines))


class DataError(HarnessError):
    """An input file (collection, topics, qrels, run, judgments) is malformed.

    ``DataError("qrels.txt", "expected 4 fields, got 3", line=12)`` reads
    ``qrels.txt:12: expected 4 fields, got 3``.
    """

    def __init__(self, source: str | os.PathLike[str], message: str, line: int | None = None):
        self.source = str(source)
        self.line = line
        where = f"{self.source}:{line}" if line is not None else self.source
        super().__init__(f"{where}: {message}")


class AccessError(DataError):
    """A file or folder the harness must read is there, but this user may not read it: the
    environment (permissions, exit 3), as a folder the harness may not write; a DataError still
    for code that handles unreadable input."""

    exit_code = 3


def read_error(source: str | os.PathLike[str], message: str, error: OSError, line: int | None = None) -> DataError:
    """The error for ``error`` met while reading ``source``: AccessError when the permissions
    forbid it (exit 3), DataError otherwise (a missing file, a folder given as a file: exit 2)."""
    cls = AccessError if isinstance(error, PermissionError) else DataError
    return cls(source, message, line=line)


class EngineError(HarnessError):
    """The Java/Lucene engine failed (JVM not startable, Anserini raised, index unreadable)."""

    exit_code = 3


class OutputError(HarnessError):
    """Standard output cannot be written: closed (``>&-``) or not open for writing."""

    exit_code = 3


class ExpectationError(HarnessError):
    """The run finished but a value in the config's ``expect`` block did not match."""

    exit_code = 1


class StudyError(HarnessError):
    """A study ran, but some of its collections failed (each named with its error) while the
    others' reports were written. Its exit code is the first failed collection's: 2 for its data
    (a bad line met while indexing, a file gone since validation), 3 for the environment."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


class HarnessWarning(UserWarning):
    """Something a user should know before trusting a result, that does not stop the run (a
    header row skipped, qrels that share few doc ids with the collection...). The CLI prints
    each as ``harness: warning: ...``; experiments also list them in the report."""


def warn(message: str) -> None:
    """Emit a :class:`HarnessWarning` (a Python warning: the API's callers can filter or record it)."""
    warnings.warn(HarnessWarning(message), stacklevel=2)
