"""TREC run files: a strict, vectorised reader and an atomic writer.

A run line is ``qid Q0 docid rank score tag``, whitespace-separated. The reader never loops in
Python per line: it reads the file in large blocks, finds the field boundaries with numpy, and
turns the columns into arrays (topic segments, fixed-width doc-id bytes, float64 scores). Errors
name the file and line.

Like trec_eval, the reader ignores the ``Q0``, ``rank`` and ``tag`` columns' values (only their
presence is checked): the order that counts is decided by the evaluation's tie policy, see
:class:`harness.metrics.EvalPolicy`. A :class:`Run` keeps each topic's rows in file order.

This module also holds the columnar tokeniser that :mod:`harness.formats.qrels` shares. Blocks of
lines are parsed on ``HARNESS_THREADS`` threads (default 2; numpy releases the GIL), with the
results assembled in file order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from harness.errors import DataError
from harness.files import atomic_writer
from harness.formats.tokenizer import (
    Column,
    LineMap,
    TopicColumn,
    dedupe,
    file_size,
    fixed_bytes,
    id_hash,
    map_blocks,
    pad8,
    parse_floats,
    salts,
    topic_doc_keys,
)

__all__ = ["Run", "read_run", "write_run"]


# --------------------------------------------------------------------------- Run
class Run:
    """A retrieval run: per topic, the returned documents with their scores, in the run's
    order (file order for :func:`read_run`, the given order for :meth:`from_ranked`).

    Columnar inside: ``offsets`` (topic segments), ``docids`` (NUL-padded ``S`` array) and
    ``scores`` (float64), so evaluation never touches Python objects per document.

    >>> run = Run.from_ranked({"q1": (["d2", "d1"], [2.0, 1.0])})
    >>> run.topics(), run.ranked("q1")[0]
    (['q1'], ['d2', 'd1'])
    """

    __slots__ = ("_topics", "_index", "offsets", "docids", "scores", "source", "_keys")

    def __init__(
        self, topics: list[str], offsets: np.ndarray, docids: np.ndarray, scores: np.ndarray, source: str = "<run>"
    ):
        self._topics = list(topics)
        self._index = {t: i for i, t in enumerate(self._topics)}
        self.offsets = offsets
        self.docids = docids
        self.scores = scores
        self.source = source
        self._keys = None

    @classmethod
    def from_ranked(
        cls,
        ranked: Mapping[str, tuple[Sequence[str], Sequence[float]]],
        *,
        duplicates: str = "error",
        source: str = "<Run.from_ranked>",
    ) -> Run:
        """Build a run from ``{qid: (docids, scores)}``, keeping each topic's order as given."""
        topics, lens, ids, scores = [], [], [], []
        for qid, pair in ranked.items():
            try:
                docs, sc = pair
            except (TypeError, ValueError):
                raise DataError(source, f"topic {qid!r}: expected a (docids, scores) pair") from None
            sc = np.asarray(sc, dtype=np.float64).ravel()
            docs = list(docs)
            if len(docs) != len(sc):
                raise DataError(source, f"topic {qid!r}: {len(docs)} docids but {len(sc)} scores")
            if np.isnan(sc).any():
                raise DataError(source, f"topic {qid!r}: a score is NaN; a ranking needs comparable scores")
            for d in docs:
                if not isinstance(d, str) or not d or len(d.split()) != 1:
                    raise DataError(
                        source, f"topic {qid!r}: doc id must be a non-empty string without whitespace (got {d!r})"
                    )
            if not isinstance(qid, str) or not qid:
                raise DataError(source, f"topic id must be a non-empty string (got {qid!r})")
            topics.append(qid)
            lens.append(len(docs))
            ids.extend(d.encode("utf-8", "surrogateescape") for d in docs)
            scores.append(sc)
        offsets = np.zeros(len(topics) + 1, dtype=np.int64)
        np.cumsum(lens, out=offsets[1:])
        docids = pad8(np.array(ids, dtype="S") if ids else np.zeros(0, dtype="S8"))
        score_arr = np.concatenate(scores) if scores else np.zeros(0)
        run = cls(topics, offsets, docids, score_arr, source)
        return run._deduped(duplicates, None)

    def _deduped(self, duplicates, lines):
        keep = dedupe("document", self.source, self._topics, self.offsets, self.docids, lines, duplicates, self.keys())
        if keep is None:
            return self
        seg = np.repeat(np.arange(len(self._topics)), np.diff(self.offsets))
        counts = np.bincount(seg[keep], minlength=len(self._topics))
        offsets = np.zeros_like(self.offsets)
        np.cumsum(counts, out=offsets[1:])
        return Run(self._topics, offsets, self.docids[keep], self.scores[keep], self.source)

    def topics(self) -> list[str]:
        """Topic ids in order of first appearance."""
        return list(self._topics)

    def ranked(self, qid: str) -> tuple[list[str], np.ndarray]:
        """The topic's doc ids and float64 scores in the run's order."""
        try:
            t = self._index[qid]
        except KeyError:
            raise KeyError(f"topic {qid!r} is not in the run {self.source}") from None
        lo, hi = int(self.offsets[t]), int(self.offsets[t + 1])
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


