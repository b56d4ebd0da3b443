"""TREC run files: a strict, vectorised reader and an atomic writer of :class:`~harness.formats.run.Run` values.

A run line is ``qid Q0 docid rank score tag``, whitespace-separated. The reader never loops in
Python per line: it reads the file in large blocks, finds the field boundaries with numpy, and
turns the columns into arrays (topic segments, fixed-width doc-id bytes, float64 scores). Errors
name the file and line.

Like trec_eval, the reader ignores the ``Q0``, ``rank`` and ``tag`` columns' values (only their
presence is checked): the order that counts is decided by the evaluation's tie policy, see
:class:`harness.metrics.EvalPolicy`. A :class:`~harness.formats.run.Run` keeps each topic's rows
in file order.

The lines are tokenised by :mod:`harness.formats.tokenizer`, which the qrels reader shares: blocks
of lines parsed on ``HARNESS_THREADS`` threads (default 2; numpy releases the GIL), the results
assembled in file order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from harness import lazy
from harness.errors import DataError
from harness.files import atomic_file
from harness.formats import arrow
from harness.formats.columns import Column, LineMap, TopicColumn
from harness.formats.hygiene import field_count_hint
from harness.formats.ir_metadata import block_span
from harness.formats.keys import id_hash, salts
from harness.formats.run import Run, clean_id
from harness.formats.tokenizer import (
    MAX_ID,
    check_ids,
    file_size,
    fixed_bytes,
    is_integer,
    is_number,
    map_blocks,
    parse_floats,
    parse_ints,
    worker_threads,
)

pa = lazy.module("pyarrow")

__all__ = ["read_run", "write_run", "first_tag", "check_writable_ids", "numeric_array"]


def _five_fields(fields: list[bytes]) -> str | None:
    """Which column a five-field line lacks, decided by its values, and the command that adds
    it (None when the values do not tell): a second field other than Q0 (or 0, which trec_eval
    equally ignores) followed by a rank and a score is a line without its Q0 (``qid docid rank
    score tag``); a line ending in a rank and a score is one without its tag (``qid Q0 docid
    rank score``). trec_eval 9.0.8 stops at either ("Malformed line")."""
    _, second, third, fourth, fifth = fields
    q0 = second.upper() in (b"Q0", b"0")
    if not q0 and is_integer(third) and is_number(fourth):
        return (
            f"Five fields: the second ({second.decode('utf-8', 'replace')!r}) is no Q0 and a rank and a score follow "
            "it, so the Q0 column is missing (the line is qid docid rank score tag); trec_eval refuses it too. Convert: "
            "awk '{print $1, \"Q0\", $2, $3, $4, $5}' FILE > FILE.trec"
        )
    if is_integer(fourth) and is_number(fifth):
        return (
            "Five fields ending in a rank and a score: the run tag is missing (the line is qid Q0 docid rank score); "
            "trec_eval refuses it too. Any word can be the tag. Convert: "
            "awk '{print $1, $2, $3, $4, $5, \"run\"}' FILE > FILE.trec"
        )
    return None


# three fields: MS MARCO's run format (pyserini --output-format msmarco): qid, docid, rank, read by
# harness.formats.msmarco; for trec_eval itself, -rank keeps the order. Five: see _five_fields
_HINTS: dict[int, str | Callable[[list[bytes]], str | None]] = {
    3: "Three fields are MS MARCO's run format (qid docid rank): harness evaluate, compare and fuse "
    "read it with --run-format msmarco (a config: `format: msmarco` beside `file:`); trec_eval refuses it. Convert: "
    'awk \'{print $1, "Q0", $2, $3, -$3, "msmarco"}\' FILE > FILE.trec',
    5: _five_fields,
}


def read_run(path, *, duplicates: str = "error", ranks: bool = False) -> Run:
    """Read a TREC run file (``qid Q0 docid rank score tag``).

    An ir_metadata block at the file's top (``# ir_metadata.start`` ... ``# ir_metadata.end``,
    as repro_eval writes it: :mod:`harness.formats.ir_metadata`) is skipped, its lines counted.
    Fields are separated by spaces or tabs; as in trec_eval 9.0.8, words after the tag are
    ignored and fewer than six fields is an error (three fields, or five without their Q0 or
    their tag, an error giving the command that converts the file). Scores may be written in any decimal or
    scientific form; each is the float64 that ``float()`` gives for its text.

    Raises :class:`DataError` with the line number for a wrong field count, a score that is
    not a number (or is NaN), a control character, an over-long line or id (see
    :mod:`harness.formats.tokenizer`), and for a document repeated within a topic (trec_eval
    refuses those too) unless ``duplicates="drop"``, which keeps each document's first row.
    With ``ranks=True`` the rank column is parsed too (an integer, else an error naming the
    line) and kept as ``Run.ranks``.
    """
    source = str(path)
    topics = TopicColumn()
    size = file_size(path)
    ids, scores, lines = Column(size), Column(size), LineMap()
    keys, rank_col = Column(size), Column(size)

    def columns(block):  # on a worker thread
        check_ids(block, 0, source, "topic id")
        check_ids(block, 2, source, "doc id")
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
            parse_ints(block, 3, source, "rank (field 4)") if ranks else None,
        )

    # an ir_metadata block at the top (harness.formats.ir_metadata): one read of the file's first
    # bytes, 0.1 ms a file on the loaded 2-core machine, then skipped as a header is
    header, header_lines = block_span(path)
    try:
        for line0, (segs, block_ids, block_scores, block_keys, line_info, nbytes, block_ranks) in map_blocks(
            path,
            6,
            "run: qid Q0 docid rank score tag",
            columns,
            extra_fields=True,
            header=header,
            header_lines=header_lines,
        ):
            topics.add(segs)
            ids.append(block_ids, nbytes)
            scores.append(block_scores, nbytes)
            keys.append(block_keys, nbytes)
            if ranks:
                rank_col.append(block_ranks, nbytes)
            lines.add(line_info, line0)
    except DataError as e:
        raise field_count_hint(e, _HINTS) from None
    names, offsets, order = topics.grouping()
    docids = ids.result(np.zeros(0, dtype="S8"))
    score_arr = scores.result(np.zeros(0))
    key_arr = keys.result(np.zeros(0, dtype=np.uint64))
    rank_arr = rank_col.result(np.zeros(0, dtype=np.int64)) if ranks else None
    if order is not None:
        docids, score_arr, key_arr, lines.order = docids[order], score_arr[order], key_arr[order], order
        rank_arr = None if rank_arr is None else rank_arr[order]
    run = Run(names, offsets, docids, score_arr, source, rank_arr, keys=key_arr)
    return run.deduped(duplicates, lines)


def first_tag(path) -> str | None:
    """The tag (sixth field) of the run file's first line after its ir_metadata block, if any;
    None when the line has none, or the file cannot be read."""
    try:
        skip, _ = block_span(path)
        with open(path, "rb") as f:
            f.seek(skip)
            fields = f.readline(1 << 16).split()
    except (OSError, DataError):
        return None
    return fields[5].decode("utf-8", "replace") if len(fields) >= 6 else None


def write_run(path, run: Run, tag: str) -> None:
    """Write ``run`` as a TREC run file, atomically (a temp file in the same directory, then
    ``os.replace``). The rank column is 1..n in the run's order, or, for a run read with its
    rank column (``Run.ranks``: an MS MARCO run, a TREC run that reciprocal rank fusion reads),
    the ranks as the file gave them: the copy of an MS MARCO run is then the file Anserini's
    convert_msmarco_to_trec_run.py writes (rank as given, score 1/rank, the file's order), and
    fusing the copy by rank gives what fusing the original gives.

    Each score is written as ``repr(score)``: the shortest decimal text that reads back to the
    same float64 (Python's and trec_eval's strtod agree), so :func:`read_run` returns exactly
    the scores in memory, bit for bit. For the harness's own runs the float64 is Lucene's
    float32 score (made strictly decreasing, see :func:`harness.engine.search.strictly_decreasing`);
    "the same score" means that float64, not a rounding of it. Ids and the tag must be
    non-empty, at most MAX_ID bytes, without whitespace or control characters, so that what
    is written can always be read back; anything else is a :class:`DataError` before the file
    is touched. No Python loop per hit: the lines are assembled by Arrow in blocks (see
    :func:`_score_text`). A run the searcher made carries a ``text_writer`` that writes the same
    bytes from the search's own results in Java (harness/engine/java/RunText.java), at a
    fraction of the CPU; it declines whatever it is not sure of, which is then written here.
    """
    source = str(path)
    tag_b = tag.encode("utf-8", "surrogateescape") if isinstance(tag, str) else b""
    if not clean_id(tag_b):
        raise DataError(
            source, f"run tag must be one non-empty word without whitespace or control characters (got {tag!r})"
        )
    names = _topic_names(source, run)
    writer = run.text_writer
    if writer is None:
        _check_values(source, run)
    with atomic_file(Path(path)) as (f, tmp):
        if writer is not None:
            if writer(tmp, tag):
                return  # the same bytes, from the searcher's own results (harness.engine.search)
            f.seek(0)
            f.truncate()  # whatever the declining writer left
            _check_values(source, run)
        _write_lines(f, run, names, tag_b)


def _topic_names(source: str, run: Run) -> list[bytes]:
    """The topic ids as a run file's lines hold them; DataError for one a line cannot hold."""
    names = []
    for qid in run.topics():
        b = qid.encode("utf-8", "surrogateescape") if isinstance(qid, str) else b""
        if not clean_id(b):
            raise DataError(
                source,
                f"topic id {qid!r} is empty, too long, or holds whitespace or a control character: "
                "a run file cannot hold it",
            )
        if b.startswith(b"\xef\xbb\xbf"):  # on the first line, every reader drops it as a BOM
            raise DataError(
                source, f"topic id {qid!r} starts with a byte-order mark (U+FEFF): a run file cannot hold it"
            )
        names.append(b)
    return names


def check_writable_ids(source: str, run: Run) -> list[bytes]:
    """Every id of ``run`` is one a run file's line can hold (as :func:`write_run` checks them);
    returns the topic ids as bytes."""
    names = _topic_names(source, run)
    _check_doc_ids(source, run)
    return names


def _check_values(source: str, run: Run) -> None:
    _check_doc_ids(source, run)
    if np.isnan(run.scores).any():
        raise DataError(source, "a score is NaN; a ranking needs comparable scores")


def _write_lines(f, run: Run, names: list[bytes], tag_b: bytes) -> None:
    qids = _binary(names)
    q0, space, tail = (_binary([b])[0] for b in (b"Q0", b" ", tag_b + b"\n"))
    seg = np.repeat(np.arange(len(names), dtype=np.int64), np.diff(run.offsets))
    step = 1 << 18

    def lines(lo):  # on a worker thread: Arrow releases the GIL
        hi = min(lo + step, len(run))
        s = seg[lo:hi]
        if run.ranks is None:
            rank = np.arange(lo + 1, hi + 1, dtype=np.int64) - run.offsets[s]
        else:  # a run read with its rank column (an MS MARCO run, a TREC run fused by rank): as written
            rank = run.ranks[lo:hi]
        text = arrow.call(
            "binary_join_element_wise",
            arrow.call("take", qids, _numeric(s)),
            q0,
            _fixed_to_binary(run.docids[lo:hi]),
            arrow.cast(arrow.cast(_numeric(rank), _type("string")), _type("binary")),
            _score_text(run.scores[lo:hi]),
            tail,
            space,
        )
        off = np.frombuffer(text.buffers()[1], dtype=np.int32, count=len(text) + 1, offset=4 * text.offset)
        return memoryview(text.buffers()[2])[int(off[0]) : int(off[-1])]

    _ordered(lines, range(0, len(run), step), f.write)


# Arrow arrays are built from buffers only: pa.array() and pa.scalar() import pandas when it is
# installed (seconds on a loaded machine), which the harness never needs.
def _type(name):
    return getattr(pa, name)()


def _binary(items: list[bytes]):
    off = np.zeros(len(items) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in items], out=off[1:])
    return pa.Array.from_buffers(pa.binary(), len(items), [None, pa.py_buffer(off), pa.py_buffer(b"".join(items))])


