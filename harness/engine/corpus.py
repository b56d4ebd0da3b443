"""A collection on disk as Anserini will read it: its format (harness.formats.catalog), its
files and their fingerprint.

The files are exactly those Anserini's collection class reads (its own rules, the format's
``suffixes``, ``skipped_names`` and ``skipped_folders``; a BEIR folder's one corpus file; an
ir_datasets id's files), so no file Anserini indexes escapes the fingerprint. What the folder
Anserini reads is made of is harness.engine.staging; the checks of the documents, before and after
Anserini reads them, harness.engine.contents.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import os
import stat
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harness.engine import beir
from harness.engine.vectors import is_parquet
from harness.errors import DataError, read_error
from harness.formats import irds
from harness.formats.catalog import COLLECTION_FORMATS, CollectionFormat, choices, collection_format
from harness.formats.hygiene import regular_file

__all__ = ["Corpus", "open_binary", "read_chunk"]

_FINGERPRINTS: dict[tuple, str] = {}  # Corpus.fingerprint's, by _stat_key
_SETTLED_NS = 2_000_000_000  # a file modified more recently is hashed every time


def _stat_key(corpus: Corpus, files: list[Path]) -> tuple | None:
    """What identifies the files' bytes without reading them, or None when that cannot be
    trusted (a file unreadable, or modified in the last 2 seconds)."""
    try:
        stats = [f.stat() for f in files]
    except OSError:
        return None
    if any(time.time_ns() - st.st_mtime_ns < _SETTLED_NS for st in stats):
        return None
    return (str(corpus.path), str(corpus.format)) + tuple(
        (str(f), st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev) for f, st in zip(files, stats, strict=True)
    )


@dataclass(frozen=True)
class Corpus:
    """A collection on disk, as Anserini will read it: its files and their fingerprint.

    ``format``: a format of harness.formats.catalog (its name is read as that format:
    ``Corpus(path, "jsonl")``). ``fields``: a beir corpus with its title as a field of its own
    (BeirMultifieldCollection)."""

    path: Path
    format: CollectionFormat
    fields: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.format, str):  # a format by its name: the Python API's and the tests' door
            fmt = collection_format(self.format)
            if fmt is None:
                raise DataError(
                    self.path,
                    f"unknown collection format {self.format!r}; valid: {', '.join(choices(COLLECTION_FORMATS))}",
                )
            object.__setattr__(self, "format", fmt)

    @property
    def dataset(self) -> tuple[str, tuple[str, ...]] | None:
        """An ir_datasets collection's id and the fields it is indexed with; None for files."""
        return self.format.dataset

    @property
    def anserini_class(self) -> str:
        """The Anserini collection class that reads it (IndexCollection -collection)."""
        fmt = self.format
        if fmt.anserini_parquet is not None and self.parquet:
            return fmt.anserini_parquet
        if fmt.anserini_fields is not None and self.fields:
            return fmt.anserini_fields
        return fmt.anserini

    @property
    def parquet(self) -> bool:
        """A vectors collection of Parquet files (one collection is all Parquet or all JSON)."""
        kinds = {is_parquet(f) for f in self.files()}
        if len(kinds) > 1:
            raise DataError(
                self.path, "holds both Parquet and JSON vector files; Anserini reads one kind per collection"
            )
        return kinds == {True}

    def files(self) -> list[Path]:
        """The files that make up the corpus, sorted by relative path: what Anserini reads,
        hidden files and folders included (its walk does not skip them, so neither may the
        fingerprint); a text folder, which we convert ourselves, skips hidden names.

        Nothing is opened here. Anserini walks the folder itself and opens what it finds, so a
        FIFO, socket or device anywhere inside (``mkfifo``, a link to ``/dev/zero``) would block
        or never end: each is an error naming it, as are symlink loops and unreadable entries.
        Linked folders are followed (each real folder once).

        An ir_datasets collection's files are those ir_datasets reads its documents from
        (harness.formats.irds.docs_files), which the fingerprint covers."""
        fmt = self.format
        if self.dataset is not None:
            return irds.docs_files(self.dataset[0])
        p = self.path
        mode = _mode(p, "collection path")
        if fmt.corpus_names and stat.S_ISDIR(mode):  # the folder's corpus file, nothing else
            p = beir.corpus_file(p)
            mode = _mode(p, "corpus file")
        if stat.S_ISREG(mode):
            return [p]
        if not stat.S_ISDIR(mode):
            regular_file(p, "collection file")  # raises: says what it is instead
        suffixes, skipped = fmt.suffixes, fmt.skipped_names
        files = []
        for f in _walk(p, skip_hidden=not fmt.hidden_read, skip_folders=fmt.skipped_folders):
            n = f.name
            if skipped and n.startswith(skipped):
                continue
            if suffixes is None or (n if fmt.exact_names else n.lower()).endswith(suffixes):
                files.append(f)
        files.sort(key=lambda f: f.relative_to(p).as_posix())
        if not files:
            want = "any file" if suffixes is None else " or ".join(suffixes)
            raise DataError(p, f"the {fmt} collection has no files ({want})")
        return files

    def fingerprint(self) -> str:
        """SHA-256 over the format and every file's relative path and bytes.

        Remembered for this process while no file's size, modification time, inode or device
        changes: `harness run` plans with the fingerprint (the default index folder is named by
        it) and the build records it, and a 770 MB vectors file takes 0.56 s to hash. As git
        does for its index, a file modified in the last 2 seconds is not trusted to its stat
        (the kernel's clock ticks coarser than the nanoseconds shown, so a quick rewrite of the
        same size can keep the time): such a corpus is hashed every time."""
        files = self.files()
        key = _stat_key(self, files)
        if key is not None and key in _FINGERPRINTS:
            return _FINGERPRINTS[key]
        h = hashlib.sha256(f"format={self.format}\n".encode())
        base = self.path if self.path.is_dir() else self.path.parent
        if self.dataset is not None:  # the id, fields, document class, ir_datasets' version
            h.update(irds.docs_signature(*self.dataset) + b"\0")
            base = irds.home()
        for f in files:
            h.update((f.relative_to(base) if f.is_relative_to(base) else f).as_posix().encode() + b"\0")
            try:
                fh = open(f, "rb")
            except OSError as e:
                raise read_error(f, f"cannot read: {e.strerror or e}", e) from None
            with fh:
                while chunk := read_chunk(f, fh, 1 << 20):
                    h.update(chunk)
            h.update(b"\0")
        digest = h.hexdigest()
        if key is not None and key == _stat_key(self, files):  # nothing changed while it was read
            _FINGERPRINTS[key] = digest
        return digest


