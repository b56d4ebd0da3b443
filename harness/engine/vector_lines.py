"""The fast check of a JSON-lines vectors file: Arrow parses it, numpy checks the numbers.

``Corpus.check_vectors`` parses every line with ``json.loads`` to name the file, line and
problem of a bad vector (harness.engine.vectors.parse_vector); that costs about 0.24 ms per
768-number line, longer than Anserini takes to index it. :func:`proven_fine` parses the file in
blocks with pyarrow's JSON reader and checks the numbers in numpy. It answers only "every line
is fine" (and the vectors' dimension) or "not proven": then the line-by-line check, the
authority, runs and names the problem. So a line goes fast only when it is a shape both parsers
read alike:

- every line (of a block cut at a line end) starts with ``{`` and ends with ``}`` (``\\r`` allowed),
  and Arrow finds as many objects as there are lines. Since a string cannot hold a raw line
  break (Arrow refuses it, as Python does), a ``}`` line end followed by a ``{`` line start is
  between two top-level values: each line is one object, as ``json.loads`` reads it;
- the bytes are UTF-8; no ``NaN``/``Inf`` value anywhere (Arrow reads ``Inf``, Python does not);
  no value nested deeper than :data:`_MAX_DEPTH` (Python's parser has a recursion limit);
- "docid": strings that are ids (harness.formats.hygiene.id_problem) or integers, none missing;
- "vector": a list of numbers in every line (Arrow refuses strings, booleans, arrays in it; a
  null element, a null or empty vector are caught here), all of one dimension (the first
  file's too), every number finite and within float32 (``json.loads`` numbers and Arrow's are
  both correctly rounded doubles; integers are compared as doubles in parse_vector too).
"""

from __future__ import annotations

import re

from harness.formats.hygiene import BOM, id_problem

__all__ = ["proven_fine"]

_PIECE = 1 << 24  # bytes read at a time: memory stays bounded by a few blocks
_BLOCK = 1 << 22  # Arrow's block; a longer line is read in a block of its own
_MAX_DEPTH = 32
_FLOAT32_MAX = 3.4028234663852886e38
_NON_FINITE = re.compile(rb"[:,\[]\s*-?(?:NaN|Inf)")  # as a value; in a string it only costs the slow path


def proven_fine(fh, line_limit: int, dim: int | None) -> tuple[bool, int | None]:
    """(True, the vectors' dimension or ``dim`` when the file has none) when every line of the
    open binary file ``fh`` is a fine vector document of dimension ``dim`` (any when None);
    (False, None) when that is not proven. Never raises for the file's content."""
    try:
        import pyarrow as pa
        import pyarrow.json as pj
    except ImportError:
        return False, None
    schema = pa.schema([("vector", pa.list_(pa.float64()))])
    rest, first = b"", True
    try:
        while True:
            piece = fh.read(_PIECE)
            block = rest + piece
            if first:
                block, first = block.removeprefix(BOM), False
            if not piece:  # the end: an unterminated last line is a line
                if not block:
                    return True, dim
                block += b"\n"
                rest = b""
            else:
                cut = block.rfind(b"\n") + 1
                block, rest = block[:cut], block[cut:]
                if len(rest) > line_limit:
                    return False, None
                if not block:
                    continue
            dim = _block_dim(pa, pj, schema, block, line_limit, dim)
            if dim is None:
                return False, None
            if not piece:
                return True, dim
    except Exception:  # unreadable, corrupt .gz, Arrow's surprises: the line-by-line check says what
        return False, None


def _block_dim(pa, pj, schema, block: bytes, line_limit: int, dim: int | None) -> int | None:
    """The dimension of a block of whole lines when every line is proven fine, else None."""
    lines = block.count(b"\n")
    starts = block.count(b"\n{") + block.startswith(b"{")  # the block ends with a line end
    ends = block.count(b"}\n") + block.count(b"}\r\n")
    if not (lines == starts == ends) or len(block) > line_limit + 1:
        return None  # blank lines, spaces at the ends, a line that may be too long: the slow path
    block.decode("utf-8")  # raises for bytes that are not UTF-8
    if (b"NaN" in block or b"Inf" in block) and _NON_FINITE.search(block):
        return None
    table = None
    for size in (_BLOCK, len(block) + 1):  # the second: a line longer than Arrow's block
        try:
            table = pj.read_json(
                pa.BufferReader(block),
                read_options=pj.ReadOptions(block_size=size, use_threads=False),
                parse_options=pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="infer"),
            )
            break
        except pa.ArrowInvalid:
            if size > len(block):
                return None
    if table.num_rows != lines or "docid" not in table.column_names:
        return None
    if any(_depth(f.type) > _MAX_DEPTH for f in table.schema):
        return None
    if not _ids_fine(pa, table.column("docid")):
        return None
    return _vectors_dim(table.column("vector").combine_chunks(), dim)


def _depth(t) -> int:
    if hasattr(t, "value_type"):  # lists
        return 1 + _depth(t.value_type)
    if t.num_fields:  # structs
        return 1 + max(_depth(t.field(i).type) for i in range(t.num_fields))
    return 0


def _ids_fine(pa, ids) -> bool:
    if ids.null_count:
        return False
    if pa.types.is_integer(ids.type):
        return True
    if not pa.types.is_string(ids.type):  # a boolean, a double, an object...: parse_vector's words
        return False
    return not any(map(id_problem, ids.to_pylist()))


def _vectors_dim(vectors, dim: int | None) -> int | None:
    import numpy as np

    if vectors.null_count or vectors.values.null_count:
        return None
    offsets = np.asarray(vectors.offsets, dtype=np.int64)
    sizes = np.diff(offsets)
    if dim is None:
        dim = int(sizes[0])
    if dim == 0 or not bool((sizes == dim).all()):
        return None
    values = np.asarray(vectors.values.to_numpy(zero_copy_only=False), dtype=np.float64)
    values = values[offsets[0] : offsets[-1]]
    if not bool((np.abs(values) <= _FLOAT32_MAX).all()):  # False for NaN and infinity too
        return None
    return dim
