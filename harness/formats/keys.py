"""The (topic, document) keys of a run's or qrels' rows, and the check that no document is listed
twice for a topic (:func:`dedupe`): 64-bit hashes sorted on worker threads, every shared hash
confirmed by comparing the ids' bytes."""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from harness.errors import DataError
from harness.formats.tokenizer import worker_threads
from harness.policies import DUPLICATES, one_of

__all__ = ["id_hash", "salts", "topic_doc_keys", "dedupe"]

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def id_hash(ids: np.ndarray) -> np.ndarray:
    """A cheap 64-bit hash of each id of a NUL-padded ``S`` array (width a multiple of 8).
    Independent of the width (NUL words are skipped), so arrays of different widths agree.
    Not collision-free: equal hashes are always confirmed by comparing the bytes."""
    width = ids.dtype.itemsize
    words = ids.view(np.uint64).reshape(len(ids), width // 8)
    h = words[:, 0] * _M1
    for j in range(1, words.shape[1]):
        w = words[:, j]
        h = np.where(w != 0, (h ^ w) * _M2, h)
    return h


def salts(topics) -> np.ndarray:
    return np.array(
        [
            int.from_bytes(hashlib.blake2b(t.encode("utf-8", "surrogateescape"), digest_size=8).digest(), "little")
            for t in topics
        ],
        dtype=np.uint64,
    )


def topic_doc_keys(topics: list[str], offsets: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """64-bit (topic, doc) key per row: the doc id hash xor a salt drawn from the topic *name*,
    so a run's and a qrels' keys agree without any mapping between their topic indexes."""
    keys = np.repeat(salts(topics), np.diff(offsets))
    step = 1 << 20  # in slices: no second run-sized array to fault in
    for lo in range(0, len(keys), step):
        keys[lo : lo + step] ^= id_hash(ids[lo : lo + step])
    return keys


def _find_duplicates(keys: np.ndarray, ids: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Row indices that repeat an earlier row's (topic, id), in row order. Only rows whose
    hash key is shared are compared, by their bytes (a hash collision is not a duplicate)."""
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    shared = np.zeros(len(k), dtype=bool)
    eq = k[1:] == k[:-1]
    shared[1:] |= eq
    shared[:-1] |= eq
    rows = np.sort(order[shared])
    o = rows[np.lexsort((rows, ids[rows], seg[rows]))]
    again = (ids[o[1:]] == ids[o[:-1]]) & (seg[o[1:]] == seg[o[:-1]])
    return np.sort(o[1:][again])


def dedupe(kind, source, names, offsets, ids, lines, duplicates, keys):
    """Check (topic, id) uniqueness; return a keep-mask or None. ``lines`` may be None;
    ``keys`` are the rows' :func:`topic_doc_keys`."""
    one_of("duplicates", duplicates, DUPLICATES)
    if len(ids) < 2:
        return None
    lens = np.diff(offsets)
    # sort ~1M rows at a time, cut at topic boundaries (duplicates are within a topic)
    cuts = np.unique(np.r_[offsets[np.searchsorted(offsets, np.arange(0, len(ids), 1 << 20))], len(ids)])

    def repeats(bounds) -> bool:  # on a worker thread: np.sort releases the GIL
        s = np.sort(keys[bounds[0] : bounds[1]])
        return bool((s[1:] == s[:-1]).any())

    # the slices on worker threads: at 10M rows, 0.5 s of sorting on one
    slices = list(zip(cuts[:-1].tolist(), cuts[1:].tolist()))
    if worker_threads() == 1 or len(slices) == 1:
        found = any(map(repeats, slices))
    else:
        with ThreadPoolExecutor(worker_threads()) as pool:
            found = any(pool.map(repeats, slices))
    if not found:
        return None
    seg = np.repeat(np.arange(len(names), dtype=np.int64), lens)
    dup = _find_duplicates(keys, ids, seg)
    if len(dup) == 0:
        return None
    if duplicates == "error":
        i = int(dup[0])
        t = int(seg[i])
        doc = ids[i].decode("utf-8", "surrogateescape")
        lo = int(offsets[t])
        first = lo + int(np.flatnonzero(ids[lo:i] == ids[i])[0])
        where = f" (first seen on line {lines[first]})" if lines is not None else ""
        hint = (
            " Remove them (`harness evaluate --duplicates drop` and duplicates='drop' in the Python API"
            " keep each document's first row)."
            if kind == "document"
            else " Keep one judgment per document."
        )
        raise DataError(
            source,
            f"duplicate {kind} for topic {names[t]!r}, document {doc!r}{where}; "
            f"{len(dup)} duplicate row(s) in all.{hint}",
            line=lines[i] if lines is not None else None,
        )
    keep = np.ones(len(ids), dtype=bool)
    keep[dup] = False
    return keep
