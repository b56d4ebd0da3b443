"""The run cache: each searched run is kept beside its index as its TREC text
(``<run>.<key>.trec``, written once) and a compact binary copy (``<run>.<key>.parquet``) that
reads back in a fraction of the search's time.

The binary copy is a Parquet file (zstd, byte-stream-split columns): the hits' doc ids, their
scores (as Lucene's float32 when the run's float64 scores are exactly what
:func:`~harness.engine.search.strictly_decreasing` makes of them, as for every searched run;
float64 otherwise) and, in its metadata, the topics, their hit counts, the run's tag, the
size and modification time of the text it was written beside and, for a searched run, the times
of the search that made it (:class:`~harness.engine.latency.SearchTimes`: each query's
nanoseconds, the batches' wall time and threads, the index's size), so that a run read back from
the cache reports the figures of its search, not of its reading. The text is the same with or
without them. It takes 3-4 bytes a hit where
the text takes 50-60 (and the former ``.npz`` copy 16): text plus binary hold a run in about
1.06x its text (issue 37).

A report does not copy the text: :func:`place_text` hard-links it into the report's ``runs/``
(one copy on disk however many reports hold it; a copy where a link cannot be made, e.g. on
another file system). A hard-linked report stays self-contained (copying the folder copies the
text) and valid when the cache is pruned (the link keeps the bytes). The binary copy is the
reference for what the text must be: a text changed in place (through a report's link) or
removed is written again from it, under a new inode, before it is linked anywhere.

Both files are written atomically, the text first. A cache made before the binary copy existed
(``.trec`` only, or with the ``.npz`` of harness-run-cache/1) is read from its text once and
its binary copy made; a damaged binary copy is read from the text likewise.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np

from harness import lazy
from harness.engine.latency import SearchTimes
from harness.engine.ties import strictly_decreasing
from harness.files import atomic_writer
from harness.formats.run import Run
from harness.formats.runs import numeric_array, read_run, write_run

pa = lazy.module("pyarrow")
pq = lazy.module("pyarrow.parquet")

__all__ = [
    "store_run",
    "load_run",
    "load_timed_run",
    "place_text",
    "binary_path",
    "cached",
    "CACHE_FORMAT",
    "LEGACY_SUFFIXES",
]

CACHE_FORMAT = "harness-run-cache/2"
# What earlier versions kept beside a cached text (harness-run-cache/1), removed when met.
LEGACY_SUFFIXES = (".npz",)


def binary_path(trec: Path) -> Path:
    return Path(trec).with_suffix(".parquet")


def cached(trec: Path) -> bool:
    """Whether the cache may hold the run of ``trec`` (its text or its binary copy is there)."""
    return Path(trec).exists() or binary_path(trec).exists()


def _stamp(path: Path) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def store_run(trec: Path, run: Run, tag: str, times: SearchTimes | None = None) -> None:
    """Write the TREC text, then its binary copy (recording the text's size and time, and the
    times of the search that made the run when given)."""
    trec = Path(trec)
    write_run(trec, run, tag)
    _write_binary(binary_path(trec), run, tag, _stamp(trec), times)
    _drop_legacy(trec)


def _drop_legacy(trec: Path) -> None:
    for suffix in LEGACY_SUFFIXES:
        try:
            Path(trec).with_suffix(suffix).unlink()
        except OSError:
            pass


def _float32_exact(run: Run) -> np.ndarray | None:
    """The run's scores as float32 when strictly_decreasing gives back every float64 bit."""
    with np.errstate(over="ignore", invalid="ignore"):
        s32 = run.scores.astype(np.float32)
    again = strictly_decreasing(s32, run.offsets[:-1])
    return s32 if np.array_equal(again.view(np.uint64), run.scores.view(np.uint64)) else None


def _write_binary(path: Path, run: Run, tag: str, text: list[int] | None, times: SearchTimes | None = None) -> None:
    n = len(run.docids)
    docids = np.ascontiguousarray(run.docids)
    width = max(docids.dtype.itemsize, 1)
    ids = pa.FixedSizeBinaryArray.from_buffers(pa.binary(width), n, [None, pa.py_buffer(docids.view(np.uint8))])
    s32 = _float32_exact(run)
    values = s32 if s32 is not None else np.ascontiguousarray(run.scores, dtype=np.float64)
    scores = numeric_array(values)
    meta = {
        "format": CACHE_FORMAT,
        "topics": run.topics(),
        "counts": np.diff(run.offsets).tolist(),
        "scores": "float32" if s32 is not None else "float64",
        "tag": tag,
        "text": text,
        **({"latency": times.record()} if times is not None else {}),
    }
    table = pa.table({"docid": ids, "score": scores}).replace_schema_metadata(
        {"harness": json.dumps(meta, ensure_ascii=False)}
    )
    with atomic_writer(path, "wb") as fh:
        pq.write_table(
            table,
            fh,
            compression="zstd",
            use_dictionary=False,
            use_byte_stream_split=["docid", "score"],
            write_statistics=False,
        )


