"""The columnar tokeniser shared by the run and qrels readers.

A file is read in large blocks; numpy finds the field boundaries of whole lines and turns columns
into arrays (topic segments, fixed-width id bytes, numbers) without a Python loop per line.
Blocks are parsed on ``HARNESS_THREADS`` threads (default 2; numpy releases the GIL) and the
results are assembled in file order. Errors name the file and line.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import queue
import re
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from harness.errors import DataError

__all__ = [
    "LineMap",
    "TopicColumn",
    "Column",
    "map_blocks",
    "dedupe",
    "fixed_bytes",
    "pad8",
    "parse_ints",
    "parse_floats",
    "worker_threads",
    "file_size",
    "salts",
    "id_hash",
    "topic_doc_keys",
]

_BLOCK = 16 << 20  # bytes per parsing block: small enough for the caches, bounds memory
_NL, _SP = 10, 32
# what strtod accepts, minus nan (which has no place in a ranking) and Python's "1_0"
_FLOAT_RE = re.compile(rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity)", re.I)


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

    def line(self, i) -> int:
        return int(self._lines[i]) if self._lines is not None else self.line0 + i + 1

    def token(self, f, i) -> bytes:
        return bytes(self.body[int(self.start(f)[i]) : int(self.end(f)[i])])


def _chunks(path, what: str, buffers: queue.Queue, block: int = _BLOCK) -> Iterator[tuple]:
    """Read the file into blocks of whole lines: yield (buffer, cut), the lines being
    ``buffer[_FRONT:_FRONT + cut]``. Buffers come from ``buffers`` (None: allocate one) and
    go back there once their block is processed."""
    try:
        f = open(path, "rb", buffering=0)
    except OSError as e:
        raise DataError(str(path), f"cannot read {what}: {e.strerror}") from None
    with f:
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
                    carry = bytes(buf[_FRONT : _FRONT + total])
                    buffers.put(None)  # keep growing: read the rest of the line
                    continue
                carry = bytes(buf[_FRONT + cut : _FRONT + total])
            yield buf, cut


def worker_threads() -> int:
    """Worker threads for parsing (numpy releases the GIL): HARNESS_THREADS, default 2."""
    try:
        n = int(os.environ.get("HARNESS_THREADS", "2"))
    except ValueError:
        n = 2
    return max(1, min(n, os.cpu_count() or 1))


def map_blocks(path, nfields: int, what: str, fn) -> Iterator:
    """Yield ``(line0, fn(block))`` for each :class:`_Block` of the file, in file order, where
    line0 is the number of lines before the block. Blocks are tokenised and processed on a few
    threads with block-relative line numbers (``block.line0 == 0``); each buffer is reused
    once its block is done; errors are reported with absolute line numbers."""
    source = str(path)
    threads = worker_threads()
    # small files get small blocks: the threads still share the work, memory stays low
    block = int(min(_BLOCK, max(file_size(path) // (4 * threads), 1 << 20)))
    buffers: queue.Queue = queue.Queue()
    for _ in range(threads + 1):
        buffers.put(None)

    def work(buf, cut):
        try:
            arr = np.frombuffer(buf, dtype=np.uint8, count=_FRONT + cut + _BACK)
            block, nlines = _tokenise(arr, nfields, 0, source, what)
            return nlines, (None if block is None else fn(block))
        finally:
            buffers.put(buf)

    line0 = 0

    def absolute(get):
        nonlocal line0
        try:
            nlines, r = get()
        except DataError as e:
            if e.line is None:
                raise
            message = str(e)[len(f"{e.source}:{e.line}: ") :]
            raise DataError(e.source, message, line=line0 + e.line) from None
        before, line0 = line0, line0 + nlines
        return before, r

    if threads == 1:
        for chunk in _chunks(path, what, buffers, block):
            before, r = absolute(lambda chunk=chunk: work(*chunk))
            if r is not None:
                yield before, r
        return
    with ThreadPoolExecutor(threads) as pool:
        pending: deque = deque()
        try:
            for chunk in _chunks(path, what, buffers, block):
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


def _tokenise(buf: np.ndarray, nfields: int, line0: int, source: str, what: str):
    """Split the lines in ``buf[_FRONT:-_BACK]`` into fields; bytes <= 32 separate tokens."""
    body = buf[_FRONT : len(buf) - _BACK]
    is_delim = body <= _SP
    delim = np.flatnonzero(is_delim)
    isnl = body[delim] == _NL
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
            return _Block(buf, d, first, line0, None), nlines
    # General path: runs of separators, tabs, CR, blank lines.
    is_tok = ~is_delim
    edge = np.diff(is_tok.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    tstart = np.flatnonzero(edge == 1)
    tend = np.flatnonzero(edge == -1)
    nl_pos = delim[isnl]
    tline = np.searchsorted(nl_pos, tstart)  # 0-based line index in this block
    counts = np.bincount(tline, minlength=nlines)
    bad = np.flatnonzero((counts != nfields) & (counts != 0))
    if len(bad):
        i = int(bad[0])
        lo = int(nl_pos[i - 1]) + 1 if i else 0
        text = bytes(body[lo : int(nl_pos[i])]).decode("utf-8", "replace").strip()
        raise DataError(
            source,
            f"expected {nfields} whitespace-separated fields ({what} format), got {int(counts[i])}: {text[:120]!r}",
            line=line0 + i + 1,
        )
    if len(tstart) == 0:
        return None, nlines
    starts = tstart.reshape(-1, nfields)
    d = tend.reshape(-1, nfields)
    lines = line0 + 1 + tline[::nfields].astype(np.int64)
    return _Block(buf, d, starts[:, 0], line0, lines, starts), nlines


_U = np.uint64
_LOWMASK = np.array([(1 << (8 * v)) - 1 for v in range(9)], dtype=np.uint64)  # keep v low bytes
_HIGHMASK = ~_LOWMASK[::-1].copy()  # keep v high bytes
_ZEROS, _DOTS = _U(0x3030303030303030), _U(0x2E2E2E2E2E2E2E2E)
_LO7, _F0, _SIX = _U(0x7F7F7F7F7F7F7F7F), _U(0xF0F0F0F0F0F0F0F0), _U(0x0606060606060606)


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


def _zero_bytes(t):
    """High bit set in exactly the bytes of ``t`` that are 0 (no false positives)."""
    return ~((((t & _LO7) + _LO7) | t) | _LO7)


def _swar8(w):
    """Eight ASCII digits in a little-endian word (first char lowest) -> their value."""
    x = w - _ZEROS
    x = ((x * _U(10)) + (x >> _U(8))) & _U(0x00FF00FF00FF00FF)
    x = ((x * _U(100)) + (x >> _U(16))) & _U(0x0000FFFF0000FFFF)
    return ((x * _U(10000)) + (x >> _U(32))) & _U(0xFFFFFFFF)


_FILL = _ZEROS & ~_HIGHMASK  # '0' in the bytes a mask drops
_POW10 = 10.0 ** np.arange(23)
_SLICE = 1 << 16  # rows per step: temporaries stay in cache


def _parse_numbers(block: _Block, f: int, *, integer: bool):
    """Parse decimal tokens exactly, 8 bytes at a time. Returns (values, ok); ``ok`` marks the
    tokens handled here: an optional sign and <= 16 digits/dot whose mantissa is < 2**53. For
    those, int / 10**e is correctly rounded (both operands are exact in float64), which is
    what strtod returns. The caller handles the rest (exponents, inf, long mantissas)."""
    start, end = block.start(f), block.end(f)
    vals = np.empty(len(start), dtype=np.int64 if integer else np.float64)
    ok = np.empty(len(start), dtype=bool)
    for lo in range(0, len(start), _SLICE):
        sl = slice(lo, lo + _SLICE)
        s, e = start[sl], end[sl]
        if int((e - s).max()) <= 8:
            vals[sl], ok[sl] = _parse_short(block, s, e, integer)
        else:
            vals[sl], ok[sl] = _parse_long(block, s, e, integer)
    return vals, ok


def _parse_short(block, start, end, integer):
    """Tokens of <= 8 bytes: one word each; the dot is squeezed out before the digit SWAR."""
    first = block.body.take(start)
    neg = first == 45
    body = end - start - (neg | (first == 43))
    b = np.maximum(body, 0)
    w = (block.words[end] & _HIGHMASK.take(b)) | _FILL.take(b)  # sign and before -> '0'
    if integer:
        ok = (body >= 1) & ((w & _F0) == _ZEROS) & (((w + _SIX) & _F0) == _ZEROS)
        vals = _swar8(w).astype(np.int64)
        return np.where(neg, -vals, vals), ok
    zb = _zero_bytes(w ^ _DOTS) >> _U(7)  # 0x01 in the byte holding '.'
    ndots = np.bitwise_count(zb)
    has = (zb != 0).astype(np.uint64)
    below = zb - has  # the bytes left of the dot (0: no dot)
    w = ((w & below) << _U(8)) | (w & ~(below | (zb * _U(0xFF)))) | (has * _U(0x30))
    frac = ((56 - np.bitwise_count(below).astype(np.int64)) >> 3) * has.astype(np.int64)
    ok = ((w & _F0) == _ZEROS) & (((w + _SIX) & _F0) == _ZEROS) & (ndots <= 1) & (body > ndots)
    vals = _swar8(w).astype(np.float64) / _POW10.take(frac)
    return np.where(neg, -vals, vals), ok


def _parse_long(block, start, end, integer):
    """Tokens up to 16 bytes (two words); anything longer is left to the caller."""
    first = block.body.take(start)
    signed = (first == 45) | (first == 43)
    body = end - start - signed
    ok = (body >= 1) & (body <= 16)
    nw = 1 if int(body.max(initial=1)) <= 8 else 2
    mant = np.zeros(len(start), dtype=np.uint64)
    frac = np.zeros(len(start), dtype=np.int64)
    ndots = np.zeros(len(start), dtype=np.uint64)
    for k in range(nw):  # k = 0 is the rightmost word
        w = block.words[np.maximum(end - 8 * k, 0)]
        keep = _HIGHMASK.take(np.clip(body - 8 * k, 0, 8))
        w = (w & keep) | (_ZEROS & ~keep)  # bytes before the token read as '0'
        if not integer:
            z = _zero_bytes(w ^ _DOTS)
            has = z != 0
            ndots += np.bitwise_count(z)
            ctz = np.bitwise_count((z & (~z + _U(1))) - _U(1)).astype(np.int64)
            frac = np.where(has, 8 * k + 7 - ctz // 8, frac)
            w = w + ((z >> _U(7)) << _U(1))  # '.' -> '0'
        ok &= ((w & _F0) == _ZEROS) & (((w + _SIX) & _F0) == _ZEROS)
        val = _swar8(w)
        mant = val if k == 0 else mant + val * _U(10**8)
    if integer:
        vals = mant.astype(np.int64)
        return np.where(first == 45, -vals, vals), ok
    dotted = ndots == 1
    ok &= (ndots <= 1) & (body > ndots.astype(np.int64))
    p = np.power(_U(10), frac.astype(np.uint64))
    low = mant % p
    mant = np.where(dotted, (mant - low) // _U(10) + low, mant)
    ok &= mant < _U(1 << 53)
    vals = mant.astype(np.float64) / np.power(10.0, frac)
    return np.where(first == 45, -vals, vals), ok


def parse_floats(block: _Block, f: int, source: str, what: str) -> np.ndarray:
    vals, ok = _parse_numbers(block, f, integer=False)
    slow = np.flatnonzero(~ok)  # exponents, inf, > 15 digits (e.g. repr() of a float64)
    if len(slow):
        starts, ends, body = block.start(f)[slow].tolist(), block.end(f)[slow].tolist(), block.body
        for i, a, b in zip(slow.tolist(), starts, ends):
            tok = bytes(body[a:b])
            if not _FLOAT_RE.fullmatch(tok):
                raise DataError(
                    source,
                    f"{what} must be a decimal number (nan is not allowed), got {tok.decode('utf-8', 'replace')!r}",
                    line=block.line(i),
                )
            vals[i] = float(tok)
    return vals


def parse_ints(block: _Block, f: int, source: str, what: str) -> np.ndarray:
    vals, ok = _parse_numbers(block, f, integer=True)
    bad = np.flatnonzero(~ok)
    if len(bad):
        i = int(bad[0])
        tok = block.token(f, i).decode("utf-8", "replace")
        raise DataError(source, f"{what} must be an integer, got {tok!r}", line=block.line(i))
    return vals


class LineMap:
    """File line of each row, kept per block (no per-row array for regular blocks)."""

    def __init__(self):
        self.rows = [0]
        self.info = []
        self.order = None  # set when rows were regrouped by topic

    @staticmethod
    def of(block: _Block):
        """What a worker hands back for :meth:`add`."""
        return block.line0, block._lines, len(block)

    def add(self, info, offset: int = 0):
        """``info`` from :meth:`of` on a block whose lines are numbered from ``offset``."""
        line0, lines, n = info
        self.info.append((line0 + offset, None if lines is None else lines + offset))
        self.rows.append(self.rows[-1] + n)

    def __getitem__(self, i) -> int:
        i = int(self.order[i]) if self.order is not None else int(i)
        b = bisect.bisect_right(self.rows, i) - 1
        line0, lines = self.info[b]
        j = i - self.rows[b]
        return int(lines[j]) if lines is not None else line0 + j + 1


class TopicColumn:
    """Accumulates a topic column block by block as segments (topic index, row count)."""

    def __init__(self):
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.seg_topic: list[int] = []
        self.seg_len: list[int] = []

    @staticmethod
    def segments(block: _Block, f: int = 0):
        """The block's runs of equal topic ids: (names, lengths). Stateless (thread-safe)."""
        ids = fixed_bytes(block, f)
        words = ids.view(np.uint64).reshape(len(ids), -1)
        change = words[1:, 0] != words[:-1, 0]
        for k in range(1, words.shape[1]):
            change |= words[1:, k] != words[:-1, k]
        heads = np.flatnonzero(np.r_[True, change])
        lens = np.diff(np.r_[heads, len(ids)])
        return [h.decode("utf-8", "surrogateescape") for h in ids[heads].tolist()], lens.tolist()

    def add(self, segments):
        for name, ln in zip(*segments):
            t = self.index.get(name)
            if t is None:
                t = self.index[name] = len(self.names)
                self.names.append(name)
            if self.seg_topic and self.seg_topic[-1] == t:
                self.seg_len[-1] += ln
            else:
                self.seg_topic.append(t)
                self.seg_len.append(ln)

    def grouping(self):
        """(names, offsets, order): ``order`` is None when each topic is one contiguous
        segment, else the stable permutation that groups the rows by topic."""
        seg_topic = np.asarray(self.seg_topic, dtype=np.int64)
        seg_len = np.asarray(self.seg_len, dtype=np.int64)
        counts = np.bincount(seg_topic, weights=seg_len, minlength=len(self.names)).astype(np.int64)
        offsets = np.zeros(len(self.names) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        order = None
        if len(seg_topic) != len(self.names):
            order = np.argsort(np.repeat(seg_topic, seg_len), kind="stable")
        return self.names, offsets, order


# --------------------------------------------------------------------------- hashing
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def id_hash(ids: np.ndarray) -> np.ndarray:
    """A cheap 64-bit hash of each id of a NUL-padded ``S`` array (width a multiple of 8).
    Independent of the width (NUL words are skipped), so arrays of different widths agree.
    Not collision-free: equal hashes are always confirmed by comparing the bytes."""
    width = ids.dtype.itemsize
    words = ids.view(np.uint64).reshape(len(ids), width // 8)
    h = words[:, 0] * _M1
    for j in range(1, words.shape[1]):
        w = words[:, j]
        h = np.where(w != 0, (h ^ w) * _M2, h)
    return h


def salts(topics) -> np.ndarray:
    return np.array(
        [
            int.from_bytes(hashlib.blake2b(t.encode("utf-8", "surrogateescape"), digest_size=8).digest(), "little")
            for t in topics
        ],
        dtype=np.uint64,
    )


def topic_doc_keys(topics: list[str], offsets: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """64-bit (topic, doc) key per row: the doc id hash xor a salt drawn from the topic *name*,
    so a run's and a qrels' keys agree without any mapping between their topic indexes."""
    keys = np.repeat(salts(topics), np.diff(offsets))
    step = 1 << 20  # in slices: no second run-sized array to fault in
    for lo in range(0, len(keys), step):
        keys[lo : lo + step] ^= id_hash(ids[lo : lo + step])
    return keys


def _find_duplicates(keys: np.ndarray, ids: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Row indices that repeat an earlier row's (topic, id), in row order. Only rows whose
    hash key is shared are compared, by their bytes (a hash collision is not a duplicate)."""
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    shared = np.zeros(len(k), dtype=bool)
    eq = k[1:] == k[:-1]
    shared[1:] |= eq
    shared[:-1] |= eq
    rows = np.sort(order[shared])
    o = rows[np.lexsort((rows, ids[rows], seg[rows]))]
    again = (ids[o[1:]] == ids[o[:-1]]) & (seg[o[1:]] == seg[o[:-1]])
    return np.sort(o[1:][again])


def dedupe(kind, source, names, offsets, ids, lines, duplicates, keys):
    """Check (topic, id) uniqueness; return a keep-mask or None. ``lines`` may be None;
    ``keys`` are the rows' :func:`topic_doc_keys`."""
    if duplicates not in ("error", "drop"):
        raise ValueError(f"duplicates must be 'error' or 'drop' (got {duplicates!r})")
    if len(ids) < 2:
        return None
    lens = np.diff(offsets)
    # sort ~1M rows at a time, cut at topic boundaries (duplicates are within a topic)
    cuts = np.unique(np.r_[offsets[np.searchsorted(offsets, np.arange(0, len(ids), 1 << 20))], len(ids)])
    for lo, hi in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
        s = np.sort(keys[lo:hi])
        if (s[1:] == s[:-1]).any():
            break
    else:
        return None
    seg = np.repeat(np.arange(len(names), dtype=np.int64), lens)
    dup = _find_duplicates(keys, ids, seg)
    if len(dup) == 0:
        return None
    if duplicates == "error":
        i = int(dup[0])
        t = int(seg[i])
        doc = ids[i].decode("utf-8", "surrogateescape")
        lo = int(offsets[t])
        first = lo + int(np.flatnonzero(ids[lo:i] == ids[i])[0])
        where = f" (first seen on line {lines[first]})" if lines is not None else ""
        hint = (
            " Remove them, or read with duplicates='drop' to keep each document's first row."
            if kind == "document"
            else " Keep one judgment per document."
        )
        raise DataError(
            source,
            f"duplicate {kind} for topic {names[t]!r}, document {doc!r}{where}; "
            f"{len(dup)} duplicate row(s) in all.{hint}",
            line=lines[i] if lines is not None else None,
        )
    keep = np.ones(len(ids), dtype=bool)
    keep[dup] = False
    return keep


def pad8(ids: np.ndarray) -> np.ndarray:
    """Widen an ``S`` array to a multiple of 8 bytes (NUL padding, values unchanged)."""
    w = ids.dtype.itemsize
    w8 = max(-(-w // 8) * 8, 8)
    return ids if w8 == w else ids.astype(f"S{w8}")


def file_size(path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


class Column:
    """A column filled block by block into one array sized from the file size (a final
    concatenation would touch every page of a second run-sized array)."""

    def __init__(self, file_size: int):
        self.file_size = file_size
        self.arr = None
        self.n = 0

    def append(self, part: np.ndarray, part_bytes: int):
        if self.arr is None:
            guess = int(self.file_size / max(part_bytes, 1) * len(part) * 1.02) + 1024
            self.arr = np.empty(max(guess, len(part)), dtype=part.dtype)
        if part.dtype.itemsize > self.arr.dtype.itemsize:  # wider doc ids: re-widen
            wider = np.empty(len(self.arr), dtype=part.dtype)
            wider[: self.n] = self.arr[: self.n]
            self.arr = wider
        if self.n + len(part) > len(self.arr):
            bigger = np.empty(max(2 * len(self.arr), self.n + len(part)), dtype=self.arr.dtype)
            bigger[: self.n] = self.arr[: self.n]
            self.arr = bigger
        self.arr[self.n : self.n + len(part)] = part
        self.n += len(part)

    def result(self, empty: np.ndarray) -> np.ndarray:
        return empty if self.arr is None else self.arr[: self.n]
