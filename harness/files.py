"""File helpers: atomic output, and JSON lines read with the file and line of the first bad one.
Every file is written to a temporary sibling, flushed to disk (fsync) and renamed into place, so
a crash, a kill or an error never leaves a half-written file where a complete one is expected.

A temporary file is named ``.<name>.<pid>.<random>.tmp`` and stays locked (flock) by its
writer until it has been renamed, so :func:`remove_stale_temp_files` can tell the leftovers of
a killed process (lock free) from a file another process is writing right now (lock held).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path

from harness.events import Cleaned, Emit, ignore

__all__ = [
    "atomic_writer",
    "write_text_atomic",
    "write_json_atomic",
    "fsync_dir",
    "remove_stale_temp_files",
    "disk_full",
    "FULL_BELOW",
]

# A file system with less room than this (for this user) is full: Lucene, Anserini and Arrow
# fail on a full disk in their own words (a missing segments file, a short write), so after a
# failure the harness looks at the room left to say what happened.
FULL_BELOW = 1 << 20

_TEMP_FILE = re.compile(r"^\..+\.\d+\.[^.]+\.tmp$")


_UMASK: int | None = None


def disk_full(path: Path) -> bool:
    """Whether the file system holding ``path`` (or its nearest existing parent) has less than
    :data:`FULL_BELOW` bytes left for this user."""
    p = Path(path)
    while not p.exists() and p != p.parent:
        p = p.parent
    try:
        st = os.statvfs(p)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < FULL_BELOW


def _umask() -> int:
    global _UMASK
    if _UMASK is None:
        _UMASK = os.umask(0o022)
        os.umask(_UMASK)
    return _UMASK


def fsync_dir(path: Path) -> None:
    """Make a rename inside ``path`` durable (POSIX: the directory entry is data of the folder)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems (and /proc-like ones) refuse fsync on folders
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_writer(path: Path, mode: str = "w", encoding: str | None = "utf-8", errors: str | None = None):
    with _atomic(path, mode, encoding, errors) as (fh, _):
        yield fh


@contextmanager
def atomic_file(path: Path):
    """:func:`atomic_writer` in binary mode for a writer that also opens the file by its name (a
    Java one): yields the open file and the temporary file's path. Whatever is in that file when
    the block ends (written through either) is made durable and renamed to ``path``."""
    with _atomic(path, "wb", None, None) as pair:
        yield pair


@contextmanager
def _atomic(path: Path, mode: str, encoding: str | None, errors: str | None):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # the name cut to 128 bytes: a legal name of up to 255 would make the temp name too long
    name = os.fsdecode(os.fsencode(path.name)[:128])
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    text = "b" not in mode
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; a written file gets the usual mode
        fcntl.flock(fd, fcntl.LOCK_EX)  # ours until renamed: not stale while we write it
        with os.fdopen(
            fd,
            mode,
            encoding=encoding if text else None,
            errors=errors if text else None,
            newline="\n" if text else None,
        ) as fh:
            yield fh, Path(tmp)
            fh.flush()
            os.fsync(fh.fileno())
            os.replace(tmp, path)  # while still locked: a sweeper never removes a finished file
        fsync_dir(path.parent)
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


def remove_stale_temp_files(folder: Path, on: Emit = ignore) -> list[Path]:
    """Remove the ``.tmp`` files :func:`atomic_writer` left in ``folder`` when its process was
    killed. A file whose lock another process holds is being written and is left alone."""
    removed: list[Path] = []
    try:
        names = [n for n in os.listdir(folder) if _TEMP_FILE.match(n)]
    except OSError:
        return removed
    for name in names:
        p = Path(folder) / name
        try:
            fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue  # renamed meanwhile, a folder, or a symlink: not ours to judge
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a live writer holds it
            st = os.fstat(fd)
            try:
                same = os.stat(p, follow_symlinks=False)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) == (same.st_dev, same.st_ino):
                os.unlink(p)
                removed.append(p)
        finally:
            os.close(fd)
    if removed:
        on(Cleaned(f"note: removed {len(removed)} temporary file(s) left in {folder} by an interrupted run"))
    return removed
