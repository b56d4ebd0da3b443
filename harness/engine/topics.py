"""Topics in every format: ``tsv`` and ``jsonl`` through :mod:`harness.formats.topics`, ``trec``
through Anserini's ``TrecTopicReader`` (the query is the ``<title>``) and any Anserini topic reader
by name (``anserini:Cacm``, ``anserini:TsvString``...), which start the JVM. A file read by an
Anserini reader may be gzipped (its name ends in ``.gz``): Anserini's ``TopicReader`` reads it so,
and Pyserini's cache holds many topic sets so (BEIR's ``topics.beir-v1.0.0-*.tsv.gz``)."""

from __future__ import annotations

import gzip
import re
import shutil
import tempfile
import zipfile
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from harness.engine import lucene
from harness.engine.lucene import anserini_jar
from harness.engine.vectors import read_vector_topics
from harness.errors import DataError, EngineError
from harness.formats import irds
from harness.formats import topics as plain
from harness.formats.catalog import TOPIC_FORMATS, TSV_TOPICS, TopicFormat, choices, topic_format
from harness.formats.hygiene import BOM, check_id, numbered_lines, regular_file
from harness.formats.impact import read_impact_topics
from harness.formats.named import read_qrels_as

__all__ = ["read_topics", "anserini_topic_readers"]

_READER_ENTRY = re.compile(r"io/anserini/search/topicreader/([A-Za-z0-9]+)TopicReader\.class\Z")


def read_topics(
    path: Path, fmt: TopicFormat | str = TSV_TOPICS, qrels: tuple[Path, str] | None = None
) -> list[tuple[str, str]]:
    """The topics of ``path`` in the format ``fmt`` (harness.formats.catalog; or its name).
    ``qrels``: the config's judgments, ``(path, format)``; BEIR queries (``beir``) are then only
    those the qrels judge (:func:`judged_queries`). Every other format is read whole."""
    path = Path(path)
    if isinstance(fmt, str):
        known = topic_format(fmt)
        if known is None:
            raise DataError(path, f"unknown topics format {fmt!r}; valid: {', '.join(choices(TOPIC_FORMATS))}")
        fmt = known
    if fmt.reader is not None:  # TrecTopicReader, or any reader of Anserini's by name
        return plain.nonempty(path, _read_anserini(path, fmt.reader))
    if fmt.dataset is not None:  # ``irds:ID`` or ``irds:ID#FIELD`` (harness.formats.named)
        return irds.read_topics(*fmt.dataset)
    if fmt.dense:
        return read_vector_topics(path)
    if fmt.weights:
        return read_impact_topics(path)
    topics = plain.read_topics(path, fmt)
    return judged_queries(topics, qrels) if fmt.judged_split and qrels is not None else topics


def judged_queries(topics: list[tuple[str, str]], qrels: tuple[Path, str]) -> list[tuple[str, str]]:
    """The BEIR queries a split's qrels judge, in the order of queries.jsonl. A BEIR folder has one
    queries.jsonl for all its splits, and the split is chosen by its qrels file (qrels/test.tsv):
    Pyserini's and Anserini's BEIR topics (topics.beir-v1.0.0-*.test.tsv.gz) are the queries of
    the test qrels, and so are these. A qrels line of any label counts (0 included). When no
    query is judged, all are returned and the check of topic ids against the qrels says so."""
    judged = set(read_qrels_as(*qrels).topics())
    kept = [(qid, text) for qid, text in topics if qid in judged]
    return kept or topics


@lru_cache(maxsize=1)
def anserini_topic_readers() -> tuple[str, ...] | None:
    """Short names of Anserini's topic readers (``Cacm``, ``TsvString``...), read from the jar's
    entries without starting Java; None when pyserini (and so the jar) is not installed."""
    try:
        jar = anserini_jar()
    except EngineError:
        return None
    with zipfile.ZipFile(jar) as z:
        return tuple(sorted({m.group(1) for n in z.namelist() if (m := _READER_ENTRY.match(n))}))


def _read_anserini(path: Path, reader: str) -> list[tuple[str, str]]:
    readers = anserini_topic_readers() or ()
    if reader not in readers:
        raise DataError(path, f"unknown Anserini topic reader {reader!r}; valid: {', '.join(readers)}")
    blocks = _trec_blocks(path) if reader == "Trec" else None
    with _clean_copy(path) as readable:  # checked before Java starts
        cls = lucene.jclass(f"io.anserini.search.topicreader.{reader}TopicReader")
        File = lucene.jclass("java.io.File")
        try:
            topics = cls(File(str(readable)).toPath()).read()
        except Exception as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__  # no Java stack trace
            raise DataError(path, f"Anserini's {reader}TopicReader could not read it: {first}") from None
    out = []
    for entry in topics.entrySet().toArray():
        fields = entry.getValue()
        text = fields.get("title")
        qid = check_id(path, "topic id", str(entry.getKey()).strip())
        if text is None:
            raise DataError(path, f"topic {qid} has no title field (fields: {list(fields.keySet().toArray())})")
        if not str(text).strip():
            raise DataError(path, f"topic {qid!r} has an empty title (the query text)")
        out.append((qid, str(text).strip()))
    if blocks is not None and len(out) != blocks:  # a safety net: _trec_blocks should have said why
        raise DataError(
            path, f"Anserini's TrecTopicReader read {len(out)} topics from {blocks} <top> blocks; check each block"
        )
    return out


