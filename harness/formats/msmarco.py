"""MS MARCO's layouts: its passage collection (``pid<TAB>text`` per line, ``collection.format:
tsv``) and its runs (``qid<TAB>pid<TAB>rank`` per line, no score, no tag: what the official
msmarco_passage_eval.py reads and Pyserini's ``--output-format msmarco`` writes).

**Passages** are converted to the JSON documents Anserini documents for them
(castorini/anserini-tools scripts/msmarco/convert_collection_to_jsonl.py: ``{"id": pid,
"contents": text}``, one file per million passages, ``docs00.json``, ``docs01.json``...), which
IndexCollection then reads as a JsonCollection: the same index, hence the same runs. Each line is
read as that script reads it (a text-mode UTF-8 file, so ``\r``, ``\n`` and ``\r\n`` all end a
line; the line's trailing whitespace stripped, then split at tabs into exactly two fields). Where
the script would stop with a Python exception, or index what the user cannot mean, the harness
stops with an error naming the file and line instead, before anything is indexed:

- a line without a tab, with a second tab (a tab inside the text) or blank: the script's
  ``ValueError``;
- an empty text (``pid<TAB>`` or only whitespace after the tab: stripped, then no second field):
  the script's ``ValueError`` too;
- a byte-order mark at the start of the file: the script (``encoding='utf-8'``) would make it part
  of the first pid, which no qrels line then matches;
- a pid that is not an id (whitespace inside, control characters, too long: harness.formats.hygiene);
- a pid given twice: the script writes both and Anserini indexes two documents under one id, so a
  run could list that pid twice, which trec_eval and msmarco_passage_eval.py refuse ("Cannot rank
  a passage multiple times"); the error names both lines;
- bytes that are not UTF-8 (the script's ``UnicodeDecodeError``).

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

import json
import os
from array import array
from pathlib import Path

import numpy as np

from harness.errors import DataError, warn
from harness.files import atomic_file
from harness.formats.columns import Column, LineMap, TopicColumn
from harness.formats.hygiene import BOM, check_id, field_count_hint
from harness.formats.run import Run
from harness.formats.runs import check_writable_ids
from harness.formats.tokenizer import check_ids, file_size, fixed_bytes, map_blocks, parse_ints

__all__ = ["read_msmarco_run", "write_msmarco_run", "passages_to_json", "PASSAGES_PER_FILE"]

PASSAGES_PER_FILE = 1_000_000  # convert_collection_to_jsonl.py's --max-docs-per-file default

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


def _passages(path: Path, text_limit: int):
    """(line number, pid, text) of each line, read as convert_collection_to_jsonl.py reads it."""
    with open(path, "rb") as fb:
        if fb.read(3) == BOM:
            raise DataError(
                path,
                "starts with a UTF-8 byte-order mark: Anserini's conversion would make it part of the first "
                "passage id (which no qrels line then matches); save the file without it",
                line=1,
            )
    lineno = 0
    try:
        with open(path, encoding="utf-8") as f:  # newline=None: \r, \n and \r\n end a line, as in the script
            for lineno, line in enumerate(f, 1):  # noqa: B007 (read after the loop, for a decoding error)
                fields = line.rstrip().split("\t")
                if len(fields) != 2:
                    if not line.strip():
                        why = "a blank line"
                    elif len(fields) == 1:
                        why = (
                            "an empty text (pid then a tab, and nothing but whitespace)"
                            if "\t" in line
                            else "no tab between the pid and the text"
                        )
                    else:
                        why = f"{len(fields) - 1} tabs (a tab inside the text?)"
                    raise DataError(
                        path,
                        f"expected pid<TAB>text, got {why}: {line.rstrip()[:80]!r} (Anserini's "
                        "convert_collection_to_jsonl.py stops there too)",
                        line=lineno,
                    )
                pid, text = fields
                check_id(path, "passage id", pid, lineno)
                if len(text) > text_limit:
                    raise DataError(
                        path,
                        f"passage {pid!r}: the text is {len(text):,} characters; Anserini's JSON reader (Jackson) "
                        f"refuses strings over {text_limit:,} characters and then drops the whole file",
                        line=lineno,
                    )
                yield lineno, pid, text
    except UnicodeDecodeError as e:
        raise DataError(path, f"not UTF-8 text ({e.reason})", line=_undecodable_line(path)) from None


def _undecodable_line(path: Path) -> int | None:
    """The number of the first line that is not UTF-8, lines counted as text mode counts them
    (``\r``, ``\n``, ``\r\n``); the text reader decodes in blocks and cannot say."""
    before = 0
    with open(path, "rb") as f:
        for raw in f:
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as e:
                return before + raw[: e.start].replace(b"\r\n", b"\n").count(b"\r") + 1
            body = raw.rstrip(b"\n").rstrip(b"\r")
            before += 1 + body.replace(b"\r\n", b"\n").count(b"\r")
    return None


def passages_to_json(files: list[Path], out: Path, text_limit: int, per_file: int = PASSAGES_PER_FILE) -> int:
    """Write the passages of the TSV ``files`` as Anserini's JSON documents under the folder
    ``out`` (module docstring); returns how many there are. DataError with the file and line for
    any line Anserini's conversion would not turn into the document meant."""
    out.mkdir(parents=True, exist_ok=True)
    count, fh = 0, None
    hashes = array("q")
    try:
        for path in files:
            for _, pid, text in _passages(path, text_limit):
                if count % per_file == 0:
                    if fh is not None:
                        fh.close()
                    fh = open(out / f"docs{count // per_file:02d}.json", "w", encoding="utf-8", newline="\n")
                assert fh is not None  # opened at count 0
                fh.write(json.dumps({"id": pid, "contents": text}) + "\n")
                hashes.append(hash(pid))
                count += 1
    finally:
        if fh is not None:
            fh.close()
    _check_unique(files, np.frombuffer(hashes, dtype=np.int64) if count else np.zeros(0, np.int64), text_limit)
    return count


def _check_unique(files: list[Path], hashes: np.ndarray, text_limit: int) -> None:
    """No pid twice: 64-bit hashes sorted (8 bytes a passage), then, only when two hashes meet,
    the files read again to name the lines."""
    s = np.sort(hashes)
    clash = s[1:][s[1:] == s[:-1]]
    if not len(clash):
        return
    suspects = set(clash.tolist())
    first: dict[str, tuple[Path, int]] = {}
    for path in files:
        for lineno, pid, _ in _passages(path, text_limit):
            if hash(pid) in suspects:
                if pid in first:
                    where = first[pid][1] if first[pid][0] == path else f"{first[pid][0]}:{first[pid][1]}"
                    raise DataError(
                        path,
                        f"passage id {pid!r} is given twice (first on line {where}): Anserini would index two "
                        "documents under one id, and a run could then list it twice",
                        line=lineno,
                    )
                first[pid] = (path, lineno)
