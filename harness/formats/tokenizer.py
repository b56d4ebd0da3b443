"""The columnar tokeniser shared by the run and qrels readers: a file in blocks of whole lines, and
the fields of a block as arrays. What the readers build of the blocks is in
:mod:`harness.formats.columns`; the (topic, document) keys and the duplicate check in
:mod:`harness.formats.keys`.

A file is read in large blocks; numpy finds the field boundaries of whole lines and turns columns
into arrays (topic segments, fixed-width id bytes, numbers) without a Python loop per line.
Blocks are parsed on ``HARNESS_THREADS`` threads (default 2; numpy and Arrow release the GIL)
and the results are assembled in file order. Errors name the file and line.

What a line may hold, as trec_eval reads it: fields separated by runs of ASCII whitespace
(space, tab, CR, VT, FF); blank lines are skipped; a UTF-8 byte-order mark at the start of the
file is skipped. Other control characters (NUL, 0x01-0x08, 0x0E-0x1F, DEL) are errors naming the
line: an id holding one could not be written back. Memory stays bounded by the file size: a
line longer than :data:`MAX_LINE` bytes or an id longer than :data:`MAX_ID` bytes is an error
(ids are kept in fixed-width columns, so one huge id would widen every row).
"""

from __future__ import annotations

import os
import queue
import re
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from harness import lazy
from harness.errors import DataError, read_error
from harness.formats import arrow
from harness.formats.hygiene import refuse_compressed

pa = lazy.module("pyarrow")

__all__ = [
    "map_blocks",
    "fixed_bytes",
    "parse_ints",
    "parse_floats",
    "is_integer",
    "is_number",
    "worker_threads",
    "file_size",
    "check_ids",
    "MAX_LINE",
    "MAX_ID",
]

MAX_LINE = 1 << 20  # bytes per line: far above any real run or qrels line
# Bytes per id (topic or document). Real ids are short (TREC, MS MARCO, ClueWeb: < 40 bytes;
# URL- or title-like ids: a few hundred); the cap keeps a fixed-width id column within ~100x
# the file size even when a single id is the longest allowed.
MAX_ID = 1024
_BLOCK = 16 << 20  # bytes per parsing block: small enough for the caches, bounds memory
_NL, _SP, _DEL = 10, 32, 127
_BOM = b"\xef\xbb\xbf"
# what strtod accepts, minus nan (which has no place in a ranking) and Python's "1_0"
_FLOAT_RE = re.compile(rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity)", re.I)
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[9, 10, 11, 12, 13, 32]] = True  # C's isspace(), what trec_eval splits on


# --------------------------------------------------------------------------- tokeniser
_FRONT, _BACK = 16, 8  # padding around a block, so 8-byte loads near its edges stay inside


class _Block:
    """Whole lines of a file: ``buf`` (padded bytes), ``delim`` (n, nfields) positions of the
    separator after each field (= token ends, relative to ``body``), and the lines: ``lines``
    (1-based, per row) or, when the block has no blank lines, None and ``line0`` (rows are
    lines line0+1, line0+2, ...)."""

    __slots__ = ("buf", "body", "words", "delim", "first", "line0", "_lines", "_starts")

    def __init__(self, buf, delim, first, line0, lines, starts=None):
        self.buf, self.delim, self.first, self.line0, self._lines = buf, delim, first, line0, lines
        self._starts = starts  # (n, nfields) token starts, when separators vary
        # words[p]: the 8 bytes just before body position p, as a uint64 (an unaligned view of
        # every 8-byte window, no copy); the padding keeps p - 8 and p + 8 inside the buffer
        self.words = np.ndarray(
            (len(buf) - _FRONT - 7 + 8,), dtype=np.uint64, buffer=buf, offset=_FRONT - 8, strides=(1,)
        )
        self.body = buf[_FRONT : len(buf) - _BACK]

    def __len__(self):
        return len(self.delim)

    def start(self, f):
        if self._starts is not None:
            return self._starts[:, f]
        return self.first if f == 0 else self.delim[:, f - 1] + 1

    def end(self, f):
        return self.delim[:, f]

    @property
    def lines(self):
        """The 1-based line of each row, or None when rows are lines line0+1, line0+2, ..."""
        return self._lines

    def line(self, i) -> int:
        return int(self._lines[i]) if self._lines is not None else self.line0 + i + 1

    def token(self, f, i) -> bytes:
        return bytes(self.body[int(self.start(f)[i]) : int(self.end(f)[i])])