def _trec_blocks(path: Path) -> int:
    """The number of ``<top`` blocks of a TREC topics file, after checking that Anserini's
    ``TrecTopicReader`` reads each as a topic of its own. It finds each tag as the *start* of a
    line and reads on past the block when a tag is missing: a topic without ``<narr>`` took the
    following topics as its description (they were dropped without a word), one without
    ``<desc>`` or ``</top>`` likewise, and one without ``<num>`` or ``<title>`` failed with a
    Java NullPointerException. Ids are Java ints: ``301`` and ``0301`` are one topic there."""
    lines = [
        (n, part) for n, text in _lines(path) for part in text.rstrip("\r\n").split("\r")
    ]  # Java's readLine ends a line at \n, \r or \r\n
    starts = [i for i, (_, text) in enumerate(lines) if text.startswith("<top")]
    if not starts:
        raise DataError(path, "no line starts with <top>: not TREC topics (<top> <num> <title> <desc> <narr> </top>)")
    seen: dict[int, int] = {}
    for b, lo in enumerate(starts):
        hi = starts[b + 1] if b + 1 < len(starts) else len(lines)
        last = hi == len(lines)
        block, at = lines[lo + 1 : hi], lines[lo][0]
        where = {tag: next((i for i, (_, t) in enumerate(block) if t.startswith(tag)), None) for tag in _TREC_TAGS}
        order = [where[t] for t in ("<num>", "<title>", "<desc>")]
        missing = next((t for t, i in zip(("<num>", "<title>", "<desc>"), order) if i is None), None)
        found = [i for i in order if i is not None]  # all three when none is missing
        narr = where["<narr>"]
        if missing is None and not found[0] < found[1] < found[2]:
            missing = "<num>, <title>, <desc> in this order:"
        elif missing is None and not last and narr is None:
            missing = "<narr>"
        elif missing is None and not last and narr is not None and not block[narr][1].endswith("</narr>"):
            if where["</top>"] is None:
                missing = "</top>"
        if missing:
            raise DataError(
                path,
                f"the topic starting here has no line starting with {missing.rstrip(':')}: Anserini's "
                "TrecTopicReader would read on into the next topic, and drop it, or fail. Give every topic "
                "<num>, <title>, <desc>, <narr> and </top> lines, each tag at the start of its line (an empty "
                "<narr> is fine), or write the topics as tsv or jsonl",
                line=at,
            )
        n, text = block[found[0]]
        k = text.find(":")
        qid = text[(k if k != -1 else text.find(">")) + 1 :].replace("</num>", "").strip()
        if not re.fullmatch(r"[+-]?\d+", qid) or not -(2**31) <= int(qid) < 2**31:
            raise DataError(
                path, f"topic number {qid!r} is not an integer: Anserini's TrecTopicReader needs one", line=n
            )
        if int(qid) in seen:
            raise DataError(
                path, f"topic {int(qid)} is numbered already on line {seen[int(qid)]} (ids are integers there)", line=n
            )
        seen[int(qid)] = n
    return len(starts)


_TREC_TAGS = ("<num>", "<title>", "<desc>", "<narr>", "</top>")


def _lines(path: Path):
    """``numbered_lines`` of a topics file as Anserini's TopicReader reads it: decompressed when
    its name ends in ``.gz`` (a file that is not gzip is then a DataError saying so)."""
    if not path.name.endswith(".gz"):
        yield from numbered_lines(path)
        return
    regular_file(path, "topics file")
    with gzip.open(path, "rb") as fh:
        yield from numbered_lines(path, fh)


@contextmanager
def _clean_copy(path: Path):
    """The file Anserini should read: ``path`` itself once it is known to be a regular UTF-8
    file with lines under the limit (Java would block on a FIFO and read a 10 GB line); a
    temporary copy without the byte-order mark when it starts with one (Java keeps it as
    part of the first tag or id; a gzipped one is copied decompressed)."""
    regular_file(path, "topics file")
    for _ in _lines(path):
        pass
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as fh:
        bom = fh.read(len(BOM)) == BOM
    if not bom:
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="harness-topics-") as tmp:
        copy = Path(tmp) / path.name.removesuffix(".gz")
        with opener(path, "rb") as src, open(copy, "wb") as dst:
            src.seek(len(BOM))
            shutil.copyfileobj(src, dst)
        yield copy
