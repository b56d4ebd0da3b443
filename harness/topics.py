"""Topic readers: TSV (``qid<TAB>text``), JSONL, TREC ``<top>`` files and any Anserini topic
reader by name (``anserini:Cacm``, ``anserini:TsvString``...). Each returns a list of
``(qid, query text)`` in file order; qids are strings, as in run files and qrels.

TSV and JSONL are read here, strictly and with line numbers; ``trec`` is Anserini's
``TrecTopicReader`` (the query is the ``<title>``), so it starts the JVM, as do the named
Anserini readers.
"""

from __future__ import annotations

import re
import zipfile
from functools import lru_cache
from pathlib import Path

from .errors import DataError
from .files import json_lines

__all__ = ["read_topics", "TOPIC_FORMATS"]

TOPIC_FORMATS = ("tsv", "jsonl", "trec", "anserini:<Reader>")
_JSON_QID = ("qid", "id", "query_id")
_JSON_TEXT = ("query", "text", "title")
_READER_ENTRY = re.compile(r"io/anserini/search/topicreader/([A-Za-z0-9]+)TopicReader\.class\Z")


def read_topics(path: Path, fmt: str = "tsv") -> list[tuple[str, str]]:
    path = Path(path)
    if fmt == "tsv":
        topics = _read_tsv(path)
    elif fmt == "jsonl":
        topics = _read_jsonl(path)
    elif fmt == "trec":
        topics = _read_anserini(path, "Trec")
    elif fmt.startswith("anserini:"):
        topics = _read_anserini(path, fmt.split(":", 1)[1])
    else:
        raise DataError(path, f"unknown topics format {fmt!r}; valid: {', '.join(TOPIC_FORMATS)}")
    if not topics:
        raise DataError(path, "no topics found")
    return topics


def _lines(path: Path):
    try:
        with open(path, encoding="utf-8") as fh:
            yield from enumerate(fh, start=1)
    except UnicodeDecodeError as e:
        raise DataError(path, f"not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise DataError(path, f"cannot read: {e.strerror}") from None


def _add(topics: list, seen: dict, path: Path, lineno: int, qid: str, text: str) -> None:
    if not qid:
        raise DataError(path, "empty topic id", line=lineno)
    if qid in seen:
        raise DataError(path, f"topic {qid!r} already defined on line {seen[qid]}", line=lineno)
    seen[qid] = lineno
    topics.append((qid, text))


def _read_tsv(path: Path) -> list[tuple[str, str]]:
    topics: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for lineno, line in _lines(path):
        line = line.rstrip("\r\n")
        if not line.strip():
            continue
        qid, tab, text = line.partition("\t")
        if not tab:
            raise DataError(path, f"expected 'qid<TAB>query text', found no tab in {line[:60]!r}", line=lineno)
        _add(topics, seen, path, lineno, qid.strip(), text.strip())
    return topics


def _read_jsonl(path: Path) -> list[tuple[str, str]]:
    topics: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for lineno, obj in json_lines(path, _lines(path)):
        if not isinstance(obj, dict):
            raise DataError(path, "expected a JSON object per line", line=lineno)
        qkey = next((k for k in _JSON_QID if k in obj), None)
        tkey = next((k for k in _JSON_TEXT if k in obj), None)
        if qkey is None or tkey is None:
            raise DataError(
                path, f"each object needs an id ({' | '.join(_JSON_QID)}) and a text ({' | '.join(_JSON_TEXT)}); got keys {sorted(obj)}", line=lineno
            )
        _add(topics, seen, path, lineno, str(obj[qkey]).strip(), str(obj[tkey]).strip())
    return topics


@lru_cache(maxsize=1)
def anserini_topic_readers() -> tuple[str, ...] | None:
    """Short names of Anserini's topic readers (``Cacm``, ``TsvString``...), read from the jar's
    entries without starting Java; None when pyserini (and so the jar) is not installed."""
    from .errors import EngineError
    from .lucene import anserini_jar

    try:
        jar = anserini_jar()
    except EngineError:
        return None
    with zipfile.ZipFile(jar) as z:
        return tuple(sorted({m.group(1) for n in z.namelist() if (m := _READER_ENTRY.match(n))}))


def _read_anserini(path: Path, reader: str) -> list[tuple[str, str]]:
    from . import lucene

    readers = anserini_topic_readers() or ()
    if reader not in readers:
        raise DataError(path, f"unknown Anserini topic reader {reader!r}; valid: {', '.join(readers)}")
    cls = lucene.jclass(f"io.anserini.search.topicreader.{reader}TopicReader")
    File = lucene.jclass("java.io.File")
    try:
        topics = cls(File(str(path)).toPath()).read()
    except Exception as e:
        raise DataError(path, f"Anserini's {reader}TopicReader could not read it: {e}") from None
    out = []
    for entry in topics.entrySet().toArray():
        fields = entry.getValue()
        text = fields.get("title")
        if text is None:
            raise DataError(path, f"topic {entry.getKey()} has no title field (fields: {list(fields.keySet().toArray())})")
        out.append((str(entry.getKey()), str(text).strip()))
    return out