def _read_binary(path: Path, source: str) -> tuple[Run, dict] | None:
    """(run, its metadata) of a sound binary copy, else None."""
    try:
        with pq.ParquetFile(path) as f:  # not pq.read_table: it imports pyarrow.dataset, which imports pandas
            table = f.read()
        meta = json.loads((table.schema.metadata or {}).get(b"harness", b"{}"))
        if not isinstance(meta, dict) or meta.get("format") != CACHE_FORMAT:
            return None
        topics, counts, kind, tag = meta["topics"], meta["counts"], meta["scores"], meta["tag"]
        ids = table.column("docid").combine_chunks()
        sc = table.column("score").combine_chunks()
    except (OSError, KeyError, ValueError, TypeError, pa.ArrowException):
        return None
    n = len(ids)
    expected = {"float32": pa.float32(), "float64": pa.float64()}.get(kind)
    if (
        not isinstance(topics, list)
        or not all(isinstance(t, str) for t in topics)
        or not isinstance(counts, list)
        or len(counts) != len(topics)
        or not all(isinstance(c, int) and c >= 0 for c in counts)
        or sum(counts) != n
        or len(sc) != n
        or not isinstance(tag, str)
        or not pa.types.is_fixed_size_binary(ids.type)
        or ids.type.byte_width % 8
        or sc.type != expected
        or ids.null_count
        or sc.null_count
    ):
        return None
    width = ids.type.byte_width
    docids = np.frombuffer(ids.buffers()[1], dtype=f"S{width}", count=n, offset=ids.offset * width).copy()
    dtype = np.dtype(kind)  # float32 or float64, checked above; np.frombuffer, not to_numpy: that imports pandas
    scores = np.frombuffer(sc.buffers()[1], dtype=dtype, count=n, offset=sc.offset * dtype.itemsize)
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    if kind == "float32":
        scores = strictly_decreasing(scores, offsets[:-1])
    else:
        scores = np.array(scores, dtype=np.float64)
    return Run(topics, offsets, docids, scores, source), meta


def load_run(trec: Path) -> Run | None:
    """The cached run of ``trec``: from its binary copy when that is sound, else from the text
    (and then the binary copy is made); None when neither is there."""
    return load_timed_run(trec)[0]


def load_timed_run(trec: Path) -> tuple[Run | None, SearchTimes | None]:
    """(:func:`load_run`'s run, the times of the search that made it): None for a run that was
    not searched, or was cached before the times were kept, or whose binary copy had to be made
    again from its text (the text holds no times)."""
    trec = Path(trec)
    got = _read_binary(binary_path(trec), str(trec))
    if got is not None:
        try:
            os.utime(binary_path(trec))  # used now: `harness cache --unused-since` keeps it
        except OSError:
            pass
        return got[0], SearchTimes.from_record(got[1].get("latency"))
    if not trec.exists():
        return None, None
    run = read_run(trec)
    try:
        _write_binary(binary_path(trec), run, _text_tag(trec), _stamp(trec))
        _drop_legacy(trec)
    except OSError:
        pass  # a read-only cache still works, only slower
    return run, None


def _text_tag(trec: Path) -> str:
    """The tag of a cached text's first line (every line of a cached run has the same)."""
    with open(trec, "rb") as fh:
        first = fh.readline().split()
    return first[5].decode("utf-8", "surrogateescape") if len(first) >= 6 else "harness"


def place_text(trec: Path, dst: Path, run: Run | None = None) -> bool:
    """Put the TREC text of the cached run ``trec`` at ``dst`` (a path not there yet): a hard
    link to the cache's text, or a copy where a link cannot be made (True: linked). A text that
    is not the one its binary copy was written beside (changed in place, or gone) is first
    written again from the binary copy (``run``: the run already read from it). A file that is
    not in the run cache (a run from the user's file) is always copied, never linked."""
    trec, dst = Path(trec), Path(dst)
    meta = _binary_meta(binary_path(trec))
    if meta is None:  # not a cache entry of this format: the text is all there is
        _copy(trec, dst)
        return False
    if meta.get("text") != _stamp(trec):
        if run is None:
            got = _read_binary(binary_path(trec), str(trec))
            run = None if got is None else got[0]
        if run is None:
            raise FileNotFoundError(f"the run cache's text {trec} changed and its binary copy cannot be read")
        store_run(trec, run, meta["tag"], SearchTimes.from_record(meta.get("latency")))  # the search's times kept
    try:
        os.link(trec, dst)
        return True
    except OSError:
        _copy(trec, dst)
        return False


def _binary_meta(path: Path) -> dict | None:
    try:
        meta = json.loads((pq.read_schema(path).metadata or {}).get(b"harness", b"{}"))
    except (OSError, ValueError, pa.ArrowException):
        return None
    return meta if isinstance(meta, dict) and meta.get("format") == CACHE_FORMAT and "tag" in meta else None


def _copy(src: Path, dst: Path) -> None:
    shutil.copyfile(src, dst)