def read_run(path, *, duplicates: str = "error") -> Run:
    """Read a TREC run file (``qid Q0 docid rank score tag``).

    Raises :class:`DataError` with the line number for a wrong field count or a non-numeric
    score, and for a document repeated within a topic (trec_eval refuses those too) unless
    ``duplicates="drop"``, which keeps each document's first row.
    """
    source = str(path)
    topics = TopicColumn()
    size = file_size(path)
    ids, scores, lines = Column(size), Column(size), LineMap()
    keys = Column(size)

    def columns(block):  # on a worker thread
        segs = TopicColumn.segments(block)
        block_ids = fixed_bytes(block, 2)
        block_keys = np.repeat(salts(segs[0]), segs[1]) ^ id_hash(block_ids)
        return (
            segs,
            block_ids,
            parse_floats(block, 4, source, "score (field 5)"),
            block_keys,
            LineMap.of(block),
            len(block.body),
        )

    for line0, (segs, block_ids, block_scores, block_keys, line_info, nbytes) in map_blocks(
        path, 6, "run: qid Q0 docid rank score tag", columns
    ):
        topics.add(segs)
        ids.append(block_ids, nbytes)
        scores.append(block_scores, nbytes)
        keys.append(block_keys, nbytes)
        lines.add(line_info, line0)
    names, offsets, order = topics.grouping()
    docids = ids.result(np.zeros(0, dtype="S8"))
    score_arr = scores.result(np.zeros(0))
    key_arr = keys.result(np.zeros(0, dtype=np.uint64))
    if order is not None:
        docids, score_arr, key_arr, lines.order = docids[order], score_arr[order], key_arr[order], order
    run = Run(names, offsets, docids, score_arr, source)
    run._keys = key_arr
    return run._deduped(duplicates, lines)


def write_run(path, run: Run, tag: str) -> None:
    """Write ``run`` as a TREC run file, ranks 1..n in the run's order, atomically (a temp file
    in the same directory, then ``os.replace``). Scores are written with ``repr(float)``, the
    shortest text that reads back to the same float64, so nothing is lost."""
    if not isinstance(tag, str) or len(tag.split()) != 1 or tag != tag.strip():
        raise DataError(str(path), f"run tag must be one non-empty word without whitespace (got {tag!r})")
    for qid in run.topics():
        if len(qid.split()) != 1 or qid != qid.strip():
            raise DataError(str(path), f"topic id {qid!r} contains whitespace: a TREC run cannot hold it")
    with atomic_writer(Path(path), errors="surrogateescape") as f:
        for t, qid in enumerate(run.topics()):
            lo, hi = int(run.offsets[t]), int(run.offsets[t + 1])
            docs = run.docids[lo:hi].tolist()
            f.write(
                "".join(
                    f"{qid} Q0 {d.decode('utf-8', 'surrogateescape')} {r} {s!r} {tag}\n"
                    for r, (d, s) in enumerate(zip(docs, run.scores[lo:hi].tolist()), start=1)
                )
            )
