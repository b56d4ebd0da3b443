"""A retrieval run as a value: :class:`Run`, per topic the returned documents with their scores,
columnar (topic segments, NUL-padded doc ids, float64 scores), so that evaluation, fusion and the
run cache never touch a Python object per document.

A run is built in memory (:meth:`Run.from_ranked`, the searchers' batches) or read from a file
(TREC: :mod:`harness.formats.runs`, which writes it too; MS MARCO's: :mod:`harness.formats.msmarco`).
What an id of a run may be is said here once (:func:`clean_id`): non-empty, at most MAX_ID bytes,
without whitespace or control characters, so that every run can be written and read back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from harness.errors import DataError
from harness.formats.columns import pad8
from harness.formats.keys import dedupe, topic_doc_keys
from harness.formats.tokenizer import MAX_ID

__all__ = ["Run", "clean_id"]


class Run:
    """A retrieval run: per topic, the returned documents with their scores, in the run's
    order (file order for :func:`read_run`, the given order for :meth:`from_ranked`).

    Columnar inside: ``offsets`` (topic segments), ``docids`` (NUL-padded ``S`` array) and
    ``scores`` (float64), so evaluation never touches Python objects per document.

    >>> run = Run.from_ranked({"q1": (["d2", "d1"], [2.0, 1.0])})
    >>> run.topics(), run.ranked("q1")[0]
    (['q1'], ['d2', 'd1'])
    """

    __slots__ = ("_topics", "_index", "offsets", "docids", "scores", "source", "_keys", "ranks", "text_writer")

    def __init__(
        self,
        topics: list[str],
        offsets: np.ndarray,
        docids: np.ndarray,
        scores: np.ndarray,
        source: str = "<run>",
        ranks: np.ndarray | None = None,
        keys: np.ndarray | None = None,
    ):
        self._topics = list(topics)
        self._index = {t: i for i, t in enumerate(self._topics)}
        self.offsets = offsets
        self.docids = docids
        self.scores = scores
        self.source = source
        # the rows' (topic, doc) keys, when the reader computed them as it read (read_run)
        self._keys = keys
        # the rank column as written (int64), kept only when asked for (read_run(ranks=True)):
        # reciprocal rank fusion reads it, as pyserini does; nothing else does
        self.ranks = ranks
        # text_writer(path, tag) -> bool: writes this very run's TREC text to path as write_run
        # would, or declines (False); set by the searcher on the runs it makes (harness.engine.search)
        self.text_writer = None

    def __getstate__(self):
        # a pickled run (a notebook's joblib, a Dask result) leaves the searcher's text_writer
        # behind: it holds Java objects, and write_run writes the same bytes without it
        return None, {k: getattr(self, k) for k in self.__slots__ if k != "text_writer" and hasattr(self, k)}

    def __setstate__(self, state):
        for k, v in state[1].items():
            setattr(self, k, v)
        self.text_writer = None

    @classmethod
    def from_ranked(
        cls,
        ranked: Mapping[str, tuple[Sequence[str], Sequence[float]]],
        *,
        duplicates: str = "error",
        source: str = "<Run.from_ranked>",
    ) -> Run:
        """Build a run from ``{qid: (docids, scores)}``, keeping each topic's order as given."""
        topics: list[str] = []
        lens: list[int] = []
        ids: list[bytes] = []
        scores: list[np.ndarray] = []
        for qid, pair in ranked.items():
            try:
                docs, given = pair
            except (TypeError, ValueError):
                raise DataError(source, f"topic {qid!r}: expected a (docids, scores) pair") from None
            sc = np.asarray(given, dtype=np.float64).ravel()
            docs = list(docs)
            if len(docs) != len(sc):
                raise DataError(source, f"topic {qid!r}: {len(docs)} docids but {len(sc)} scores")
            if np.isnan(sc).any():
                raise DataError(source, f"topic {qid!r}: a score is NaN; a ranking needs comparable scores")
            if not all(isinstance(d, str) for d in docs):
                bad = next(d for d in docs if not isinstance(d, str))
                raise DataError(source, f"topic {qid!r}: doc id must be a string (got {bad!r})")
            encoded = [d.encode("utf-8", "surrogateescape") for d in docs]
            unclean = _first_unclean(encoded)
            if unclean is not None:
                raise DataError(
                    source,
                    f"topic {qid!r}: doc id must be non-empty, at most {MAX_ID} bytes, without whitespace "
                    f"or control characters (got {docs[unclean]!r})",
                )
            if not isinstance(qid, str) or not qid:  # any text in memory; write_run checks what a file can hold
                raise DataError(source, f"topic id must be a non-empty string (got {qid!r})")
            topics.append(qid)
            lens.append(len(docs))
            ids.extend(encoded)
            scores.append(sc)
        offsets = np.zeros(len(topics) + 1, dtype=np.int64)
        np.cumsum(lens, out=offsets[1:])
        docids = pad8(np.array(ids, dtype="S") if ids else np.zeros(0, dtype="S8"))
        score_arr = np.concatenate(scores) if scores else np.zeros(0)
        run = cls(topics, offsets, docids, score_arr, source)
        return run.deduped(duplicates, None)

    def deduped(self, duplicates, lines):
        keep = dedupe("document", self.source, self._topics, self.offsets, self.docids, lines, duplicates, self.keys())
        if keep is None:
            return self
        seg = np.repeat(np.arange(len(self._topics)), np.diff(self.offsets))
        counts = np.bincount(seg[keep], minlength=len(self._topics))
        offsets = np.zeros_like(self.offsets)
        np.cumsum(counts, out=offsets[1:])
        ranks = None if self.ranks is None else self.ranks[keep]
        return Run(self._topics, offsets, self.docids[keep], self.scores[keep], self.source, ranks)

    def topics(self) -> list[str]:
        """Topic ids in order of first appearance."""
        return list(self._topics)

    def ranked(self, qid: str, limit: int | None = None) -> tuple[list[str], np.ndarray]:
        """The topic's doc ids and float64 scores in the run's order (the first ``limit``)."""
        try:
            t = self._index[qid]
        except KeyError:
            raise KeyError(f"topic {qid!r} is not in the run {self.source}") from None
        lo, hi = int(self.offsets[t]), int(self.offsets[t + 1])
        if limit is not None:
            hi = min(hi, lo + max(limit, 0))
        docs = [d.decode("utf-8", "surrogateescape") for d in self.docids[lo:hi].tolist()]
        return docs, self.scores[lo:hi].copy()

    def keys(self) -> np.ndarray:
        """Cached 64-bit (topic, doc) keys of the rows (see :func:`topic_doc_keys`)."""
        if self._keys is None:
            self._keys = topic_doc_keys(self._topics, self.offsets, self.docids)
        return self._keys

    def topic_index(self, qid: str) -> int | None:
        return self._index.get(qid)

    def __len__(self) -> int:
        return len(self.scores)

    def __repr__(self) -> str:
        return f"Run({self.source!r}, {len(self._topics)} topics, {len(self)} rows)"


_UNCLEAN = re.compile(rb"[\x00-\x20\x7f]")


def _first_unclean(ids: list[bytes]) -> int | None:
    """Index of the first id that :func:`clean_id` refuses, or None (one regex over them all)."""
    lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
    if len(ids) and (lengths.min() == 0 or lengths.max() > MAX_ID):
        return int(np.flatnonzero((lengths == 0) | (lengths > MAX_ID))[0])
    m = _UNCLEAN.search(b"".join(ids))
    if m is None:
        return None
    return int(np.searchsorted(np.cumsum(lengths), m.start(), side="right"))


def clean_id(b: bytes) -> bool:
    """Non-empty, at most MAX_ID bytes, no whitespace, control character or DEL."""
    return 0 < len(b) <= MAX_ID and not any(c <= 32 or c == 127 for c in b)
