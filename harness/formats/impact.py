"""Term weights the user brings for learned sparse retrieval (impact search), checked before
Anserini sees them: the documents' weights of an ``impact`` collection and the queries' weights of
``impact`` topics.

A weights object is JSON ``{term: weight}``. Documents are Anserini's ``JsonVectorCollection``,
which indexes a document as the text of each term written ``weight`` times (``-impact
-pretokenized``: Lucene's ``WhitespaceAnalyzer`` splits it, so a term's frequency is its weight);
query weights are what ``SimpleImpactSearcher.search(Map<String, Integer>)`` takes. What Anserini
would silently change is refused here, naming the file and line:

- a weight that is not a number >= 0: Jackson's ``asInt`` reads a string "3" as 3, ``true`` as 1
  and ``null`` as 0, and a negative weight writes the term no times (a query weight below 0 is an
  error inside Lucene). A real number is read as Anserini reads it, cut to its whole part
  (``asInt``: 2.7 is 2, 0.9 is 0; the quantisation JsonVectorCollection applies, measured in
  tests/test_impact.py); query weights likewise, so both sides of a score agree;
- a vector with no term of weight >= 1 (``{}``, or only weights below 1): Anserini writes no text
  for such a document and skips it as *empty*; as a query it would match nothing or score 0;
- a term the ``WhitespaceAnalyzer`` would not keep whole: empty, holding whitespace (Java's
  ``Character.isWhitespace``: the text would split there), or longer than 255 UTF-16 units
  (Lucene's ``CharTokenizer`` cuts a longer token in pieces), or not valid Unicode (a lone
  surrogate, which Lucene stores as U+FFFD);
- a document whose weights add up to more than 2**24 (16,777,216), or a query weight beyond it:
  Anserini writes each term weight times into one text (for a query too, in
  ``SimpleImpactSearcher``: a weight of 2**31 - 1 runs it out of memory), and a frequency or a
  weight beyond 2**24 is not a whole number in the float scores Lucene computes.

A weight of 0 beside others is kept: a document term of weight 0 is written no times (absent, as
in Anserini); a query term of weight 0 is a clause of boost 0, so documents holding it match with
score 0, as they do in Anserini's ``SimpleImpactSearcher.search(Map)`` (docs/semantics.md).

Topics (:func:`read_impact_topics`) are one JSON object per line,
``{"id": "q1", "vector": {"term": 3, ...}}`` (``qid`` is read as the id too, as Anserini's
``JsonString`` topic reader reads it); the query text of such a topic is its weights as JSON
(:func:`weights_text`), turned back into a mapping for the search by :func:`weights_of`.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from harness.errors import DataError
from harness.formats.hygiene import check_id, json_kind, json_values, numbered_lines, regular_file

__all__ = [
    "MAX_TERM_UNITS",
    "MAX_QUERY_WEIGHT",
    "MAX_DOCUMENT_TOKENS",
    "term_problem",
    "check_weights",
    "read_impact_topics",
    "weights_text",
    "weights_of",
    "impact_queries",
]

MAX_TERM_UNITS = 255  # Lucene's CharTokenizer.DEFAULT_MAX_WORD_LEN (WhitespaceAnalyzer's token limit)
MAX_DOCUMENT_TOKENS = 1 << 24  # float32 holds every whole number up to here, and no further
MAX_QUERY_WEIGHT = MAX_DOCUMENT_TOKENS  # a query's boost is a float too
# Java's Character.isWhitespace, what Lucene's WhitespaceTokenizer splits at (the no-break spaces
# U+00A0, U+2007 and U+202F are not whitespace there; tests/test_impact.py checks every BMP character).
_JAVA_WHITESPACE = re.compile("[\t\n\x0b\x0c\r\x1c-\x1f \u1680\u2000-\u2006\u2008-\u200a\u2028\u2029\u205f\u3000]")


def _utf16_units(text: str) -> int:
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def term_problem(term: str) -> str | None:
    """Why ``term`` is not one token of Lucene's WhitespaceAnalyzer (None when it is).

    >>> term_problem("##ing") is None, term_problem("a b")[:40]
    (True, 'contains whitespace (U+0020): Anserini sp')
    """
    if not term:
        return "is empty: a term needs at least one character"
    m = _JAVA_WHITESPACE.search(term)
    if m:
        return (
            f"contains whitespace (U+{ord(m.group()):04X}): Anserini splits the pretokenized text there, "
            "so the term would be indexed (or searched) as several"
        )
    try:
        term.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"is not valid Unicode (a lone surrogate U+{ord(term[e.start]):04X}); Lucene would store U+FFFD"
    # CharTokenizer ends a token once it holds >= 255 UTF-16 units: the term is whole when all of it
    # but its last character is shorter than that
    if len(term) > MAX_TERM_UNITS // 2 and _utf16_units(term[:-1]) >= MAX_TERM_UNITS:
        return (
            f"is {_utf16_units(term):,} UTF-16 units long: Lucene's WhitespaceAnalyzer cuts a token after "
            f"{MAX_TERM_UNITS}, so Anserini would index it as several terms"
        )
    return None


def _weight(term: str, w, limit: int) -> int | str:
    """The weight as Anserini reads it (an int), or why it is refused."""
    if isinstance(w, bool) or not isinstance(w, (int, float)):
        return f"is {json_kind(w)}, not a number"
    if isinstance(w, float):
        if not math.isfinite(w):
            return f"is {json_kind(w)}, not a finite number"
        if w < 0:
            return f"is {json_kind(w)}: weights are >= 0"
        w = int(w)  # Jackson's asInt on a double: Java's (int) cast, toward zero (2.7 is 2)
    if w < 0:
        return f"is {w}: weights are >= 0"
    if w > limit:
        return f"is {w:,}, beyond {limit:,} (2**24): a float, as Lucene scores, cannot hold every whole number beyond"
    return w


def check_weights(source, value, line: int | None, *, document: bool, what: str = "vector") -> dict[str, int]:
    """The ``{term: weight}`` mapping of a parsed JSON value as Anserini reads it: every weight a
    number >= 0, cut to its whole part (2.7 is 2, 3.0 is 3), at least one of them >= 1, and every
    term one WhitespaceAnalyzer token; DataError naming ``source`` and ``line`` and the first term
    that is not. ``document``: a document's weights (their sum at most
    :data:`MAX_DOCUMENT_TOKENS`), else a query's (each at most :data:`MAX_QUERY_WEIGHT`)."""
    if not isinstance(value, dict):
        got = "missing" if value is None else json_kind(value)
        hint = " (an array is a dense vector: format vectors)" if isinstance(value, list) else ""
        raise DataError(source, f'"{what}" must be a JSON object {{term: weight}} (it is {got}){hint}', line=line)
    limit = MAX_DOCUMENT_TOKENS if document else MAX_QUERY_WEIGHT
    if all(type(w) is int and 0 <= w <= limit for w in value.values()):
        weights = value  # the usual: whole numbers already
    else:
        weights = {}
        for term, w in value.items():
            weight = _weight(term, w, limit)
            if isinstance(weight, str):
                raise DataError(source, f'"{what}": the weight of {json.dumps(term)[:60]} {weight}', line=line)
            weights[term] = weight
    terms = "".join(weights)  # one search over every term (a whitespace in none is the usual)
    if (
        "" in weights
        or _JAVA_WHITESPACE.search(terms)
        or not terms.isascii()
        or max(map(len, weights), default=0) > 127
    ):
        for term in weights:
            if why := term_problem(term):
                raise DataError(source, f'"{what}": the term {json.dumps(term)[:60]} {why}', line=line)
    if not any(weights.values()):
        why = (
            "Anserini would write no text for this document and skip it as empty"
            if document
            else "the query would match nothing, or every match would score 0"
        )
        got = "is empty" if not value else "has no weight >= 1 (Anserini cuts a weight to its whole part: 0.9 is 0)"
        raise DataError(source, f'"{what}" {got}: {why}', line=line)
    if document and (total := sum(weights.values())) > MAX_DOCUMENT_TOKENS:
        raise DataError(
            source,
            f'"{what}": the weights add up to {total:,}; Anserini writes each term weight times into one text, '
            f"and at most {MAX_DOCUMENT_TOKENS:,} (2**24) tokens keep a document's memory bounded and its "
            "frequencies whole numbers in Lucene's float scores: scale the weights down",
            line=line,
        )
    return weights