def numeric_array(arr: np.ndarray):
    """An Arrow array of a contiguous numeric numpy array, its type the array's, over its buffer
    (built from buffers, as the comment above says; the run cache's columns use it too)."""
    return pa.Array.from_buffers(pa.from_numpy_dtype(arr.dtype), len(arr), [None, pa.py_buffer(arr)])


def _numeric(arr: np.ndarray):
    return numeric_array(np.ascontiguousarray(arr, dtype={"i": np.int64, "f": np.float64}[arr.dtype.kind]))


def _fixed_to_binary(ids: np.ndarray):
    """A NUL-padded ``S`` array (no NUL inside a value) as an Arrow binary array."""
    m = np.ascontiguousarray(ids).view(np.uint8).reshape(len(ids), ids.dtype.itemsize)
    keep = m != 0
    off = np.zeros(len(ids) + 1, dtype=np.int32)
    np.cumsum(np.count_nonzero(keep, axis=1), out=off[1:])
    return pa.Array.from_buffers(pa.binary(), len(ids), [None, pa.py_buffer(off), pa.py_buffer(m[keep])])


def _ordered(fn, items, sink) -> None:
    """``sink(fn(x))`` for each item in order, ``fn`` running on worker threads a little ahead."""
    threads = worker_threads()
    with ThreadPoolExecutor(threads) as pool:
        pending: deque = deque()
        for x in items:
            pending.append(pool.submit(fn, x))
            if len(pending) > threads:
                sink(pending.popleft().result())
        while pending:
            sink(pending.popleft().result())