def _chunks(path, what: str, buffers: queue.Queue, block: int = _BLOCK, header: int = 0) -> Iterator[tuple]:
    """Read the file into blocks of whole lines: yield (buffer, cut), the lines being
    ``buffer[_FRONT:_FRONT + cut]``. Buffers come from ``buffers`` (None: allocate one) and
    go back there once their block is processed. A leading BOM is skipped; a compressed file,
    or a line longer than MAX_LINE, is an error (found here, before the buffer grows further)."""
    try:
        f = open(path, "rb", buffering=0)
    except OSError as e:
        raise read_error(str(path), f"cannot read {what}: {e.strerror}", e) from None
    with f:
        head = f.read(16)
        refuse_compressed(path, head, what.split(":")[0])
        f.seek(header or (3 if head.startswith(_BOM) else 0))  # header: its bytes (BOM and line end too)
        carry = b""
        while True:
            buf = buffers.get()
            size = max(block, 2 * len(carry))  # a line longer than a block grows it
            if buf is None or len(buf) < _FRONT + size + _BACK + 1:
                buf = bytearray(_FRONT + size + _BACK + 1)
            buf[_FRONT : _FRONT + len(carry)] = carry
            n = f.readinto(memoryview(buf)[_FRONT + len(carry) : _FRONT + size])
            total = len(carry) + n
            if n == 0:
                if total == 0:
                    buffers.put(buf)
                    return
                buf[_FRONT + total] = _NL  # a last line without its newline
                cut, carry = total + 1, b""
            else:
                cut = buf.rfind(b"\n", _FRONT, _FRONT + total) + 1 - _FRONT
                if cut <= 0:  # no complete line yet
                    if total > MAX_LINE:
                        buffers.put(buf)
                        yield None, 0  # the line after every block so far is too long
                        return
                    carry = bytes(buf[_FRONT : _FRONT + total])
                    buffers.put(None)  # keep growing: read the rest of the line
                    continue
                carry = bytes(buf[_FRONT + cut : _FRONT + total])
            yield buf, cut
            if len(carry) > MAX_LINE:
                yield None, 0
                return


def _long_line(what: str) -> str:
    return f"a line longer than {MAX_LINE:,} bytes: not a {what.split(':')[0]} file?"


def worker_threads() -> int:
    """Worker threads for parsing (numpy and Arrow release the GIL): HARNESS_THREADS, default 2."""
    try:
        n = int(os.environ.get("HARNESS_THREADS", "2"))
    except ValueError:
        n = 2
    return max(1, min(n, os.cpu_count() or 1))


