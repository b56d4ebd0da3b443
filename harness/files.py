"""File helpers. Output is atomic: every file is written to a temporary sibling and renamed
into place, so a crash or an error never leaves a half-written file where a complete one is
expected. Input: JSON lines parsed with the file and line of the first bad one."""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from harness.errors import DataError

__all__ = ["atomic_writer", "write_text_atomic", "write_json_atomic", "json_lines"]


@contextmanager
def atomic_writer(path: Path, mode: str = "w", encoding: str | None = "utf-8", errors: str | None = None):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    text = "b" not in mode
    try:
        with os.fdopen(
            fd,
            mode,
            encoding=encoding if text else None,
            errors=errors if text else None,
            newline="\n" if text else None,
        ) as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_text_atomic(path: Path, text: str) -> None:
    with atomic_writer(path) as fh:
        fh.write(text)


def write_json_atomic(path: Path, obj) -> None:
    write_text_atomic(path, json.dumps(obj, indent=2, sort_keys=False, ensure_ascii=False) + "\n")


def json_lines(source, numbered_lines):
    """(line number, parsed value) of each non-blank line; DataError(source, line) when one is
    not JSON. ``numbered_lines`` yields (line number, text), e.g. ``enumerate(fh, start=1)``."""
    for lineno, line in numbered_lines:
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except ValueError as e:
            raise DataError(source, f"invalid JSON: {e}", line=lineno) from None
