"""The run cache: each searched run is kept beside its index twice, as the user-facing TREC text
(``<run>.<key>.trec``, copied into reports) and as a binary copy (``<run>.<key>.npz``: topics,
offsets, doc-id bytes and float64 scores) that reads back in a fraction of the search's time.

Both are written atomically, the TREC text first. A cache entry is usable when its ``.trec``
exists; the ``.npz`` is only a faster way to read it. A cache made before the binary copy
existed (``.trec`` only), or one whose ``.npz`` is unreadable or does not match, is read from
the text once and its ``.npz`` re-made; a ``.npz`` whose ``.trec`` is missing is not used.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from harness.files import atomic_writer
from harness.formats.runs import Run, read_run, write_run

__all__ = ["store_run", "load_run", "binary_path", "CACHE_FORMAT"]

CACHE_FORMAT = "harness-run-cache/1"


def binary_path(trec: Path) -> Path:
    return Path(trec).with_suffix(".npz")


def store_run(trec: Path, run: Run, tag: str) -> None:
    """Write the TREC text, then its binary copy."""
    write_run(trec, run, tag)
    _write_binary(binary_path(trec), run)


def _write_binary(path: Path, run: Run) -> None:
    with atomic_writer(path, "wb") as fh:
        np.savez(
            fh,
            format=np.array(CACHE_FORMAT),
            topics=np.array(run.topics(), dtype=str),
            offsets=run.offsets,
            docids=run.docids,
            scores=run.scores,
        )


def load_run(trec: Path) -> Run:
    """The cached run of ``trec``: from its binary copy when that is sound, else from the text
    (and then the binary copy is re-made)."""
    trec = Path(trec)
    run = _read_binary(binary_path(trec), str(trec))
    if run is None:
        run = read_run(trec)
        try:
            _write_binary(binary_path(trec), run)
        except OSError:
            pass  # a read-only cache still works, only slower
    return run


def _read_binary(path: Path, source: str) -> Run | None:
    try:
        with np.load(path, allow_pickle=False) as z:
            if str(z["format"]) != CACHE_FORMAT:
                return None
            topics, offsets, docids, scores = z["topics"].tolist(), z["offsets"], z["docids"], z["scores"]
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, EOFError):
        return None
    sound = (
        offsets.dtype == np.int64
        and docids.dtype.kind == "S"
        and docids.dtype.itemsize % 8 == 0
        and scores.dtype == np.float64
        and len(offsets) == len(topics) + 1
        and offsets[0] == 0
        and bool(np.all(np.diff(offsets) >= 0))
        and offsets[-1] == len(docids) == len(scores)
    )
    return Run(topics, offsets, docids, scores, source) if sound else None