def map_blocks(
    path, nfields: int, what: str, fn, *, extra_fields: bool = False, header: int = 0, header_lines: int = 1
) -> Iterator:
    """Yield ``(line0, fn(block))`` for each :class:`_Block` of the file, in file order, where
    line0 is the number of lines before the block. Blocks are tokenised and processed on a few
    threads with block-relative line numbers (``block.line0 == 0``); each buffer is reused
    once its block is done; errors are reported with absolute line numbers. Lines need exactly
    ``nfields`` fields, or at least that many with ``extra_fields`` (the rest are ignored).
    ``header``: bytes at the file's start that are not lines of fields (BEIR's qrels header, a
    run's ir_metadata block), skipped and counted as ``header_lines`` lines."""
    source = str(path)
    threads = worker_threads()
    # small files get small blocks: the threads still share the work, memory stays low
    block = int(min(_BLOCK, max(file_size(path) // (4 * threads), 1 << 20)))
    buffers: queue.Queue = queue.Queue()
    for _ in range(threads + 1):
        buffers.put(None)

    def work(buf, cut):
        if buf is None:  # _chunks met a line longer than MAX_LINE, right after the blocks so far
            return 0, _LONG
        try:
            arr = np.frombuffer(buf, dtype=np.uint8, count=_FRONT + cut + _BACK)
            block, nlines = _tokenise(arr, nfields, extra_fields, 0, source, what)
            return nlines, (None if block is None else fn(block))
        finally:
            buffers.put(buf)

    line0 = header_lines if header > 0 else 0  # a header's lines (bytes skipped by _chunks) are counted

    def absolute(get):
        nonlocal line0
        try:
            nlines, r = get()
        except DataError as e:
            if e.line is None:
                raise
            message = str(e)[len(f"{e.source}:{e.line}: ") :]
            raise DataError(e.source, message, line=line0 + e.line) from None
        if r is _LONG:
            raise DataError(source, _long_line(what), line=line0 + 1)
        before, line0 = line0, line0 + nlines
        return before, r

    if threads == 1:
        for chunk in _chunks(path, what, buffers, block, header):
            before, r = absolute(lambda chunk=chunk: work(*chunk))
            if r is not None:
                yield before, r
        return
    with ThreadPoolExecutor(threads) as pool:
        pending: deque = deque()
        try:
            for chunk in _chunks(path, what, buffers, block, header):
                pending.append(pool.submit(work, *chunk))
                while pending and (pending[0].done() or len(pending) > threads):
                    before, r = absolute(pending.popleft().result)
                    if r is not None:
                        yield before, r
            while pending:
                before, r = absolute(pending.popleft().result)
                if r is not None:
                    yield before, r
        finally:
            for fut in pending:
                fut.cancel()


_LONG = object()  # marks the too-long line that _chunks found


def _line_text(body, nl_pos, i) -> str:
    lo = int(nl_pos[i - 1]) + 1 if i else 0
    return bytes(body[lo : min(int(nl_pos[i]), lo + 200)]).decode("utf-8", "replace").strip()


def _tokenise(buf: np.ndarray, nfields: int, extra: bool, line0: int, source: str, what: str):
    """Split the lines in ``buf[_FRONT:-_BACK]`` into fields (see the module docstring)."""
    body = buf[_FRONT : len(buf) - _BACK]
    is_delim = body <= _SP
    delim = np.flatnonzero(is_delim)
    sep = body[delim]
    isnl = sep == _NL
    # only whitespace below 33 and no DEL anywhere (the common check first: spaces and newlines)
    plain = np.count_nonzero(isnl) + np.count_nonzero(sep == _SP) == len(sep)
    if (not plain and not _SPACE[sep].all()) or (body == _DEL).any():
        nl_pos = delim[isnl]
        bad = int(np.r_[delim[~_SPACE[sep]], np.flatnonzero(body == _DEL)].min())
        i = int(np.searchsorted(nl_pos, bad))
        raise DataError(
            source,
            f"control character 0x{int(body[bad]):02x} in the line (only spaces and tabs separate fields; "
            f"ids cannot hold control characters): {_line_text(body, nl_pos, i)[:120]!r}",
            line=line0 + i + 1,
        )
    nlines = int(np.count_nonzero(isnl))
    n = len(delim)
    # Fast path: every line is exactly ``nfields`` tokens joined by single separators.
    if n == nlines * nfields and n and delim[0] > 0:
        shaped = isnl.reshape(nlines, nfields)
        # ... and no empty token: the byte after each separator starts the next one
        if shaped[:, -1].all() and not shaped[:, :-1].any() and (body[1:][delim[:-1]] > _SP).all():
            d = delim.reshape(nlines, nfields)
            first = np.empty(nlines, dtype=np.int64)
            first[0] = 0
            first[1:] = d[:-1, -1] + 1
            _check_lengths(d[:, -1], first, line0, source, what)
            return _Block(buf, d, first, line0, None), nlines
    # General path: runs of separators, tabs, CR, blank lines, extra fields.
    nl_pos = delim[isnl]
    _check_lengths(nl_pos, None, line0, source, what)
    is_tok = ~is_delim
    edge = np.diff(is_tok.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    tstart = np.flatnonzero(edge == 1)
    tend = np.flatnonzero(edge == -1)
    tline = np.searchsorted(nl_pos, tstart)  # 0-based line index in this block
    counts = np.bincount(tline, minlength=nlines)
    miscounted = np.flatnonzero((counts < nfields if extra else counts != nfields) & (counts != 0))
    if len(miscounted):
        i = int(miscounted[0])
        expected = f"at least {nfields}" if extra else f"{nfields}"
        raise DataError(
            source,
            f"expected {expected} whitespace-separated fields ({what} format), got {int(counts[i])}: "
            f"{_line_text(body, nl_pos, i)[:120]!r}",
            line=line0 + i + 1,
        )
    if len(tstart) == 0:
        return None, nlines
    if extra and len(tstart) != nfields * int(np.count_nonzero(counts)):
        first_tok = np.zeros(nlines + 1, dtype=np.int64)
        np.cumsum(counts, out=first_tok[1:])
        keep = np.arange(len(tstart)) - first_tok[tline] < nfields  # the first nfields of a line
        tstart, tend, tline = tstart[keep], tend[keep], tline[keep]
    starts = tstart.reshape(-1, nfields)
    d = tend.reshape(-1, nfields)
    lines = line0 + 1 + tline[::nfields].astype(np.int64)
    return _Block(buf, d, starts[:, 0], line0, lines, starts), nlines


def _check_lengths(ends, starts, line0, source, what):
    """No line longer than MAX_LINE (``ends``: each line's newline; ``starts``: its start)."""
    if starts is None:
        starts = np.r_[0, ends[:-1] + 1]
    long = np.flatnonzero(ends - starts > MAX_LINE)
    if len(long):
        raise DataError(source, _long_line(what), line=line0 + int(long[0]) + 1)


def check_ids(block: _Block, f: int, source: str, what: str) -> None:
    """Field ``f`` holds ids: none longer than MAX_ID bytes (checked before any fixed-width
    column is built from them)."""
    length = block.end(f) - block.start(f)
    if len(length) == 0:
        return
    i = int(np.argmax(length))
    if length[i] > MAX_ID:
        raise DataError(
            source,
            f"{what} of {int(length[i]):,} bytes; ids may be at most {MAX_ID:,} bytes: "
            f"{block.token(f, i)[:40].decode('utf-8', 'replace')!r}...",
            line=block.line(i),
        )


_LOWMASK = np.array([(1 << (8 * v)) - 1 for v in range(9)], dtype=np.uint64)  # keep v low bytes


def fixed_bytes(block: _Block, f: int) -> np.ndarray:
    """Field ``f`` as a fixed-width ``S`` array, NUL-padded to a multiple of 8 bytes (so the
    same memory views as uint64 words for hashing). One 8-byte load per word, no byte loop."""
    start, end = block.start(f), block.end(f)
    length = end - start
    nw = max(-(-int(length.max(initial=1)) // 8), 1)
    if nw == 1:  # the common case: every token fits one word
        return (block.words[start + 8] & _LOWMASK.take(np.minimum(length, 8))).view("S8")
    out = np.empty((len(start), nw), dtype=np.uint64)
    last = len(block.words) - 1
    for k in range(nw):
        # A field shorter than the longest has no bytes in word k (its mask is 0); clamp its
        # load so it stays inside the block even for the last lines of the file.
        keep = _LOWMASK.take(np.clip(length - 8 * k, 0, 8))
        out[:, k] = block.words[np.minimum(start + (8 * k + 8), last)] & keep
    return out.view(f"S{8 * nw}").ravel()


# Numbers: the score/label tokens of a block go to Arrow's parser (its cast kernel, called through
# harness.formats.arrow), which is correctly rounded (it equals Python's float() on every decimal
# and scientific form) and releases the GIL. The
# tokens are handed over without a copy: one Arrow string array over the block's own bytes whose
# even elements are the tokens and odd elements the gaps between them, marked null and so never
# parsed. Measured here on 1M tokens (one thread, loaded 2-core machine): 22-50 ms for 4-decimal
# and 17-digit repr() scores, where Python's float() per token took ~400 ms and numpy's
# bytes->float64 cast ~800 ms.
def _token_strings(block: _Block, f: int, starts=None):
    start = block.start(f) if starts is None else starts
    end = block.end(f)
    n = len(start)
    off = np.empty(2 * n, dtype=np.int32)
    off[0::2], off[1::2] = start, end
    valid = np.full(-(-max(2 * n - 1, 1) // 8), 0x55, dtype=np.uint8)  # bits 0, 2, 4...: the tokens
    return pa.StringArray.from_buffers(
        max(2 * n - 1, 0), pa.py_buffer(off), pa.py_buffer(block.body), pa.py_buffer(valid), max(n - 1, 0)
    )


def _parsed(block, f, arrow_type, dtype, starts=None):
    """The tokens of field ``f`` as numbers, or None when one of them is not a number."""
    if len(block) == 0:
        return np.zeros(0, dtype=dtype)
    try:
        out = arrow.cast(_token_strings(block, f, starts), arrow_type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    return np.frombuffer(out.buffers()[1], dtype=dtype, count=2 * len(block) - 1)[0::2]


def _first_bad(block, f, ok, source, message):
    for i in range(len(block)):
        tok = block.token(f, i)
        if not ok(tok):
            shown = tok.decode("utf-8", "replace")
            raise DataError(source, f"{message}, got {shown[:120]!r}", line=block.line(i))
    raise DataError(source, message, line=block.line(0))  # not reached: Arrow and the check agree


def is_number(tok: bytes) -> bool:
    """Whether :func:`parse_floats` reads ``tok`` as a number (NaN aside: a number, refused there)."""
    return _FLOAT_RE.fullmatch(tok) is not None


def parse_floats(block: _Block, f: int, source: str, what: str) -> np.ndarray:
    """Field ``f`` as float64, each value the one ``float()`` gives for its text: decimals,
    scientific notation, a leading sign, inf. NaN and anything else are errors naming the line."""
    vals = _parsed(block, f, _arrow_type("float64"), np.float64)
    message = f"{what} must be a decimal number (nan is not allowed)"
    if vals is None:
        _first_bad(block, f, is_number, source, message)
    nan = np.flatnonzero(np.isnan(vals))
    if len(nan):
        _first_bad(block, f, lambda t: not np.isnan(float(t)), source, message)
    return vals


_INT_RE = re.compile(rb"[+-]?0*\d{1,19}")  # no more digits than int64's: Python reads no int of 4,301


def is_integer(tok: bytes) -> bool:
    """Whether :func:`parse_ints` reads ``tok`` as an integer (an optional sign, digits, 64 bits)."""
    return _INT_RE.fullmatch(tok) is not None and -(2**63) <= int(tok) < 2**63


def parse_ints(block: _Block, f: int, source: str, what: str) -> np.ndarray:
    """Field ``f`` as int64 (an optional sign, then digits)."""
    start = block.start(f)
    plus = (block.body.take(start) == 43) & (block.body.take(np.minimum(start + 1, len(block.body) - 1)) > 47)
    vals = _parsed(block, f, _arrow_type("int64"), np.int64, starts=start + plus)  # Arrow refuses "+2"
    if vals is None:
        _first_bad(
            block,
            f,
            is_integer,
            source,
            f"{what} must be an integer of at most 64 bits",
        )
    return vals


def _arrow_type(name):
    return getattr(pa, name)()


def file_size(path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
