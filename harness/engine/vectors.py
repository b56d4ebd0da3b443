"""Vectors the user brings, checked before Anserini or Lucene sees them.

Documents are Anserini's ``JsonDenseVectorCollection``: one JSON object per line,
``{"docid": "7", "vector": [0.1, ...]}`` (other keys, such as ``contents``, are ignored; Anserini
reads neither ``id`` nor ``contents``). Topics are what Anserini's ``JsonStringVectorTopicReader``
reads: ``{"qid": 1, "vector": [...]}``. Anserini casts each number to a float32 and says nothing
about a vector it cannot use (a NaN stops its JSON parser, a string becomes 0, a vector of another
length fails inside Lucene): every such line is refused here, naming the file and line.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from harness.errors import DataError
from harness.formats.hygiene import check_id, json_values, numbered_lines, regular_file

__all__ = ["SameDimension", "parse_vector", "read_vector_topics", "vector_text"]

_FLOAT32_MAX = 3.4028234663852886e38  # a larger number becomes infinity as a float32


def parse_vector(source, value, line: int | None, what: str = "vector") -> list[float]:
    """The numbers of a JSON array of finite float32 numbers; DataError naming the first that is not."""
    if not isinstance(value, list):
        got = "missing" if value is None else type(value).__name__
        raise DataError(source, f'"{what}" must be a JSON array of numbers (it is {got})', line=line)
    if not value:
        raise DataError(source, f'"{what}" is empty; a vector needs at least one number', line=line)
    kinds = set(map(type, value))
    if kinds <= {float, int}:  # the common case, checked in numpy (a Python loop: 0.7 ms per 768 numbers)
        import numpy as np  # here: importing the corpus module loads no numpy

        try:
            a = np.abs(np.asarray(value, dtype=np.float64))
        except OverflowError:  # an integer beyond float64: the loop below names it
            a = None
        if a is not None and bool((a <= _FLOAT32_MAX).all()):  # False for NaN and infinity too
            return value if kinds == {float} else [float(x) for x in value]
    for i, x in enumerate(value):
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise DataError(
                source,
                f'"{what}" element {i} is {json.dumps(x)[:40]}, not a number; vectors hold numbers only',
                line=line,
            )
        if not math.isfinite(x) or abs(x) > _FLOAT32_MAX:
            raise DataError(
                source,
                f'"{what}" element {i} is {x!r}: not a finite float32 number (NaN and infinity cannot be scored)',
                line=line,
            )
    return [float(x) for x in value]


class SameDimension:
    """Every vector of a collection (or of a topics file) has one length: the first one's."""

    def __init__(self, what: str):
        self.what, self.first = what, None

    def check(self, source, n: int, line: int | None) -> None:
        if self.first is None:
            self.first = (n, source, line)
            return
        dim, src, first_line = self.first
        if n != dim:
            where = f"{src}:{first_line}" if first_line is not None else str(src)
            raise DataError(
                source,
                f"this {self.what} has {n} dimensions, the first one ({where}) has {dim}; "
                "all vectors must have the same dimension (made by one model)",
                line=line,
            )


def vector_text(vector: list[float]) -> str:
    """The query text of a vector topic: its numbers as a JSON array (parsed back by the searcher)."""
    return json.dumps(vector, separators=(",", ":"))


def read_vector_topics(path: Path) -> list[tuple[str, str]]:
    """(qid, vector as JSON text) per line of a ``{"qid": ..., "vector": [...]}`` JSONL file."""
    path = Path(path)
    regular_file(path, "topics file")
    dims = SameDimension("query vector")
    out, seen = [], {}
    for lineno, obj in json_values(path, numbered_lines(path)):
        if not isinstance(obj, dict):
            raise DataError(path, 'expected a JSON object {"qid": ..., "vector": [...]}', line=lineno)
        qid = obj.get("qid")
        if isinstance(qid, bool) or not isinstance(qid, (str, int)):
            raise DataError(path, '"qid" must be a string or an integer', line=lineno)
        qid = check_id(path, "topic id", str(qid).strip(), lineno)
        if qid in seen:
            raise DataError(path, f"topic {qid!r} occurs twice (first on line {seen[qid]})", line=lineno)
        seen[qid] = lineno
        vector = parse_vector(path, obj.get("vector"), lineno)
        dims.check(path, len(vector), lineno)
        out.append((qid, vector_text(vector)))
    if not out:
        raise DataError(path, "no topics in the file")
    return out
