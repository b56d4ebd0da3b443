"""Topic readers for TSV (``qid<TAB>text``) and JSONL, strict and with line numbers. Each returns
a list of ``(qid, query text)`` in file order; qids are strings, as in run files and qrels.

TREC ``<top>`` files and Anserini's named readers need the JVM, so they live in the engine
(:mod:`harness.engine.topics`), whose ``read_topics`` accepts every format and delegates these two
here.
"""

from __future__ import annotations

from pathlib import Path

from harness.errors import DataError
from harness.files import json_lines

__all__ = ["read_topics", "TOPIC_FORMATS"]

TOPIC_FORMATS = ("tsv", "jsonl", "trec", "anserini:<Reader>")
_JSON_QID = ("qid", "id", "query_id")
_JSON_TEXT = ("query", "text", "title")


def read_topics(path: Path, fmt: str = "tsv") -> list[tuple[str, str]]:
    """Topics of a ``tsv`` or ``jsonl`` file (``harness.engine.topics.read_topics`` reads every format)."""
    path = Path(path)
    if fmt == "tsv":
        topics = _read_tsv(path)
    elif fmt == "jsonl":
        topics = _read_jsonl(path)
    else:
        raise DataError(
            path,
            f"topics format {fmt!r} is not a plain file format; valid here: tsv, jsonl "
            f"(all formats: {', '.join(TOPIC_FORMATS)})",
        )
    return _nonempty(path, topics)


def _nonempty(path: Path, topics: list[tuple[str, str]]) -> list[tuple[str, str]]:
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
                path,
                f"each object needs an id ({' | '.join(_JSON_QID)}) and a text ({' | '.join(_JSON_TEXT)}); got keys {sorted(obj)}",
                line=lineno,
            )
        _add(topics, seen, path, lineno, str(obj[qkey]).strip(), str(obj[tkey]).strip())
    return topics
