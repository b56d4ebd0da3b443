"""A corpus in shards, each indexed on its own (by a Dask worker), then merged into one index.

:func:`split_corpus` (the driver, no Java) cuts the corpus into shards of about equal bytes:
JSON-lines files (and a text folder or an ir_datasets collection, staged as one JSON-lines file) are cut at line boundaries,
so one big file still makes many shards; TREC files, gzipped files and JSON arrays are kept whole
(a shard is then a set of whole files); an HTML collection, whose document ids come from file
names, is indexed in one piece. :func:`build_shard` (a worker) writes its shard's bytes into a
folder of its own and runs Anserini's IndexCollection on it; :func:`merge_indexes` (a worker)
adds the shard indexes to a new one with Lucene's ``IndexWriter.addIndexes``, which copies the
segments as they are.

Why the merged index scores exactly like a single build: every collection statistic Lucene's
similarities read (document count, sum of term frequencies, document and term frequencies) is a
sum over segments, and each document's length norm is computed when it is indexed, the same in
any shard. Only the Lucene docid order differs, and ranking ties are broken by external id
(``BatchSearcher``), never by docid, so runs are byte-identical.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from harness.engine import lucene
from harness.engine.corpus import Corpus
from harness.engine.indexer import run_index_collection
from harness.engine.staging import stage, staged_files
from harness.errors import EngineError

__all__ = ["Piece", "Shard", "split_corpus", "build_shard", "merge_indexes"]


@dataclass(frozen=True)
class Piece:
    """Bytes [start, end) of a file; end None: the whole file."""

    path: str
    start: int = 0
    end: int | None = None


@dataclass(frozen=True)
class Shard:
    """A part of the corpus: its pieces, or (``folder``) a folder IndexCollection reads as it is."""

    number: int
    pieces: tuple[Piece, ...] = ()
    folder: str | None = None


def _splittable(corpus: Corpus, f: Path) -> bool:
    """A JSON-lines file read as plain text (not gzipped, not one JSON array), of a format whose
    lines may be cut apart (harness.formats.catalog: ``line_shards``)."""
    if not corpus.format.line_shards or f.name.endswith(".gz"):
        return False
    with open(f, "rb") as fh:
        head = fh.read(4096).lstrip()
    return not head.startswith(b"[")


def _line_start(f: Path, offset: int, size: int) -> int:
    """The first line start at or after `offset` (size when none)."""
    if offset <= 0:
        return 0
    with open(f, "rb") as fh:
        fh.seek(offset - 1)
        while chunk := fh.read(1 << 16):
            i = chunk.find(b"\n")
            if i >= 0:
                return min(fh.tell() - len(chunk) + i + 1, size)
    return size


def split_corpus(corpus: Corpus, n: int, staging: Path) -> list[Shard]:
    """At most `n` shards of about equal bytes, in corpus order (a text folder is first staged
    under `staging`, as for a single build). Fewer when the corpus cannot be cut finer."""
    converted = staged_files(corpus, staging)  # a text folder, passages, ir_datasets: their JSON lines
    if converted is not None:
        files = converted
    elif corpus.format.ids_from_paths or n <= 1:  # HTML: ids from the files' paths, so one piece
        return [Shard(0, folder=str(stage(corpus, staging)))]
    else:
        files = corpus.files()
    if n <= 1:
        return [Shard(0, folder=str(files[0].parent))]
    sizes = [f.stat().st_size for f in files]
    total = sum(sizes)
    starts = [0]
    for s in sizes:
        starts.append(starts[-1] + s)
    cuts = {(0, 0), (len(files), 0)}
    for k in range(1, n):
        target = k * total // n
        i = max(j for j in range(len(files)) if starts[j] <= target)
        if i >= len(files):
            continue
        off = target - starts[i]
        if _splittable(corpus, files[i]):
            off = _line_start(files[i], off, sizes[i])
        else:
            off = 0 if off < sizes[i] / 2 else sizes[i]
        cuts.add((i + 1, 0) if off >= sizes[i] else (i, off))
    ordered = sorted(cuts)
    shards: list[Shard] = []
    for (fa, oa), (fb, ob) in zip(ordered, ordered[1:]):
        pieces: list[Piece] = []
        for i in range(fa, min(fb, len(files) - 1) + 1):
            start = oa if i == fa else 0
            end = ob if i == fb else sizes[i]
            if end > start:
                whole = start == 0 and end == sizes[i]
                pieces.append(Piece(str(files[i]), start, None if whole else end))
        if pieces:
            shards.append(Shard(len(shards), tuple(pieces)))
    return shards


def _materialise(shard: Shard, folder: Path) -> Path:
    """The folder IndexCollection reads for `shard`: pieces are written (byte ranges) or linked
    (whole files) into `folder`, each name prefixed with its position so none collide."""
    if shard.folder is not None:
        return Path(shard.folder)
    folder.mkdir(parents=True, exist_ok=True)
    for j, p in enumerate(shard.pieces):
        src = Path(p.path)
        dst = folder / f"{j:05d}-{src.name}"
        if p.end is None:
            try:
                os.link(src, dst)
            except OSError:
                shutil.copyfile(src, dst)
            continue
        with open(src, "rb") as fin, open(dst, "wb") as fout:
            fin.seek(p.start)
            left = p.end - p.start
            while left > 0:
                chunk = fin.read(min(left, 1 << 22))
                if not chunk:
                    break
                fout.write(chunk)
                left -= len(chunk)
    return folder


def build_shard(collection_class: str, shard: Shard, work: Path, options, threads: int = 1) -> dict:
    """Index one shard into ``work/index`` (its input written to ``work/staged``); Anserini's
    counters. Runs on a worker; `work` must be on the file system the driver and merge see."""
    source = _materialise(shard, work / "staged")
    try:
        return run_index_collection(collection_class, source, work / "index", options, threads)
    finally:
        if shard.folder is None:
            shutil.rmtree(work / "staged", ignore_errors=True)


def merge_indexes(shards: list[Path], target: Path) -> None:
    """A new index at `target` holding every shard index's segments, in the given order
    (Lucene ``IndexWriter.addIndexes(Directory...)``: segments are copied, not re-analysed)."""
    J = lucene.jclass
    FSDirectory = J("org.apache.lucene.store.FSDirectory")
    File = J("java.io.File")
    Config = J("org.apache.lucene.index.IndexWriterConfig")
    OpenMode = J("org.apache.lucene.index.IndexWriterConfig$OpenMode")
    try:
        sources = [FSDirectory.open(File(str(p)).toPath()) for p in shards]
        conf = Config()
        conf.setOpenMode(OpenMode.CREATE)
        writer = J("org.apache.lucene.index.IndexWriter")(FSDirectory.open(File(str(target)).toPath()), conf)
        try:
            writer.addIndexes(*sources)  # varargs: pyjnius resolves the Directory... overload
            writer.commit()
        finally:
            writer.close()
            for d in sources:
                d.close()
    except Exception as e:
        raise EngineError(f"merging {len(shards)} shard indexes into {target} failed: {e}") from e
