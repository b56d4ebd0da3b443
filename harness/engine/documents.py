"""Stored documents and the analyzer's view of a text: what the explorer and the judging page show.

Indexes are built with ``storeRaw`` (:meth:`harness.engine.index.IndexOptions.anserini`), so every
document's original text is in the index. :meth:`Documents.text` gives what a person reads: the
``contents`` of a JSON document (formats jsonl and text-folder), the raw document otherwise (TREC
or HTML markup included; renderers escape it, so it shows as text).

Highlighting follows the analyzer, not the spelling: :meth:`Documents.tokens` runs the index's
own analyzer (the one every query goes through) over a text and returns each token's term and
character offsets, and a word is highlighted when its term is one of the query's terms. Under
Porter stemming the query "model" thus marks "models" and "modelling", and a stopword in the
query marks nothing, exactly as Lucene matched them.

The pure helpers (:func:`match_spans`, :func:`snippet`, :func:`segments`) need no Java.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from harness.engine import lucene
from harness.engine.analysis import analyzer as make_analyzer
from harness.engine.index import IndexOptions
from harness.errors import EngineError, HarnessError

__all__ = [
    "Token",
    "Documents",
    "stored_texts",
    "match_spans",
    "match_encoded",
    "terms_pattern",
    "encoded_terms",
    "TokenIndex",
    "snippet",
    "segments",
    "MAX_ANALYZED_CHARS",
]

# Text analyzed per document for highlighting (the rest is shown unhighlighted): a bound on the
# work and on the tokens held per document; 50,000 characters covers whole documents of the
# usual test collections.
MAX_ANALYZED_CHARS = 50_000
BATCH_CHARS = 4_000_000  # characters of text per Java call of encoded_tokens_many (memory bound)


class Token(NamedTuple):  # a tuple: built per token, ~3x cheaper than a frozen dataclass
    term: str  # the analyzed term (stemmed, lower-cased)
    start: int  # character offsets (code points) into the text analyzed
    end: int


class Documents:
    """An index's stored documents and its analyzer (harness.engine.analysis: Anserini's for the
    index's language, stemmer and stopword options). Open it once; :meth:`close` it when done."""

    def __init__(self, index_path, options):
        try:
            self._analyzer = make_analyzer(options)
            self._utils = lucene.jclass("io.anserini.index.IndexReaderUtils")
            self._reader = self._utils.getReader(str(index_path))
            self._java_documents = lucene.jclass("harness.Documents")
        except HarnessError:
            raise
        except Exception as e:
            raise EngineError(f"cannot open index {index_path}: {e}") from e

    def raw(self, docid: str) -> str | None:
        """The document as stored (None when the index has no such id)."""
        return self.raws([docid])[0]

    def raws(self, docids: list[str]) -> list[str | None]:
        """:meth:`raw` of each id, in one Java call (harness.Documents.raws): IndexReaderUtils.documentRaw
        per document cost ~0.44 ms through pyjnius, 0.52 s for the explorer's 1,183 documents of
        Cranfield x10."""
        if not docids:
            return []
        return [None if r is None else str(r) for r in self._java_documents.raws(self._reader, list(docids))]

    def text(self, docid: str) -> str | None:
        """What a person reads: a JSON document's ``contents``, else the raw document."""
        return self.texts([docid])[0]

    def texts(self, docids: list[str]) -> list[str | None]:
        """:meth:`text` of each id, the stored documents read in one Java call."""
        return [_readable(raw) for raw in self.raws(docids)]

    def tokens(self, text: str, limit: int = MAX_ANALYZED_CHARS) -> list[Token]:
        """The analyzer's tokens of ``text[:limit]``: term and character offsets, in order."""
        return self.tokens_many([text], limit)[0]

    def tokens_many(self, texts: list[str], limit: int = MAX_ANALYZED_CHARS) -> list[list[Token]]:
        """:meth:`tokens` of each text, in one Java call (see :meth:`encoded_tokens_many`)."""
        return [
            [Token(term, int(start), int(end)) for start, end, term in _LINE.findall(lines)]
            for lines in self.encoded_tokens_many(texts, limit)
        ]

    def encoded_tokens_many(
        self, texts: list[str], limit: int = MAX_ANALYZED_CHARS, keep: list[set[str] | None] | None = None
    ) -> list[str]:
        """The tokens of each ``text[:limit]`` as one string, a line "start end term" per token
        (offsets in code points), in one Java call (harness.Documents.tokens): 32,767 synthetic
        documents took 9.8 s token by token through pyjnius, one attribute read at a time.
        :func:`match_encoded` finds a query's terms in it without a Python object per token.
        With ``keep``, text i keeps only the tokens whose term is in ``keep[i]`` (all: None)."""
        out: list[str] = []
        batch: list[str] = []
        kept: list[str | None] = []
        size = 0

        def call():
            if keep is None:
                return [str(s) for s in self._java_documents.tokens(self._analyzer, batch)]
            return [str(s) for s in self._java_documents.tokens(self._analyzer, batch, kept)]

        for i, t in enumerate(texts):  # calls of at most BATCH_CHARS: 20,000 long documents are not sent at once
            t = t[:limit]
            if batch and size + len(t) > BATCH_CHARS:
                out += call()
                batch, kept, size = [], [], 0
            batch.append(t)
            if keep is not None:
                kept.append(None if (terms := keep[i]) is None else "\n".join(sorted(terms)))
            size += len(t)
        if batch:
            out += call()
        return out

    def analyze(self, text: str) -> list[str]:
        """The analyzed terms of a text (a query's terms as Lucene searches them)."""
        return [t.term for t in self.tokens(text)]

    def close(self) -> None:
        self._reader.close()


