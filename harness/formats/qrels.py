"""TREC qrels files (``qid iter docid rel``): a strict, vectorised reader.

The ``iter`` column is ignored (as trec_eval does); ``rel`` must be an integer, written as one
or as a decimal with a zero fraction (``2.0``, as pandas writes a label column that held a
missing value: trec_eval's ``atol`` reads it as 2; ``1.5``, which it reads as 1, and ``1e1``,
which it reads as 1, are errors). Negative labels
are kept: trec_eval reads them as "in the pool but not judged", and so does
:mod:`harness.metrics` (non-relevant everywhere, skipped by bpref). A (qid, docid) pair given
twice is an error naming both lines (trec_eval refuses it too).

BEIR's qrels (``qrels/test.tsv``: a header line ``query-id<TAB>corpus-id<TAB>score``, then
``query-id corpus-id score`` per line) are read as they are, recognised by that header, with the
same rules for ids and labels; ``harness trec_eval`` keeps trec_eval's four fields
(``beir=False``). BEIR's own loader skips the first line whatever it holds, so three fields
without the header are refused rather than read as a judgment BEIR would drop.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from harness.errors import DataError
from harness.formats.columns import LineMap, TopicColumn, pad8
from harness.formats.hygiene import field_count_hint, regular_file
from harness.formats.keys import dedupe, topic_doc_keys
from harness.formats.tokenizer import check_ids, fixed_bytes, map_blocks, parse_ints

__all__ = ["Qrels", "read_qrels", "read_qrels_file", "judgments_named"]


class Qrels:
    """Relevance judgments: per topic, doc ids and integer labels (columnar inside, like
    :class:`harness.formats.run.Run`).

    >>> q = Qrels.from_dict({"q1": {"d1": 2, "d2": 0}})
    >>> q.topics(), q.judged("q1")
    (['q1'], {'d1': 2, 'd2': 0})
    """

    __slots__ = ("_topics", "_index", "offsets", "docids", "labels", "source", "_keys")

    def __init__(self, topics, offsets, docids, labels, source="<qrels>"):
        self._topics = list(topics)
        self._index = {t: i for i, t in enumerate(self._topics)}
        self.offsets = offsets
        self.docids = docids
        self.labels = labels
        self.source = source
        self._keys = None

    @classmethod
    def from_dict(cls, qrels: Mapping[str, Mapping[str, int]], *, source: str = "<Qrels.from_dict>") -> Qrels:
        """Build from ``{qid: {docid: label}}`` (labels must be integers)."""
        topics, lens, ids, labels = [], [], [], []
        for qid, judged in qrels.items():
            if not isinstance(qid, str) or not qid:
                raise DataError(source, f"topic id must be a non-empty string (got {qid!r})")
            for doc, lab in judged.items():
                if not isinstance(doc, str) or len(doc.split()) != 1 or doc != doc.strip():
                    raise DataError(
                        source, f"topic {qid!r}: doc id must be a non-empty string without whitespace (got {doc!r})"
                    )
                # an integer beyond 64 bits is refused as the qrels reader refuses it (not an OverflowError)
                if isinstance(lab, bool) or not isinstance(lab, (int, np.integer)) or not -(2**63) <= lab < 2**63:
                    raise DataError(source, f"topic {qid!r}, document {doc!r}: label must be an integer (got {lab!r})")
                ids.append(doc.encode("utf-8", "surrogateescape"))
                labels.append(int(lab))
            topics.append(qid)
            lens.append(len(judged))
        offsets = np.zeros(len(topics) + 1, dtype=np.int64)
        np.cumsum(lens, out=offsets[1:])
        docids = pad8(np.array(ids, dtype="S") if ids else np.zeros(0, dtype="S8"))
        return cls(topics, offsets, docids, np.array(labels, dtype=np.int64), source)

    def topics(self) -> list[str]:
        """Topic ids in order of first appearance."""
        return list(self._topics)

    def judged(self, qid: str) -> dict[str, int]:
        """``{docid: label}`` for one topic."""
        t = self._index[qid]
        lo, hi = int(self.offsets[t]), int(self.offsets[t + 1])
        return {
            d.decode("utf-8", "surrogateescape"): int(v)
            for d, v in zip(self.docids[lo:hi].tolist(), self.labels[lo:hi].tolist())
        }

    def to_dict(self) -> dict[str, dict[str, int]]:
        return {q: self.judged(q) for q in self._topics}

    def topic_index(self, qid: str) -> int | None:
        return self._index.get(qid)

    def keys(self) -> np.ndarray:
        """Cached 64-bit (topic, doc) keys (see :func:`harness.formats.keys.topic_doc_keys`)."""
        if self._keys is None:
            self._keys = topic_doc_keys(self._topics, self.offsets, self.docids)
        return self._keys

    def __len__(self) -> int:
        return len(self.labels)

    def __repr__(self) -> str:
        return f"Qrels({self.source!r}, {len(self._topics)} topics, {len(self)} judgments)"


_LABEL = "relevance label (field 4)"
BEIR_HEADER = ("query-id", "corpus-id", "score")
_AWK = "awk 'NF == 3 && $3 ~ /^-?[0-9]+$/ {print $1, 0, $2, $3}' FILE > FILE.qrels"
# BEIR's qrels/*.tsv (a header, then query-id corpus-id score) and qrels without the iteration
_HINTS = {
    3: "Three fields are BEIR's qrels TSV (query-id corpus-id score), which is read as it is when it starts "
    "with BEIR's header line query-id<TAB>corpus-id<TAB>score (BEIR's loader skips that line whatever it "
    "holds), or qrels without the iteration column. Add the header, or convert: " + _AWK
}
# harness trec_eval: trec_eval's own rules, four fields
_TREC_EVAL_HINTS = {
    3: "Three fields are BEIR's qrels TSV (query-id corpus-id score, after a header line) or qrels "
    "without the iteration column; trec_eval refuses them too (harness evaluate and compare read BEIR's "
    "qrels with its header as they are). Convert: " + _AWK
}
_INTEGRAL = re.compile(rb"[+-]?0*(\d{1,19})(?:\.0*)?")  # an integer, or a decimal with a zero fraction


def _labels(block, source: str, field: int = 3, what: str = _LABEL):
    """Field 4 (BEIR's 3) as int64: integers (the fast path), else integers and decimals whose
    fraction is zero, token by token (rare files: pandas' float labels); anything else is an
    error naming its line, as parse_ints names it."""
    try:
        return parse_ints(block, field, source, what)
    except DataError:
        pass
    values = []
    for i in range(len(block)):
        tok = block.token(field, i)
        m = _INTEGRAL.fullmatch(tok)
        v = int(tok.split(b".")[0]) if m else None
        if v is None or not -(2**63) <= v < 2**63:
            shown = tok.decode("utf-8", "replace")[:120]
            raise DataError(source, f"{what} must be an integer, got {shown!r}{_atol(tok)}", line=block.line(i))
        values.append(v)
    return np.array(values, dtype=np.int64)


def _atol(tok: bytes) -> str:
    """What trec_eval makes of a short decimal label (C's atol: the digits before any '.' or
    'e'), said in the error: '1.5' is not 1.5 there."""
    m = re.fullmatch(rb"([+-]?)0*(\d{0,18})(\.\d*)?([eE][+-]?\d+)?", tok)
    if not m or not (m.group(2) or m.group(3)):
        return ""
    value = int(m.group(1) + (m.group(2) or b"0"))
    return f" (trec_eval would read it as {value}, the digits before any '.' or 'e': write the label meant)"


def beir_header(path) -> int:
    """The length in bytes of BEIR's qrels header (``query-id<TAB>corpus-id<TAB>score``, after a
    byte-order mark, with its CR LF or LF) when the file starts with it, else 0 (also when it
    cannot be read: the reader says why). The tokenizer starts after it, counting it as line 1."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(256)
    except OSError:
        return 0
    bom = 3 if head.startswith(b"\xef\xbb\xbf") else 0
    first, newline, _ = head[bom:].partition(b"\n")
    if tuple(first.rstrip(b"\r").split(b"\t")) != tuple(f.encode() for f in BEIR_HEADER):
        return 0
    return bom + len(first) + len(newline)


def read_qrels(path, *, beir: bool = True) -> Qrels:
    """Read a TREC qrels file: exactly four whitespace-separated fields per line (as trec_eval
    9.0.8 requires), or, with ``beir``, BEIR's qrels TSV when it starts with BEIR's header (three
    fields: query-id corpus-id score). :class:`DataError` with the line number for a wrong field
    count, a non-integer label, a (qid, docid) pair judged twice, a control character or an
    over-long line or id (see :mod:`harness.formats.tokenizer`); an empty file (no judgments) is
    an error."""
    source = str(path)
    topics = TopicColumn()
    ids, labels, lines = [], [], LineMap()
    header = beir_header(path) if beir else 0
    doc, label, what = (1, 2, "score (field 3)") if header else (2, 3, _LABEL)

    def columns(block):
        check_ids(block, 0, source, "topic id")
        check_ids(block, doc, source, "doc id")
        return (
            TopicColumn.segments(block),
            fixed_bytes(block, doc),
            _labels(block, source, label, what),
            LineMap.of(block),
        )

    layout = "BEIR qrels: query-id corpus-id score" if header else "qrels: qid iter docid rel"
    try:
        for line0, (segs, block_ids, block_labels, line_info) in map_blocks(
            path, 3 if header else 4, layout, columns, header=header
        ):
            topics.add(segs)
            ids.append(block_ids)
            labels.append(block_labels)
            lines.add(line_info, line0)
    except DataError as e:
        raise field_count_hint(e, {} if header else _HINTS if beir else _TREC_EVAL_HINTS) from None
    if not ids:
        expected = "'query-id corpus-id score' after the header" if header else "'qid iter docid rel'"
        raise DataError(source, f"no judgments: the qrels file is empty (expected lines {expected})")
    names, offsets, order = topics.grouping()
    docids = np.concatenate(ids)
    lab = np.concatenate(labels)
    if order is not None:
        docids, lab, lines.order = docids[order], lab[order], order
    qrels = Qrels(names, offsets, docids, lab, source)
    dedupe("judgment", source, names, offsets, docids, lines, "error", qrels.keys())
    return qrels


def read_qrels_file(path: str | os.PathLike, *, beir: bool = True) -> Qrels:
    """A qrels file a user names (``harness evaluate``, ``compare``, ``trec_eval``, the API): a
    regular file (a folder, FIFO or device is named as such, not "not found") that holds
    judgments (harness.formats.named.read_user_qrels also takes judgments named in a cache).
    ``beir``: BEIR's qrels TSV is read too (not by ``harness trec_eval``)."""
    regular_file(Path(path), "qrels file")
    qrels = read_qrels(path, beir=beir)
    if not qrels.topics():
        raise DataError(str(path), "the qrels file has no judgments: nothing could be evaluated")
    return qrels


@contextlib.contextmanager
def judgments_named(name: str | None):
    """A DataError about the judgments (source ``qrels``, raised while measuring: e.g. a label
    too large for the per-level measures) names the qrels file instead, when there is one."""
    try:
        yield
    except DataError as e:
        if name is None or e.source != "qrels" or e.line is not None:
            raise
        raise DataError(name, str(e)[len(e.source) + 2 :]) from None
