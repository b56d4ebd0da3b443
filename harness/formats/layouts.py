"""What a data file is, told from its first lines: the one place where the harness names a file's
layout by looking at it. A BEIR corpus shows itself by its ``"_id"``, ``"title"`` and ``"text"``
keys, MS MARCO's passages by a tab between an id and a text, BEIR's qrels by their header line,
TREC files by their ``<DOC>`` or ``<top>`` tag. :data:`LAYOUTS` says, for each layout, which
collection and topics formats read it (the first of each is the one to write), so that a file
given under the wrong format is refused with the format it needs, and a collection given as a
plain path is read as the one format its lines show (harness.config.layouts).

Only the first :data:`SNIFF_LINES` non-blank lines are read, each up to
:data:`~harness.formats.hygiene.LINE_LIMIT` bytes: enough to name the layout, whatever the size of
the file. Measured (a 2-core machine shared with other work): 0.09-0.12 ms per file, for a 165 MB
BEIR corpus of 200,000 documents as for Cranfield's corpus.jsonl. The full check of every document
that indexing runs (harness.engine.contents.check_contents) took 1.2 s on that BEIR corpus (every line parsed) and
0.7 s on the same documents as JSON lines (a byte scan): 15-25 s for MS MARCO's 3.6 GB of passages,
too much for every ``harness validate``. A line beyond the first few that breaks the layout is
still found, with its file and line, by that full check when the collection is indexed."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from harness.errors import DataError
from harness.formats.catalog import (
    BEIR,
    BEIR_TOPICS,
    IMPACT,
    IMPACT_TOPICS,
    JSONL,
    JSONL_TOPICS,
    TREC,
    TREC_TOPICS,
    TSV,
    TSV_TOPICS,
    VECTOR_TOPICS,
    VECTORS,
    CollectionFormat,
    TopicFormat,
)
from harness.formats.hygiene import numbered_lines, regular_file
from harness.formats.qrels import BEIR_HEADER
from harness.formats.topics import JSON_QID, JSON_TEXT

__all__ = ["SNIFF_LINES", "Layout", "LAYOUTS", "Sniffed", "sniff", "line_layout", "reads"]

SNIFF_LINES = 5  # non-blank lines read from the top of a file (module docstring)
_PARQUET = b"PAR1"  # a Parquet file's first four bytes


@dataclass(frozen=True)
class Layout:
    """A layout of lines: ``what`` it is and its ``shape`` in words, and the formats that read it,
    as a collection (``collection``) and as topics (``topics``); the first of each is the one to write."""

    name: str
    what: str
    shape: str = ""
    collection: tuple[CollectionFormat, ...] = ()
    topics: tuple[TopicFormat, ...] = ()
    header: bool = False  # shown by a file's first line alone (the lines after it are of other shapes)


LAYOUTS = {
    layout.name: layout
    for layout in (
        Layout("beir-queries", "BEIR queries", '"_id", "text"', (), (BEIR_TOPICS, JSONL_TOPICS)),
        Layout("beir-corpus", "BEIR corpus documents", '"_id", "title", "text"', (BEIR,), (BEIR_TOPICS, JSONL_TOPICS)),
        Layout("json-docs", "documents as JSON lines", '"id", "contents"', (JSONL,)),
        Layout("json-topics", "topics as JSON lines", "an id and a query text", (), (JSONL_TOPICS,)),
        Layout("weights", "term weights", '"id", "vector": {term: weight}', (IMPACT,), (IMPACT_TOPICS,)),
        Layout(
            "weights-text",
            "term weights with a text",
            '"id", "contents", "vector": {term: weight}',
            (IMPACT, JSONL),
            (IMPACT_TOPICS,),
        ),
        Layout("query-weights", "query term weights", '"qid", "vector": {term: weight}', (), (IMPACT_TOPICS,)),
        Layout("doc-vectors", "document vectors", '"docid", "vector": [...]', (VECTORS,)),
        Layout("query-vectors", "query vectors", '"qid", "vector": [...]', (), (VECTOR_TOPICS,)),
        Layout("parquet", "Parquet data (vectors)", "", (VECTORS,), (VECTOR_TOPICS,)),
        Layout("json", "JSON objects of no layout the harness reads"),
        Layout("tsv", "tab-separated id and text", "`id<TAB>text`", (TSV,), (TSV_TOPICS,)),
        Layout("tsv-wide", "tab-separated lines of three or more fields", "", (), (TSV_TOPICS,)),
        Layout("beir-qrels", "BEIR's qrels", "`query-id<TAB>corpus-id<TAB>score`, then a judgment a line", header=True),
        Layout("trec-docs", "TREC documents", "<DOC>", (TREC,), header=True),
        Layout("trec-topics", "TREC topics", "<top>", (), (TREC_TOPICS,), header=True),
    )
}


def reads(role: str, fmt: CollectionFormat | TopicFormat) -> str | None:
    """What the ``role`` ("collection" or "topics") format ``fmt`` reads, in words (the layout
    it is the format to write for), or None when no layout here is its own.

    >>> reads("collection", JSONL)
    'documents as JSON lines ("id", "contents")'
    """
    own = next((x for x in LAYOUTS.values() if getattr(x, role)[:1] == (fmt,)), None)
    return None if own is None else f"{own.what} ({own.shape})" if own.shape else own.what


@dataclass(frozen=True)
class Sniffed:
    """The first lines of ``path``: each line read (its number, its layout or None, what it holds
    in words), and ``layout``, the one they all show (None when they show none, or differ)."""

    path: Path
    lines: tuple[tuple[int, Layout | None, str], ...]
    compressed: bool = False  # read through gzip (a .gz file)

    @property
    def layout(self) -> Layout | None:
        if self.lines and self.lines[0][1] is not None and self.lines[0][1].header:
            return self.lines[0][1]
        kinds = {layout for _, layout, _ in self.lines}
        return next(iter(kinds)) if len(kinds) == 1 else None

    def evidence(self) -> str:
        """Where and what shows the layout: ``/data/corpus.jsonl:1 holds a JSON object with the keys
        "_id", "title", "text"``; for lines that differ, the first two of them."""
        if not self.lines:
            return f"{self.path} holds no line to read"
        lineno, _, shown = self.lines[0]
        where = f"{self.path}:{lineno}" if lineno else str(self.path)
        other = next(((n, s) for n, x, s in self.lines if x is not self.lines[0][1]), None)
        if self.layout is not None or other is None:
            return f"{where} holds {shown}"
        return f"{where} holds {shown}, and line {other[0]} {other[1]}"


def sniff(path: Path) -> Sniffed:
    """The first :data:`SNIFF_LINES` non-blank lines of the file ``path`` and their layouts (a .gz
    file read through gzip). Reading stops at the first line that cannot be read (not UTF-8, too
    long, a corrupt .gz): the readers of the data say what is wrong with it, with its line, when
    they read it; this only names a layout, from the lines before."""
    path = Path(path)
    lines: list[tuple[int, Layout | None, str]] = []
    compressed = path.name.endswith(".gz")
    try:
        regular_file(path)
        with open(path, "rb") as fh:
            if fh.read(4) == _PARQUET:
                return Sniffed(path, ((0, LAYOUTS["parquet"], "Parquet data"),))
        with gzip.open(path, "rb") if compressed else open(path, "rb") as fh:
            for lineno, text in numbered_lines(path, fh):
                if text.strip():
                    lines.append((lineno, *line_layout(text)))
                    if len(lines) == SNIFF_LINES:
                        break
    except (DataError, OSError, EOFError):
        pass  # the lines read so far name the layout, if any
    return Sniffed(path, tuple(lines), compressed)


def line_layout(line: str) -> tuple[Layout | None, str]:
    """The layout one line shows, and what it holds in words.

    >>> layout, shown = line_layout('{"_id": "q1", "text": "coffee"}')
    >>> layout.name, shown
    ('beir-queries', 'a JSON object with the keys "_id", "text"')
    >>> line_layout("7\\tboundary layer flow")[0].name
    'tsv'
    """
    body = line.rstrip("\r\n").strip()
    if body.startswith("{"):
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):
            return None, f"{_shown(body)}, not a JSON object on one line"
        if isinstance(value, dict):
            keys = ", ".join(json.dumps(k) for k in list(value)[:8]) + (", ..." if len(value) > 8 else "")
            return LAYOUTS[_object_layout(value)], f"a JSON object with the keys {keys}"
    if body.startswith("<"):
        tag = body[1:].split(">", 1)[0].strip().lower()
        if tag in ("doc", "top"):
            return LAYOUTS["trec-docs" if tag == "doc" else "trec-topics"], f"the tag <{body[1:].split('>', 1)[0]}>"
    fields = body.split("\t")
    if tuple(fields) == BEIR_HEADER:
        return LAYOUTS["beir-qrels"], "the header line `query-id<TAB>corpus-id<TAB>score`"
    if len(fields) == 2:
        return LAYOUTS["tsv"], f"two tab-separated fields ({_shown(body)})"
    if len(fields) > 2:
        return LAYOUTS["tsv-wide"], f"{len(fields)} tab-separated fields ({_shown(body)})"
    return None, _shown(body)


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _object_layout(obj: dict) -> str:
    """The layout of one JSON object, by the keys each format's reader reads."""
    vector = obj.get("vector")
    if isinstance(vector, list):
        return "doc-vectors" if "docid" in obj else "query-vectors" if "qid" in obj else "json"
    if isinstance(vector, dict):
        if "id" not in obj:
            return "query-weights" if "qid" in obj else "json"
        return "weights-text" if isinstance(obj.get("contents"), str) else "weights"
    if "_id" in obj:
        return "beir-corpus" if "title" in obj else "beir-queries" if "text" in obj else "json"
    if "id" in obj and "contents" in obj:
        return "json-docs"
    if any(k in obj for k in JSON_QID) and any(k in obj for k in JSON_TEXT):
        return "json-topics"
    return "json"