def _mode(p: Path, what: str) -> int:
    try:
        return p.stat().st_mode
    except FileNotFoundError:
        if p.is_symlink():
            raise DataError(p, f"the {what} is a broken symbolic link (to {os.readlink(p)})") from None
        raise DataError(p, f"the {what} does not exist") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise DataError(p, f"the {what} is a symbolic link loop") from None
        raise read_error(p, f"cannot read the {what}: {e.strerror or e}", e) from None


def _walk(top: Path, skip_hidden: bool, skip_folders: frozenset[str] = frozenset()) -> Iterator[Path]:
    """Regular files under ``top``, following linked folders once each, not entering a folder
    whose name is in ``skip_folders``; any other kind of entry is a DataError naming it."""
    seen: set[tuple[int, int]] = set()
    stack = [top]
    while stack:
        folder = stack.pop()
        st = folder.stat()
        if (st.st_dev, st.st_ino) in seen:
            continue  # a link back to a folder already walked: Anserini would loop here
        seen.add((st.st_dev, st.st_ino))
        try:
            names = sorted(os.listdir(folder))
        except OSError as e:
            raise read_error(folder, f"cannot list the collection folder: {e.strerror or e}", e) from None
        for n in names:
            if skip_hidden and n.startswith("."):
                continue
            entry = folder / n
            mode = _mode(entry, "collection entry")
            if stat.S_ISDIR(mode):
                if not (skip_folders and n in skip_folders):
                    stack.append(entry)
            elif stat.S_ISREG(mode):
                yield entry
            else:
                regular_file(entry, "collection file")  # raises: a FIFO, socket or device


def open_binary(f: Path) -> io.BufferedIOBase:
    """``f`` opened for reading bytes, through gzip when its name ends in .gz; DataError when it cannot be."""
    try:
        return gzip.open(f, "rb") if f.name.endswith(".gz") else open(f, "rb")
    except OSError as e:
        raise read_error(f, f"cannot read: {e.strerror or e}", e) from None


def read_chunk(f: Path, fh: io.BufferedIOBase, size: int) -> bytes:
    """Up to ``size`` bytes of ``fh`` (-1: all); a corrupt or truncated .gz file, or a read error, is a DataError naming ``f``."""
    try:
        return fh.read(size)
    except (gzip.BadGzipFile, zlib.error, EOFError) as e:
        raise DataError(
            f,
            f"not a valid compressed file ({type(e).__name__}: {e}); it is truncated or corrupt: recompress or replace it",
        ) from None
    except OSError as e:
        raise read_error(f, f"cannot read: {e.strerror or e}", e) from None
