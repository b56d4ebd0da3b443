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
import re
from pathlib import Path
from typing import Any

import numpy as np

from harness import lazy
from harness.errors import DataError
from harness.formats.catalog import PARQUET_SUFFIX
from harness.formats.hygiene import check_id, json_values, numbered_lines, regular_file

orjson = lazy.module("orjson")  # its shared library takes 5-30 ms to load, and most runs read no vectors
pa = lazy.module("pyarrow")
pq = lazy.module("pyarrow.parquet")

__all__ = [
    "SameDimension",
    "fast_json_object",
    "fast_vector_document",
    "parse_vector",
    "read_vector_topics",
    "vector_text",
]

_FLOAT32_MAX = 3.4028234663852886e38  # a larger number becomes infinity as a float32
# Lucene's limit (KnnVectorsFormat.DEFAULT_MAX_DIMENSIONS): a longer vector fails inside Anserini's
# indexer thread, which logs it and indexes nothing ("read 0 of N lines", no reason given)
MAX_DIMENSIONS = 4096


def _too_long(what: str, n: int) -> str | None:
    if n > MAX_DIMENSIONS:
        return f"this {what} has {n:,} dimensions; Lucene indexes vectors of at most {MAX_DIMENSIONS:,}"
    return None


def fast_json_object(line: str) -> dict | None:
    """``line`` parsed by orjson when it is a JSON object that json.loads would parse to the same
    value, else None (then json.loads decides, and names any problem as it always has).

    orjson parses a 768-number vector line in 45 us against json.loads's 170 (70-100 against
    210-225 us with the numpy check after it; 3,000 lines of bench/bench_dense.py, 2 cores at a
    load of 1), and the vectors' check parses every line of a collection that may hold
    millions. Where the two parsers differ, the line goes to json.loads: orjson refuses NaN and
    Infinity, numbers beyond float64 and lone surrogates (json.loads accepts them), and it reads
    an integer beyond 64 bits as a float, so callers use the value only to find a line fine and
    go back to json.loads for the message when it is not (harness.engine.contents.check_vectors). Nesting is
    where each stops at its own depth (orjson at 1,024 levels, json.loads at the interpreter's
    C recursion limit, over 1,024 on Python 3.12 but not promised): a line with more than 64
    brackets or braces is not tried (a vector line has one of each)."""
    if line.count("[") + line.count("{") > 64:
        return None
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


# The fast path's bound on a vector's squared length: half of float32's largest number, so that
# whatever numpy's sum rounds, a vector it passes has every number finite and within float32
_SAFE_SQUARED_LENGTH = _FLOAT32_MAX / 2
_VECTOR_KEY = re.compile(rb'"vector"[ \t\r\n]*:[ \t\r\n]*\[')  # JSON's whitespace


def fast_vector_document(raw: bytes) -> tuple[str | int, int] | None:
    """(docid, dimension) of a document line (bytes, as read) that the full check certainly finds
    fine apart from its id and dimension, else None: then the full check (harness.engine.contents.check_vectors:
    json.loads's values, parse_vector) decides and names the problem.

    Certain means: the line starts with ``{``, orjson parses it to an object with the keys
    "docid" (a string or an integer) and "vector", and at most a "contents" string besides
    (Anserini's own samples carry one), the vector a list whose items numpy reads as float64, and
    the sum of their squares is at most half of float32's largest number (so every number is
    finite and within float32; NaN fails the comparison). numpy's ``fromiter`` would also read a
    string ("2"), a boolean or null, so the bytes rule those out first: the array's text, from
    the ``[`` after the key ``"vector":`` to the first ``]``, holds no quote (no string), no
    ``u`` or ``a`` (every ``true``, ``false`` and ``null`` has one; numbers have none), and one
    comma fewer than the list has items (a nested list makes ``fromiter`` raise). The key is
    found as ``"vector"`` followed by a colon, which inside a JSON string would need escaped
    quotes. Nesting is at most two deep, so orjson's and json.loads's depth limits never
    matter; a line with other keys goes the full way (fast_json_object).

    Against the readline, decode, type check and asarray of the full way, this takes the check
    of the bench's 768-number lines from 165-185 to 100-120 us (20,000 lines, fresh processes
    alternating on this project's 2-core machine at load ~1.2, 2026-11-26); of it, orjson on the
    bytes 30-37 us, numpy's fromiter 26, the byte scans 8, the dot product 2."""
    if raw[:1] != b"{":
        return None
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if type(doc) is not dict or not (len(doc) == 2 or (len(doc) == 3 and type(doc.get("contents")) is str)):
        return None
    docid: Any = doc.get("docid")  # a str or an int, or the line goes the full way
    vector = doc.get("vector")
    if type(docid) not in (str, int) or type(vector) is not list or not vector:
        return None
    key = _VECTOR_KEY.search(raw)
    if key is None:
        return None
    text = raw[key.end() - 1 : raw.find(b"]", key.end())]
    if b'"' in text or b"u" in text or b"a" in text or text.count(b",") + 1 != len(vector):
        return None
    try:
        a = np.fromiter(vector, dtype=np.float64, count=len(vector))
    except (ValueError, OverflowError, TypeError):  # a nested list, an integer beyond float64
        return None
    if not float(np.dot(a, a)) <= _SAFE_SQUARED_LENGTH:
        return None
    return docid, len(vector)