def weights_text(weights: dict[str, int]) -> str:
    """The query text of a weights topic: its weights as JSON, in their order (for run keys and reports)."""
    return json.dumps(weights, ensure_ascii=False, separators=(",", ":"))


def weights_of(text: str) -> dict[str, int]:
    """The weights of a query text :func:`weights_text` made."""
    return json.loads(text)


def impact_queries(topics: list[tuple[str, str]]) -> list[tuple[str, dict[str, int]]]:
    """(qid, weights) of weights topics: what an impact search takes for them."""
    return [(qid, weights_of(text)) for qid, text in topics]


def read_impact_topics(path: Path) -> list[tuple[str, str]]:
    """(qid, weights as JSON text) per line of a ``{"id": ..., "vector": {term: weight}}`` JSONL file."""
    path = Path(path)
    regular_file(path, "topics file")
    out: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for lineno, obj in json_values(path, numbered_lines(path)):
        if not isinstance(obj, dict):
            raise DataError(path, 'expected a JSON object {"id": ..., "vector": {term: weight}}', line=lineno)
        if "id" in obj and "qid" in obj and obj["id"] != obj["qid"]:
            raise DataError(path, f'"id" {obj["id"]!r} and "qid" {obj["qid"]!r} differ: give one id', line=lineno)
        key = "id" if "id" in obj else "qid"
        qid = obj.get(key)
        if isinstance(qid, bool) or not isinstance(qid, (str, int)):
            got = "missing" if key not in obj else json_kind(qid)
            raise DataError(path, f'"id" (or "qid") must be a string or an integer (it is {got})', line=lineno)
        qid = check_id(path, "topic id", str(qid).strip(), lineno)
        if qid in seen:
            raise DataError(path, f"topic {qid!r} occurs twice (first on line {seen[qid]})", line=lineno)
        seen[qid] = lineno
        out.append((qid, weights_text(check_weights(path, obj.get("vector"), lineno, document=False))))
    if not out:
        raise DataError(path, "no topics in the file")
    return out
