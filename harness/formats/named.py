"""Topics and qrels named rather than given as files: ``pyserini:NAME`` (a file in Pyserini's
local cache, :mod:`harness.formats.pyserini_cache`) and ``irds:ID`` (an ir_datasets id, read from
its local cache, :mod:`harness.formats.irds`). Every door resolves them here: the config's
``topics: {pyserini: NAME}`` / ``{irds: ID}`` (and ``qrels:`` likewise), the command line's and the
Python API's ``pyserini:NAME`` / ``irds:ID`` strings where a topics or qrels file is taken.

A name resolves to a ``(path, format)`` pair that the readers take like a file's: a Pyserini topic
set to its cached file and ``anserini:<Reader>`` (the reader Pyserini's registry names), Pyserini
qrels to their cached TREC file; an ir_datasets id to the folder its data lives in and the format
``irds:ID`` (``irds:ID#FIELD`` for topics read from a named query field).
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeGuard

from harness.formats import irds, pyserini_cache
from harness.formats.catalog import ANSERINI_TOPICS, IRDS_TOPICS, TopicFormat
from harness.formats.qrels import Qrels, read_qrels, read_qrels_file

__all__ = [
    "PYSERINI",
    "IRDS",
    "is_named",
    "resolve_topics",
    "resolve_qrels",
    "read_qrels_as",
    "read_user_qrels",
]

PYSERINI = "pyserini:"
IRDS = irds.PREFIX


def is_named(text: object) -> TypeGuard[str]:
    """Whether ``text`` (a path or a string) names cached data: ``pyserini:NAME`` or ``irds:ID``."""
    return isinstance(text, str) and text.startswith((PYSERINI, IRDS)) and len(text.split(":", 1)[1].strip()) > 0


def resolve_topics(kind: str, name: str, field: str | None = None) -> tuple[Path, TopicFormat]:
    """``(path, format)`` of a named topic set (``kind``: pyserini or irds); raises
    :class:`~harness.formats.pyserini_cache.MissingFromCache` when it is not in the cache."""
    if kind == "pyserini":
        path, reader = pyserini_cache.topics_file(name)
        return path, ANSERINI_TOPICS.of(reader)
    irds.read_topics(name, field)  # checked in full now: ids, texts, the field
    return irds.folder(name), IRDS_TOPICS.of(name + (f"#{field}" if field else ""))


def resolve_qrels(kind: str, name: str) -> tuple[Path, str]:
    """``(path, format)`` of named qrels; ``format`` is ``trec`` (a file) or ``irds:ID``."""
    if kind == "pyserini":
        return pyserini_cache.qrels_file(name), "trec"
    return irds.check(name, "qrels"), f"{IRDS}{name}"


def split(text: str) -> tuple[str, str]:
    """``pyserini:NAME`` -> (pyserini, NAME); ``irds:ID`` -> (irds, ID)."""
    kind, name = text.split(":", 1)
    return kind, name.strip()


def read_qrels_as(path, fmt: str = "trec") -> Qrels:
    """The qrels ``(path, format)`` names: a TREC file, or an ir_datasets id's judgments."""
    if fmt.startswith(IRDS):
        return irds.read_qrels(fmt[len(IRDS) :])
    return read_qrels(path)


def read_user_qrels(path, *, beir: bool = True) -> Qrels:
    """The judgments a user names at a door (``harness evaluate``, ``compare``, ``trec_eval``, the
    API): ``pyserini:NAME`` or ``irds:ID`` from a local cache, else a qrels file
    (harness.formats.qrels.read_qrels_file; ``beir``: BEIR's qrels TSV too)."""
    if is_named(path):
        return read_named_qrels(path)
    return read_qrels_file(path, beir=beir)


def read_named_qrels(text: str) -> Qrels:
    """The qrels a ``pyserini:NAME`` or ``irds:ID`` string names (the CLI's and the API's door)."""
    path, fmt = resolve_qrels(*split(text))
    return read_qrels_as(path, fmt)