def _too_long_squared(squared: float) -> str | None:
    """Why a vector whose squared length (sum of squares, in float64) is ``squared`` cannot be
    scored, or None. Lucene scores in float32: a dot product (and cosine's norms) of a longer
    vector overflows to infinity (an HNSW index with int8 quantisation then returns nothing, a
    flat one meaningless scores). Bounding each vector's squared length by float32's largest
    number bounds, by Cauchy-Schwarz, every dot product of two accepted vectors by it too."""
    if squared <= _FLOAT32_MAX:
        return None
    return (
        f"this vector's squared length is {squared:.2g}, beyond float32's largest number "
        f"({_FLOAT32_MAX:.2g}): Lucene's dot product of it would overflow (scale the vectors down, "
        "e.g. normalise them)"
    )


def parse_vector(source, value, line: int | None, what: str = "vector") -> list[float]:
    """The numbers of a JSON array of finite float32 numbers whose squared length is a float32
    too (:func:`_too_long_squared`); DataError naming the first number that is not, or the length."""
    if not isinstance(value, list):
        got = "missing" if value is None else type(value).__name__
        raise DataError(source, f'"{what}" must be a JSON array of numbers (it is {got})', line=line)
    if not value:
        raise DataError(source, f'"{what}" is empty; a vector needs at least one number', line=line)
    kinds = set(map(type, value))
    if kinds <= {float, int}:  # the common case, checked in numpy (a Python loop: 0.7 ms per 768 numbers)
        try:
            a = np.abs(np.asarray(value, dtype=np.float64))
        except OverflowError:  # an integer beyond float64: the loop below names it
            a = None
        if a is not None and bool((a <= _FLOAT32_MAX).all()):  # False for NaN and infinity too
            # the squared length from the same array, one np.dot: ~1 us on a 768-number line's ~50
            if why := _too_long_squared(float(np.dot(a, a))):
                raise DataError(source, why, line=line)
            return value if kinds == {float} else [float(x) for x in value]
    for i, x in enumerate(value):
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise DataError(
                source,
                f'"{what}" element {i} is {json.dumps(x)[:40]}, not a number; vectors hold numbers only',
                line=line,
            )
        try:
            bad = not math.isfinite(x) or abs(float(x)) > _FLOAT32_MAX
        except OverflowError:  # an integer beyond float64 (math.isfinite raised this before)
            bad = True
        if bad:
            shown = repr(x) if len(repr(x)) <= 40 else repr(x)[:37] + "..."
            raise DataError(
                source,
                f'"{what}" element {i} is {shown}: not a finite float32 number (NaN and infinity cannot be scored)',
                line=line,
            )
    out = [float(x) for x in value]
    if why := _too_long_squared(math.fsum(x * x for x in out)):
        raise DataError(source, why, line=line)
    return out


class SameDimension:
    """Every vector of a collection (or of a topics file) has one length: the first one's."""

    def __init__(self, what: str):
        self.what = what
        self.first: tuple[int, object, int | None] | None = None  # the first vector's (length, source, line)

    def check(self, source, n: int, line: int | None) -> None:
        if self.first is None:
            if why := _too_long(self.what, n):
                raise DataError(source, why, line=line)
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
    """(qid, vector as JSON text) per line of a ``{"qid": ..., "vector": [...]}`` JSONL file, or
    per row of a Parquet file with the columns "qid" (string or integer) and "vector"."""
    path = Path(path)
    regular_file(path, "topics file")
    if is_parquet(path):
        return _parquet_topics(path)
    dims = SameDimension("query vector")
    out: list[tuple[str, str]] = []
    seen: dict[str, int] = {}  # qid -> its line
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


# ----------------------------------------------------------------------------- Parquet
# Anserini's ParquetDenseVectorCollection reads the columns "docid" (Group.getString: strings
# only) and "vector" (a Parquet LIST of FLOAT or DOUBLE, as pyarrow writes list<float>).
_BATCH_ROWS = 4096


def is_parquet(path: Path) -> bool:
    return Path(path).name.lower().endswith(PARQUET_SUFFIX)


