"""Topics in every format: ``tsv`` and ``jsonl`` through :mod:`harness.formats.topics`, ``trec``
through Anserini's ``TrecTopicReader`` (the query is the ``<title>``) and any Anserini topic reader
by name (``anserini:Cacm``, ``anserini:TsvString``...), which start the JVM."""

from __future__ import annotations

import re
import zipfile
from functools import lru_cache
from pathlib import Path

from harness.errors import DataError, EngineError
from harness.formats import topics as plain
from harness.formats.topics import TOPIC_FORMATS

__all__ = ["read_topics", "anserini_topic_readers", "TOPIC_FORMATS"]

_READER_ENTRY = re.compile(r"io/anserini/search/topicreader/([A-Za-z0-9]+)TopicReader\.class\Z")


def read_topics(path: Path, fmt: str = "tsv") -> list[tuple[str, str]]:
    path = Path(path)
    if fmt in ("tsv", "jsonl"):
        return plain.read_topics(path, fmt)
    if fmt == "trec":
        return plain._nonempty(path, _read_anserini(path, "Trec"))
    if fmt.startswith("anserini:"):
        return plain._nonempty(path, _read_anserini(path, fmt.split(":", 1)[1]))
    raise DataError(path, f"unknown topics format {fmt!r}; valid: {', '.join(TOPIC_FORMATS)}")


@lru_cache(maxsize=1)
def anserini_topic_readers() -> tuple[str, ...] | None:
    """Short names of Anserini's topic readers (``Cacm``, ``TsvString``...), read from the jar's
    entries without starting Java; None when pyserini (and so the jar) is not installed."""
    from harness.engine.lucene import anserini_jar

    try:
        jar = anserini_jar()
    except EngineError:
        return None
    with zipfile.ZipFile(jar) as z:
        return tuple(sorted({m.group(1) for n in z.namelist() if (m := _READER_ENTRY.match(n))}))


def _read_anserini(path: Path, reader: str) -> list[tuple[str, str]]:
    from harness.engine import lucene  # lazily: the JVM starts only for these formats

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
            raise DataError(
                path, f"topic {entry.getKey()} has no title field (fields: {list(fields.keySet().toArray())})"
            )
        out.append((str(entry.getKey()), str(text).strip()))
    return out
