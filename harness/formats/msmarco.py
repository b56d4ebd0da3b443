"""MS MARCO's run layout: ``qid<TAB>pid<TAB>rank`` per line, no score, no tag (what the official
msmarco_passage_eval.py reads and Pyserini's ``--output-format msmarco`` writes).

Reading (``--run-format msmarco``, ``format: msmarco``, ``run_format="msmarco"``): exactly three
fields per line, separated by tabs or spaces; the rank an integer >= 1 (else an error naming the
line: Anserini's conversion divides by it). Each row's score is ``1.0 / rank``, the float64 that
Anserini's own conversion to a TREC run writes (castorini/anserini-tools,
scripts/msmarco/convert_msmarco_to_trec_run.py), so a run read here gives every measure, fused
result and comparison that the converted TREC file gives, bit for bit. trec_eval orders a topic's
rows by score descending, then doc id descending, so the rank order is kept; two rows of one
topic given the same rank tie, and trec_eval puts the larger doc id first (a warning names the
first such pair: msmarco_passage_eval.py keeps only the later of the two lines). The ranks are
kept as ``Run.ranks`` (reciprocal rank fusion reads them, as for a TREC run).

Writing: ranks 1..n in the run's order, as Pyserini's MS MARCO writer does; atomic.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from harness.errors import DataError, warn
from harness.files import atomic_file
from harness.formats.hygiene import field_count_hint
from harness.formats.runs import Run, check_writable_ids
from harness.formats.tokenizer import (
    Column,
    LineMap,
    TopicColumn,
    check_ids,
    file_size,
    fixed_bytes,
    map_blocks,
    parse_ints,
)

__all__ = ["read_msmarco_run", "write_msmarco_run"]

_WHAT = "MS MARCO run: qid<TAB>pid<TAB>rank"
_HINTS = {
    6: "Six fields are a TREC run (qid Q0 docid rank score tag): read it without --run-format msmarco (format: trec)",
    4: "Four fields are TREC qrels (qid iter docid rel), not a run",
}


def read_msmarco_run(path: str | os.PathLike, *, duplicates: str = "error") -> Run:
    """Read an MS MARCO run file (module docstring); DataError with the line for a wrong field
    count, a rank that is not an integer >= 1, an over-long id or line, a control character, and
    a document listed twice for one topic (unless ``duplicates="drop"``: the first row is kept)."""
    source = str(path)
    topics = TopicColumn()
    size = file_size(path)
    ids, ranks, lines = Column(size), Column(size), LineMap()

    def columns(block):  # on a worker thread
        check_ids(block, 0, source, "topic id")
        check_ids(block, 1, source, "passage id")
        r = parse_ints(block, 2, source, "rank (field 3)")
        bad = np.flatnonzero(r < 1)
        if len(bad):
            i = int(bad[0])
            raise DataError(
                source, f"rank (field 3) must be 1 or more, got {int(r[i])}: ranks start at 1", line=block.line(i)
            )
        return TopicColumn.segments(block), fixed_bytes(block, 1), r, LineMap.of(block), len(block.body)

    try:
        for line0, (segs, block_ids, block_ranks, line_info, nbytes) in map_blocks(path, 3, _WHAT, columns):
            topics.add(segs)
            ids.append(block_ids, nbytes)
            ranks.append(block_ranks, nbytes)
            lines.add(line_info, line0)
    except DataError as e:
        raise field_count_hint(e, _HINTS) from None
    names, offsets, order = topics.grouping()
    docids = ids.result(np.zeros(0, dtype="S8"))
    rank_arr = ranks.result(np.zeros(0, dtype=np.int64))
    if order is not None:
        docids, rank_arr, lines.order = docids[order], rank_arr[order], order
    _warn_repeated_ranks(source, names, offsets, rank_arr, lines)
    # 1.0 / rank: the score Anserini's convert_msmarco_to_trec_run.py writes (Python's float
    # division; its text, repr, reads back to the same float64)
    run = Run(names, offsets, docids, 1.0 / rank_arr.astype(np.float64), source, rank_arr)
    return run.deduped(duplicates, lines)


def _warn_repeated_ranks(source: str, names, offsets, ranks: np.ndarray, lines: LineMap) -> None:
    """A warning naming the first topic where two rows share a rank, and how many topics do."""
    if len(ranks) < 2:
        return
    seg = np.repeat(np.arange(len(names), dtype=np.int64), np.diff(offsets))
    order = np.lexsort((ranks, seg))
    same = (seg[order][1:] == seg[order][:-1]) & (ranks[order][1:] == ranks[order][:-1])
    if not same.any():
        return
    k = int(np.argmax(same))
    a, b = sorted((int(order[k]), int(order[k + 1])))
    topics = len(np.unique(seg[order][1:][same]))
    warn(
        f"{source}: rank {int(ranks[a])} is given twice for topic {names[seg[a]]!r} (lines {lines[a]} and "
        f"{lines[b]})" + (f", and ranks repeat in {topics - 1} other topics" if topics > 1 else "") + ": their "
        "scores (1/rank) tie and trec_eval orders them by doc id; msmarco_passage_eval.py keeps only the later line"
    )


def write_msmarco_run(path: str | os.PathLike, run: Run) -> None:
    """Write ``run`` as an MS MARCO run file (``qid<TAB>pid<TAB>rank``, ranks 1..n in the run's
    order, as Pyserini's MS MARCO writer numbers them), atomically. Ids a line cannot hold are a
    DataError before the file is touched."""
    source = str(path)
    names = check_writable_ids(source, run)
    with atomic_file(Path(path)) as (f, _):
        for t, qid in enumerate(names):
            lo, hi = int(run.offsets[t]), int(run.offsets[t + 1])
            docs = run.docids[lo:hi].tolist()  # numpy drops the NUL padding
            f.write(b"".join(b"%s\t%s\t%d\n" % (qid, d, i) for i, d in enumerate(docs, 1)))