def _readable(raw: str | None) -> str | None:
    """A JSON document's ``contents``, else the raw document (None stays None)."""
    if raw is None or not raw.lstrip().startswith("{"):
        return raw
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
    docs = Documents(index_path, IndexOptions())
    try:
        unique = list(dict.fromkeys(docids))
        return dict(zip(unique, docs.texts(unique)))
    finally:
        docs.close()


def match_spans(tokens: list[Token], terms) -> list[tuple[int, int, str]]:
    """(start, end, term) of every token whose term is one of ``terms``.

    >>> match_spans([Token("model", 0, 6), Token("space", 7, 12)], {"model"})
    [(0, 6, 'model')]
    """
    want = set(terms)
    return [(t.start, t.end, t.term) for t in tokens if t.term in want]


_LINE = re.compile(r"^(\d+) (\d+) (.*)$", re.M)


def terms_pattern(terms) -> re.Pattern | None:
    """A pattern for :func:`match_encoded`: the lines of any of ``terms`` (None: no terms)."""
    if not terms:
        return None
    return re.compile(r"^(\d+) (\d+) (" + "|".join(map(re.escape, sorted(terms))) + r")$", re.M)


def match_encoded(encoded: str, pattern: re.Pattern | None) -> list[tuple[int, int, str]]:
    r""":func:`match_spans` on :meth:`Documents.encoded_tokens_many`'s form of a text's tokens.

    >>> match_encoded("0 6 model\n7 12 space\n", terms_pattern({"model"}))
    [(0, 6, 'model')]
    """
    if pattern is None:
        return []
    return [(int(s), int(e), t) for s, e, t in pattern.findall(encoded)]


def encoded_terms(encoded: str) -> set[str]:
    """The distinct terms of :meth:`Documents.encoded_tokens_many`'s form of a text's tokens."""
    return {term for _, _, term in _LINE.findall(encoded)}