def _score_text(scores: np.ndarray):
    """``repr()`` of each float64, as an Arrow binary array, without a Python loop per value.

    Arrow's float64 -> string cast writes the shortest round-trip digits, as ``repr`` does
    (both pick the closest of the shortest candidates), but lays them out differently: "3" for
    3.0, "0.00001" for 1e-05, "1.00000000005e+10" for 10000000000.5. Where ``repr`` writes a
    plain decimal (1e-4 <= |x| < 1e16), the value is not an integer and Arrow wrote no exponent, the
    two are the same text (tests check this over random float64 bit patterns and real scores);
    every other value (integers, tiny and huge magnitudes, infinities: rare in scores) is
    formatted by ``repr`` itself. Measured on 2.25M float32-derived scores (loaded 2-core
    machine, CPU time): 0.45 s for the Arrow cast against 1.4 s for ``repr`` per value."""
    text = arrow.cast(arrow.cast(_numeric(scores), pa.string()), pa.binary())
    off = np.frombuffer(text.buffers()[1], dtype=np.int32, count=len(text) + 1, offset=4 * text.offset)
    data = np.frombuffer(text.buffers()[2], dtype=np.uint8, count=int(off[-1]))
    exponent = np.zeros(len(text), dtype=bool)  # rows whose text has an "e"
    exponent[np.searchsorted(off, np.flatnonzero(data == ord("e")), side="right") - 1] = True
    a = np.abs(scores)
    # A plain decimal of a non-integer has a dot; integers ("3" for 3.0) go to repr().
    odd = ~((a >= 1e-4) & (a < 1e16)) | exponent | (scores == np.floor(scores))
    if odd.any():
        mask = pa.Array.from_buffers(pa.bool_(), len(odd), [None, pa.py_buffer(np.packbits(odd, bitorder="little"))])
        fixed = _binary([repr(v).encode() for v in scores[odd].tolist()])
        text = arrow.call("replace_with_mask", text, mask, fixed)
    return text