def _parquet(path: Path):
    try:
        parquet_file = pq.ParquetFile  # pyarrow is imported here
    except ImportError:  # a dependency of the harness; an installation without it cannot read Parquet
        raise DataError(path, "reading Parquet vectors needs pyarrow: pip install pyarrow") from None
    try:
        return parquet_file(path)
    except Exception as e:  # pyarrow raises ArrowInvalid, OSError... for a file that is not Parquet
        raise DataError(path, f"not a readable Parquet file ({str(e).splitlines()[0][:160]})") from None


def _columns(path: Path, f, id_col: str, id_types: tuple[str, ...]) -> None:
    """The two columns exist, the id's of a type in ``id_types``, the vector a list of floats."""
    schema = f.schema_arrow
    for name in (id_col, "vector"):
        if schema.get_field_index(name) < 0:
            raise DataError(path, f'no column "{name}" (the columns: {", ".join(schema.names) or "none"})')
    id_type = schema.field(id_col).type
    if not any(getattr(pa.types, f"is_{t}")(id_type) for t in id_types):
        raise DataError(path, f'column "{id_col}" holds {id_type}; it must hold {" or ".join(id_types)}')
    vtype = schema.field("vector").type
    lists = (pa.types.is_list, pa.types.is_large_list, pa.types.is_fixed_size_list)
    if not any(t(vtype) for t in lists) or not (
        pa.types.is_float32(vtype.value_type) or pa.types.is_float64(vtype.value_type)
    ):
        raise DataError(
            path, f'column "vector" holds {vtype}; it must be a list of float or double (as Anserini reads it)'
        )


def parquet_rows(path: Path, id_col: str, id_types: tuple[str, ...], first: dict, what: str):
    """(row number from 1, id, float64 vector) of every row, checked as the JSON lines are: no
    missing id or vector, no missing, NaN or infinite number, no number beyond float32, no
    squared length beyond float32 (:func:`_too_long_squared`), one dimension throughout
    (``first``: the first vector's, shared by a collection's files); DataError naming the file
    and row."""
    f = _parquet(path)
    _columns(path, f, id_col, id_types)
    row = 0
    for batch in f.iter_batches(batch_size=_BATCH_ROWS, columns=[id_col, "vector"]):
        ids, vectors = batch.column(0).to_pylist(), batch.column(1)
        valid = np.asarray(vectors.is_valid())
        if hasattr(vectors, "offsets"):
            offsets = np.asarray(vectors.offsets, dtype=np.int64)
        else:  # a fixed-size list
            offsets = np.arange(len(vectors) + 1, dtype=np.int64) * vectors.type.list_size
        values = vectors.values
        numbers = np.asarray(values.to_numpy(zero_copy_only=False), dtype=np.float64)
        missing = np.asarray(values.is_null()) if values.null_count else np.zeros(len(numbers), bool)
        for i, ident in enumerate(ids):
            row += 1
            where = f"row {row}: "
            if ident is None:
                raise DataError(path, f'{where}"{id_col}" is missing (null)')
            if not valid[i]:
                raise DataError(path, f'{where}"vector" is missing (null)')
            lo, hi = int(offsets[i]), int(offsets[i + 1])
            if hi == lo:
                raise DataError(path, f'{where}"vector" is empty; a vector needs at least one number')
            v = numbers[lo:hi]
            bad = ~(np.abs(v) <= _FLOAT32_MAX) | missing[lo:hi]  # NaN, infinity, beyond float32, null
            if bad.any():
                j = int(np.flatnonzero(bad)[0])
                x = "null" if missing[lo + j] else repr(float(v[j]))
                raise DataError(path, f'{where}"vector" element {j} is {x}: not a finite float32 number')
            if why := _too_long_squared(float(np.dot(v, v))):
                raise DataError(path, f"{where}{why}")
            if not first:
                if why := _too_long("vector", hi - lo):
                    raise DataError(path, f"{where}{why}")
                first.update(dim=hi - lo, where=f"{path} row {row}")
            elif hi - lo != first["dim"]:
                raise DataError(
                    path,
                    f"{where}this vector has {hi - lo} dimensions, the first one ({first['where']}) has "
                    f"{first['dim']}; all vectors must have the same dimension (made by one model)",
                )
            yield row, str(ident), v
    if row == 0:
        raise DataError(path, f"no {what} in the file")


def parquet_count(path: Path) -> int:
    return int(_parquet(path).metadata.num_rows)


def _parquet_topics(path: Path) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    seen: dict[str, int] = {}  # qid -> its row
    for row, qid, vector in parquet_rows(path, "qid", ("string", "large_string", "integer"), {}, "topics"):
        try:
            qid = check_id(path, "topic id", qid.strip())
        except DataError as e:
            raise DataError(path, f"row {row}: {str(e).split(': ', 1)[1]}") from None
        if qid in seen:
            raise DataError(path, f"row {row}: topic {qid!r} occurs twice (first in row {seen[qid]})")
        seen[qid] = row
        out.append((qid, vector_text(vector.tolist())))
    return out