class TokenIndex:
    r"""A text's tokens (:meth:`Documents.encoded_tokens_many`'s form) by term, parsed once, for
    finding the terms of many queries in one document: :func:`match_encoded` compiles a pattern
    per query and scans the whole text per (query, document), which took 0.4 s of the explorer's
    5,000 (topic, document) pairs on Cranfield x10.

    >>> TokenIndex("0 6 model\n7 12 space\n13 19 model\n").match({"model", "vector"})
    [(0, 6, 'model'), (13, 19, 'model')]
    """

    __slots__ = ("_tokens", "_where")

    def __init__(self, encoded: str):
        self._tokens = _LINE.findall(encoded)
        where: dict[str, list[int]] = {}
        for i, (_, _, term) in enumerate(self._tokens):
            where.setdefault(term, []).append(i)
        self._where = where

    def match(self, terms) -> list[tuple[int, int, str]]:
        """:func:`match_encoded` of the same text with ``terms_pattern(terms)``: the (start, end,
        term) of every token whose term is one of ``terms``, in the text's token order."""
        hits = sorted(i for t in set(terms) for i in self._where.get(t, ()))
        tokens = self._tokens
        return [(int(tokens[i][0]), int(tokens[i][1]), tokens[i][2]) for i in hits]


def snippet(text: str, spans: list[tuple[int, int, str]], width: int = 240) -> tuple[int, int]:
    """(start, end) of a window of about ``width`` characters holding the most distinct matched
    terms (the earliest such window), widened to word boundaries; the text's start without matches.

    >>> text = "a b c " * 100 + "the vector space model"
    >>> s, e = snippet(text, [(len(text) - 5, len(text), "model")], width=40)
    >>> text[s:e].endswith("space model") and e - s <= 50
    True
    """
    n = len(text)
    if n <= width:
        return 0, n
    start = _best_window(spans, width)
    if start > 0:  # start on a word: step past the partial word before the window
        space = text.find(" ", start, min(n, start + 30))
        if space != -1 and not any(s <= space < e for s, e, _ in spans):
            start = space + 1
    end = min(n, start + width)
    if end < n:
        space = text.rfind(" ", max(start, end - 30), end)
        if space > start:
            end = space
    return start, end


def _best_window(spans: list[tuple[int, int, str]], width: int) -> int:
    """The start ``lo`` of the first window [lo, lo + width] holding the most distinct terms, over
    lo = max(0, start - width // 4) of each span, counting the spans from that one on that end in
    the window. Spans in token order have ascending starts and ends (one sliding window, linear);
    any other order is counted span by span (quadratic: 5,000 snippets of Cranfield x10's
    explorer spent 0.1 s there)."""
    starts = [s for s, _, _ in spans]
    ends = [e for _, e, _ in spans]
    best, best_count = 0, 0
    if any(a > b for a, b in zip(starts, starts[1:])) or any(a > b for a, b in zip(ends, ends[1:])):
        for i, s0 in enumerate(starts):
            lo = max(0, s0 - width // 4)
            count = len({t for _, e, t in spans[i:] if e <= lo + width})
            if count > best_count:
                best, best_count = lo, count
        return best
    held: dict[str, int] = {}  # the window spans[i:k] (ends within it), its terms counted
    k = 0
    for i, s0 in enumerate(starts):
        lo = max(0, s0 - width // 4)
        while k < len(spans) and ends[k] <= lo + width:
            t = spans[k][2]
            held[t] = held.get(t, 0) + 1
            k += 1
        if len(held) > best_count:
            best, best_count = lo, len(held)
        if k > i:
            t = spans[i][2]
            held[t] -= 1
            if not held[t]:
                del held[t]
        else:
            k = i + 1
    return best


def segments(text: str, spans: list[tuple[int, int, str]], start: int = 0, end: int | None = None):
    """``text[start:end]`` as (piece, highlighted) pairs, for renderers to escape and mark up.

    >>> segments("a model b", [(2, 7, "model")])
    [('a ', False), ('model', True), (' b', False)]
    """
    end = len(text) if end is None else end
    out, pos = [], start
    for s, e, _ in spans:
        if e <= pos or s >= end:
            continue
        s = max(s, pos)
        if s > pos:
            out.append((text[pos:s], False))
        out.append((text[s : min(e, end)], True))
        pos = min(e, end)
    if pos < end:
        out.append((text[pos:end], False))
    return out