def _check_doc_ids(source: str, run: Run) -> None:
    """Every doc id non-empty, at most MAX_ID bytes, free of whitespace, control characters and
    NUL (a NUL inside an ``S`` value would be cut there; padding NULs sit only at the end)."""
    ids = run.docids
    if len(ids) == 0:
        return
    w = ids.dtype.itemsize
    bad = np.zeros(len(ids), dtype=bool)
    step = max(1, (8 << 20) // w)
    for lo in range(0, len(ids), step):
        m = ids[lo : lo + step].view(np.uint8).reshape(-1, w)
        nul = m == 0
        b = ((m <= 32) & ~nul).any(axis=1) | (m == 127).any(axis=1) | nul[:, 0]
        if w > 1:
            b |= (nul[:, :-1] & ~nul[:, 1:]).any(axis=1)  # a NUL before a non-NUL byte
        if w > MAX_ID:
            b |= ~nul[:, MAX_ID:].all(axis=1)
        bad[lo : lo + step] = b
    if bad.any():
        i = int(np.argmax(bad))
        t = int(np.searchsorted(run.offsets, i, side="right")) - 1
        raw = bytes(run.docids.view(np.uint8).reshape(-1, w)[i]).rstrip(b"\0")
        raise DataError(
            source,
            f"topic {run.topics()[t]!r}: doc id {raw.decode('utf-8', 'surrogateescape')!r} is empty, longer than "
            f"{MAX_ID} bytes, or holds whitespace, NUL or a control character: a TREC run cannot hold it",
        )
