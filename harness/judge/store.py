"""The qrels file the judging page writes: every judgment on disk before the page hears "saved".

* A new judgment is **appended** as one line, ``qid 0 docid label``, with a single ``write`` on
  a file opened ``O_APPEND`` and then ``fsync``-ed: what was in the file is never truncated or
  rewritten, and a crash leaves either the whole line or none of it.
* **Changing** a judgment rewrites the file with harness.files' atomic writer (a temporary
  sibling, fsync, rename), keeping the file's mode: every other line is kept byte for byte, only
  that pair's line gets the new label.
* **No lost or doubled line**: writes are serialized by a lock of the file inside the process
  (two browser tabs, or two stores of one file) and by harness.folders' lock of the file across
  processes (two servers on one file: ``.<name>.lock`` beside it while a judgment is written,
  removed after); under both the file is read again when it changed on disk, so a pair already
  judged elsewhere is changed in place, never appended twice.

The file's existing judgments are loaded and shown; a line that is not ``qid iter docid label``
with an integer label, or a pair given twice, is an error naming the file and line (trec_eval
refuses duplicate pairs too).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from harness.errors import AccessError, DataError
from harness.files import atomic_writer
from harness.folders import locked
from harness.formats.hygiene import check_id, numbered_lines

__all__ = ["QrelsStore", "LABELS"]

LABELS = (0, 1, 2, 3)  # the page's buttons and keys; other integers in a loaded file are kept


# One lock per qrels file in this process, shared by its stores: folders.locked is re-entrant
# within a process, so two stores of one file (threads of one server) need this one to take turns.
_FILE_LOCKS: dict[Path, threading.Lock] = {}
_FILE_LOCKS_GUARD = threading.Lock()


def _file_lock(path: Path) -> threading.Lock:
    with _FILE_LOCKS_GUARD:
        return _FILE_LOCKS.setdefault(path, threading.Lock())


class QrelsStore:
    """Judgments kept in one TREC qrels file (created on the first judgment if missing)."""

    def __init__(self, path):
        self.path = Path(path).absolute()
        if self.path.is_dir():
            raise DataError(self.path, "--qrels names a folder; give the qrels file to write")
        if not self.path.parent.is_dir():
            raise DataError(self.path, f"--qrels: the folder {self.path.parent} does not exist")
        try:  # judging writes beside the file (its lock; a temporary file for a changed label)
            with locked(self.path):
                pass
        except OSError as e:
            raise AccessError(
                self.path, f"--qrels: cannot write in its folder {self.path.parent} ({e.strerror or e})"
            ) from None
        self._lock = _file_lock(self.path)
        self._signature = None
        self._labels: dict[tuple[str, str], int] = {}
        self.generation = 0  # bumped on every change seen or made: orders the page's updates
        with self._lock:
            self._reload()

    # ----------------------------------------------------------------------------- reading
    def _stat(self):
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def _reload(self) -> None:
        """Read the file again when it changed on disk since the last read (caller holds the lock)."""
        sig = self._stat()
        if sig == self._signature:
            return
        labels: dict[tuple[str, str], int] = {}
        if sig is not None:
            lines: dict[tuple[str, str], int] = {}
            # the shared hygiene of every reader: regular files only, BOM skipped, UTF-8, lines
            # of at most 1 MiB, ids without whitespace or control characters
            for lineno, line in numbered_lines(self.path):
                fields = line.split()
                if not fields:
                    continue
                if len(fields) != 4:
                    raise DataError(
                        self.path, f"expected 4 fields 'qid iter docid label' (got {len(fields)})", line=lineno
                    )
                qid, _, doc, label = fields
                check_id(self.path, "topic id", qid, lineno)
                check_id(self.path, "doc id", doc, lineno)
                try:
                    value = int(label)
                except ValueError:
                    raise DataError(self.path, f"label {label!r} is not an integer", line=lineno) from None
                if (qid, doc) in lines:
                    raise DataError(
                        self.path,
                        f"topic {qid!r}, document {doc!r} is judged twice (lines {lines[qid, doc]} and {lineno})",
                        line=lineno,
                    )
                lines[qid, doc] = lineno
                labels[qid, doc] = value
        if labels != self._labels:
            self.generation += 1
        self._labels = labels
        self._signature = sig

    def judgments(self) -> dict[str, dict[str, int]]:
        """``{qid: {docid: label}}``, as the file holds them now."""
        return self.snapshot()[1]

    def snapshot(self) -> tuple[int, dict[str, dict[str, int]]]:
        """(generation, judgments) read together: of two snapshots, the higher generation is newer."""
        with self._lock:
            self._reload()
            out: dict[str, dict[str, int]] = {}
            for (qid, doc), label in self._labels.items():
                out.setdefault(qid, {})[doc] = label
            return self.generation, out

    def label(self, qid: str, doc: str) -> int | None:
        with self._lock:
            self._reload()
            return self._labels.get((qid, doc))

    # ----------------------------------------------------------------------------- writing
    def judge(self, qid: str, doc: str, label: int) -> str:
        """Record a judgment: ``"added"`` (a line appended), ``"changed"`` (the file rewritten
        with that line's new label) or ``"unchanged"`` (the file already says so)."""
        check_id(self.path, "topic id", qid)
        check_id(self.path, "doc id", doc)
        if isinstance(label, bool) or not isinstance(label, int):
            raise DataError(self.path, f"label must be an integer (got {label!r})")
        with self._lock, locked(self.path):
            self._signature = None  # under the file's lock, always read what is on disk now
            self._reload()
            old = self._labels.get((qid, doc))
            if old == label:
                return "unchanged"
            if old is None:
                self._append(f"{qid} 0 {doc} {label}\n")
                status = "added"
            else:
                self._rewrite(qid, doc, label)
                status = "changed"
            self._labels[qid, doc] = label
            self._signature = self._stat()
            self.generation += 1
            return status

    def _append(self, line: str) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            size = os.fstat(fd).st_size
            data = line.encode("utf-8", "surrogateescape")
            if size:
                with open(self.path, "rb") as f:  # a last line without its newline gets one first
                    f.seek(size - 1)
                    if f.read(1) != b"\n":
                        data = b"\n" + data
            os.write(fd, data)  # one write on an O_APPEND file: never interleaved with another
            os.fsync(fd)
        finally:
            os.close(fd)

    def _rewrite(self, qid: str, doc: str, label: int) -> None:
        raw = self.path.read_bytes()
        out = []
        for line in raw.splitlines(keepends=True):
            fields = line.decode("utf-8", "surrogateescape").split()
            if len(fields) == 4 and fields[0] == qid and fields[2] == doc:
                end = b"\n" if line.endswith(b"\n") else b""
                line = f"{fields[0]} {fields[1]} {fields[2]} {label}".encode("utf-8", "surrogateescape") + end
            out.append(line)
        mode = os.stat(self.path).st_mode & 0o7777
        with atomic_writer(self.path, "wb", encoding=None) as f:
            f.write(b"".join(out))
            os.fchmod(f.fileno(), mode)  # the user's file keeps its mode
