"""Topic readers for TSV (``qid<TAB>text``) and JSONL, strict and with line numbers. Each returns
a list of ``(qid, query text)`` in file order; qids are strings, as in run files and qrels.

Hygiene (:mod:`harness.formats.hygiene`): a leading BOM is skipped; lines over 1 MiB, text that
is not UTF-8, qids with whitespace or control characters, and empty query texts are errors
naming the file and line. A TSV line's query is its second field (more fields are ignored with
a warning, as Anserini's TSV readers ignore them). A TSV whose first line looks like a header
(``qid<TAB>query``, ``id<TAB>text``...) has that line skipped with a warning: no topic is called
``qid``, and a header is what spreadsheets export.

TREC ``<top>`` files and Anserini's named readers need the JVM, so they live in the engine
(:mod:`harness.engine.topics`), whose ``read_topics`` accepts every format and delegates these two
here.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness.errors import DataError, warn
from harness.files import write_text_atomic
from harness.formats.catalog import (
    BEIR_TOPICS,
    JSONL_TOPICS,
    TOPIC_FORMATS,
    TSV_TOPICS,
    TopicFormat,
    choices,
    topic_format,
)
from harness.formats.hygiene import check_id, json_kind, json_values, numbered_lines

__all__ = ["read_topics", "write_topics", "HEADER_IDS", "HEADER_TEXTS", "JSON_QID", "JSON_TEXT"]

JSON_QID = ("qid", "id", "query_id", "_id")  # _id: BEIR's queries.jsonl
JSON_TEXT = ("query", "text", "title")
# A TSV first line "<one of HEADER_IDS><TAB><one of HEADER_TEXTS>" (any case) is a header.
HEADER_IDS = ("qid", "query_id", "queryid", "query-id", "topic", "topic_id", "topicid", "id", "num", "number", "qno")
HEADER_TEXTS = ("query", "text", "title", "question", "query_text", "querytext", "topic", "description", "keywords")


def read_topics(path: Path, fmt: TopicFormat | str = TSV_TOPICS) -> list[tuple[str, str]]:
    """Topics of a ``tsv``, ``jsonl`` or ``beir`` file (``harness.engine.topics.read_topics`` reads
    every format); ``fmt`` a format of harness.formats.catalog, or its name."""
    path = Path(path)
    known = topic_format(fmt) if isinstance(fmt, str) else fmt
    read = None if known is None else _READERS.get(known)
    if read is None:
        raise DataError(
            path,
            f"topics format {str(fmt)!r} is not a plain file format; valid here: {', '.join(map(str, _READERS))} "
            f"(all formats: {', '.join(choices(TOPIC_FORMATS))})",
        )
    return nonempty(path, read(path))


def write_topics(path: Path, topics: list[tuple[str, str]], fmt: TopicFormat | str = TSV_TOPICS) -> None:
    """Write ``(qid, text)`` pairs so that :func:`read_topics` reads them back identically
    (ids and texts must be what the reader accepts; TSV texts hold no tab or line break);
    ``fmt``: tsv, else JSON lines."""
    tsv = (topic_format(fmt) if isinstance(fmt, str) else fmt) is TSV_TOPICS
    lines = []
    for qid, text in topics:
        if tsv:
            lines.append(f"{qid}\t{text}\n")
        else:
            lines.append(json.dumps({"qid": qid, "query": text}, ensure_ascii=False) + "\n")
    body = "".join(lines)
    if body.startswith("\ufeff"):  # an id starting with U+FEFF: readers drop a leading BOM, so one goes first
        body = "\ufeff" + body
    write_text_atomic(Path(path), body)


def nonempty(path: Path, topics: list[tuple[str, str]]) -> list[tuple[str, str]]:
    if not topics:
        raise DataError(path, "no topics found")
    return topics


def _add(topics: list, seen: dict, path: Path, lineno: int | None, qid: str, text: str) -> None:
    if not qid:
        raise DataError(path, "empty topic id", line=lineno)
    check_id(path, "topic id", qid, lineno)
    if not text:
        raise DataError(path, f"topic {qid!r} has an empty query text", line=lineno)
    if qid in seen:
        raise DataError(path, f"topic {qid!r} already defined on line {seen[qid]}", line=lineno)
    seen[qid] = lineno
    topics.append((qid, text))


def is_header(qid: str, text: str) -> bool:
    return qid.strip().lower() in HEADER_IDS and text.strip().lower() in HEADER_TEXTS


def _read_tsv(path: Path) -> list[tuple[str, str]]:
    """As Anserini's TsvString/TsvInt topic readers read a line (``line.trim().split("\\t")``, the
    query the second field, trimmed), with hygiene: blank lines skipped, a header skipped with a
    warning, ids checked, and a warning (once) when a line has fields after the query."""
    topics: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    first, extra = True, False
    for lineno, line in numbered_lines(path):
        if not line.strip():
            continue
        line = line.rstrip("\r\n")
        qid, tab, text = line.partition("\t")
        if not tab:
            raise DataError(path, f"expected 'qid<TAB>query text', found no tab in {line[:60]!r}", line=lineno)
        text, _, rest = text.partition("\t")
        if rest.strip() and not extra:  # Anserini trims the line first: trailing tabs make no field
            extra = True
            warn(
                f"{path}:{lineno}: more than two tab-separated fields; the query is the second "
                "(the rest of the line is ignored, as Anserini's TSV topic readers ignore it)"
            )
        if first and is_header(qid, text):
            warn(f"{path}:{lineno}: skipped {line[:60]!r}: it looks like a header row, not a topic")
            first = False
            continue
        first = False
        _add(topics, seen, path, lineno, qid.strip(), text.strip())
    return topics


def _read_jsonl(path: Path) -> list[tuple[str, str]]:
    topics: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for lineno, obj in json_values(path, numbered_lines(path)):
        if not isinstance(obj, dict):
            raise DataError(path, "expected a JSON object per line", line=lineno)
        qkey = next((k for k in JSON_QID if k in obj), None)
        tkey = next((k for k in JSON_TEXT if k in obj), None)
        if qkey is None or tkey is None:
            raise DataError(
                path,
                f"each object needs an id ({' | '.join(JSON_QID)}) and a text ({' | '.join(JSON_TEXT)}); got keys {sorted(obj)}",
                line=lineno,
            )
        qid, text = obj[qkey], obj[tkey]
        if isinstance(qid, bool) or not isinstance(qid, (str, int)):
            raise DataError(path, f'"{qkey}" must be a string or an integer (it is {json_kind(qid)})', line=lineno)
        if not isinstance(text, str):
            raise DataError(path, f'"{tkey}" must be a string (it is {json_kind(text)})', line=lineno)
        _add(topics, seen, path, lineno, str(qid).strip(), text.strip())
    return topics


def _read_beir(path: Path) -> list[tuple[str, str]]:
    """BEIR's queries.jsonl: one ``{"_id", "text"}`` object per line (``metadata`` and any other
    key ignored), the query its ``text``, trimmed as Anserini's TsvString reader trims the
    query of Pyserini's BEIR topic files."""
    topics: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for lineno, obj in json_values(path, numbered_lines(path)):
        if not isinstance(obj, dict):
            raise DataError(path, 'expected a JSON object {"_id": ..., "text": ...} per line', line=lineno)
        qid, text = obj.get("_id"), obj.get("text")
        if isinstance(qid, bool) or not isinstance(qid, (str, int)):
            got = "missing" if "_id" not in obj else json_kind(qid)
            raise DataError(path, f'"_id" must be a string or an integer (it is {got})', line=lineno)
        if not isinstance(text, str):
            got = "missing" if "text" not in obj else json_kind(text)
            raise DataError(path, f'"text" must be a string (it is {got})', line=lineno)
        _add(topics, seen, path, lineno, str(qid).strip(), text.strip())
    return topics


# The formats read here, each by its reader
_READERS = {TSV_TOPICS: _read_tsv, JSONL_TOPICS: _read_jsonl, BEIR_TOPICS: _read_beir}
