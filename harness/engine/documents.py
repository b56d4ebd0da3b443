"""Stored documents: the text an index keeps of each document (the harness indexes with
Anserini's ``-storeRaw``), for showing results next to their text in a notebook or a judging page."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from harness.engine import lucene
from harness.errors import EngineError

__all__ = ["stored_texts"]


def _text(raw: str) -> str:
    """The document's text: the ``contents`` of a JSON document (jsonl and text-folder
    collections are stored as Anserini's JSON), else the raw stored text (trec, html)."""
    if raw.startswith("{"):
        try:
            doc = json.loads(raw)
        except ValueError:
            return raw
        if isinstance(doc, dict) and isinstance(doc.get("contents"), str):
            return doc["contents"]
    return raw


def stored_texts(index_path: str | Path, docids: Iterable[str]) -> dict[str, str | None]:
    """``{docid: text}`` for each given doc id (None when the index has no such document or
    stored no text for it). Opens the index once; starts the JVM if it is not running."""
    utils = lucene.jclass("io.anserini.index.IndexReaderUtils")
    try:
        reader = utils.getReader(str(index_path))
    except Exception as e:
        raise EngineError(f"cannot open index {index_path}: {e}") from e
    try:
        out: dict[str, str | None] = {}
        for d in docids:
            if d not in out:
                raw = utils.documentRaw(reader, d)
                out[d] = None if raw is None else _text(str(raw))
        return out
    finally:
        reader.close()
