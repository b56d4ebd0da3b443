"""Input hygiene shared by the topic and collection readers: what every line and every id must
satisfy before it enters a run file, a cache key or Lucene.

- **Only regular files are opened.** A FIFO, socket or device (``/dev/zero``) would block or
  never end; :func:`regular_file` refuses them before ``open``.
- **Memory is bounded by the file, not by its longest line.** Lines are read with a limit of
  :data:`LINE_LIMIT` bytes (1 MiB); a longer line is an error naming its line number.
- **A leading UTF-8 byte-order mark is skipped** (Windows editors and Excel write one); text
  must be UTF-8, an error names the line and byte.
- **Ids can always be written and read back.** Run files and qrels are whitespace-separated
  lines, so an id (topic or document) must be non-empty, at most :data:`ID_LIMIT` UTF-8 bytes,
  and hold no whitespace (any Unicode whitespace: space, tab, line breaks, no-break space, line
  separators) and no control character (C0, DEL, C1: NUL, ESC, ...). :func:`check_id` names the file, line and the offending character.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from harness.errors import DataError, read_error

__all__ = [
    "LINE_LIMIT",
    "ID_LIMIT",
    "BOM",
    "regular_file",
    "numbered_lines",
    "block_lines",
    "line_text",
    "json_values",
    "json_documents",
    "json_kind",
    "check_id",
    "id_problem",
    "compression",
    "refuse_compressed",
    "windows_path_hint",
    "field_count_hint",
]

LINE_LIMIT = 1 << 20  # bytes per line; a topic or a JSONL document line longer than 1 MiB is an error
ID_LIMIT = 4096  # bytes per id; Lucene itself refuses an indexed term over 32766 bytes
BOM = b"\xef\xbb\xbf"
_BAD_ID = re.compile(r"[\s\x00-\x1f\x7f-\x9f]")  # \s: every Unicode whitespace (str.isspace)
# The magic numbers of the compressed formats ir_datasets, ranx users and shell pipelines write:
# run, qrels and topic files are read as plain text, as trec_eval reads them.
_MAGIC = (
    (b"\x1f\x8b", "gzip", "gunzip -k"),
    (b"BZh", "bzip2", "bunzip2 -k"),
    (b"\xfd7zXZ\x00", "xz", "unxz -k"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"),
    (b"PK\x03\x04", "zip", "unzip"),
)


def compression(head: bytes) -> tuple[str, str] | None:
    """(format, the command that decompresses it) when ``head`` (a file's first bytes) starts
    like a compressed file, else None.

    >>> compression(b"\\x1f\\x8b\\x08\\x00")
    ('gzip', 'gunzip -k')
    >>> compression(b"301 Q0 FBIS3-1 1 12.5 run") is None
    True
    """
    for magic, name, command in _MAGIC:
        # bzip2's "BZh" is followed by a block size digit and a block's magic (pi's digits) or
        # the end of the stream's (sqrt(pi)'s): a topic id "BZh1" is not taken for one
        if head.startswith(magic) and (name != "bzip2" or head[4:10] in (b"1AY&SY", b"\x17rE8P\x90")):
            return name, command
    return None


def refuse_compressed(path, head: bytes, what: str = "these") -> None:
    """A DataError when ``head`` is the start of a compressed file. Run, qrels and topic files
    are plain text, as trec_eval and Anserini's topic readers read them (trec_eval 9.0.4 given a
    .gz run crashes with a segmentation fault); without this the first byte would be reported
    as a control character or as text that is not UTF-8."""
    found = compression(head)
    if found:
        name, command = found
        why = " (trec_eval cannot read compressed files either)" if what in ("run", "qrels") else ""
        raise DataError(
            path,
            f"is {'an' if name == 'xz' else 'a'} {name}-compressed file, and {what} files are read as plain text{why}: "
            f"decompress it first, e.g. `{command} {path}`",
        )


_WINDOWS = re.compile(r"\A[A-Za-z]:[\\/]|\\")  # a drive letter, or a backslash anywhere


def windows_path_hint(path) -> str:
    """A sentence for "not found" when ``path`` looks like a Windows path (``C:\\runs\\a.trec``,
    ``runs\\a.trec``) on a system whose folders are separated by '/', else ''.

    >>> windows_path_hint("runs/bm25.trec")
    ''
    """
    if os.sep != "/" or not _WINDOWS.search(str(path)):
        return ""
    return (
        " (a Windows path? Here folders are separated by '/' and there are no drive letters: "
        "a backslash is part of a file name)"
    )


_FIELD_COUNT = re.compile(r"expected (?:at least )?\d+ whitespace-separated fields .*, got (\d+): ")


def field_count_hint(error: DataError, hints: Mapping[int, str | Callable[[list[bytes]], str | None]]) -> DataError:
    """``error`` with ``hints[n]`` appended when it says a line has ``n`` fields (the tokenizer's
    message): another tool's layout, named with the command that converts it. A hint may be a
    function of the line's fields (read again from the file: an error's path only), for a count
    whose meaning depends on the values, or None."""
    m = _FIELD_COUNT.search(str(error))
    hint = hints.get(int(m.group(1))) if m else None
    if callable(hint):
        fields = _line_fields(error.source, error.line)
        hint = hint(fields) if fields is not None else None
    if not hint:
        return error
    prefix = f"{error.source}:{error.line}: " if error.line is not None else f"{error.source}: "
    return DataError(error.source, f"{str(error).removeprefix(prefix)}. {hint}", line=error.line)


def _line_fields(path, line: int | None) -> list[bytes] | None:
    """The whitespace-separated fields of line ``line`` (1-based) of the file, as the tokenizer
    splits them; None when it cannot be read."""
    if line is None:
        return None
    try:
        with open(path, "rb") as f:
            text = next(itertools.islice(f, line - 1, None), None)
    except OSError:
        return None
    if text is None:
        return None
    return (text.removeprefix(BOM) if line == 1 else text).split()


def regular_file(path: Path, what: str = "file") -> Path:
    """``path`` when it is a regular file (symlinks followed); else a DataError that says what
    it is. Never opens it, so a FIFO or a device cannot block the harness."""
    path = Path(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise DataError(path, f"{what} not found{windows_path_hint(path)}") from None
    except OSError as e:  # ELOOP (symlink loop), EACCES, ENAMETOOLONG...
        raise read_error(path, f"cannot read the {what}: {e.strerror or e}", e) from None
    if not stat.S_ISREG(st.st_mode):
        raise DataError(path, f"is {_kind(st.st_mode)}, not a regular {what}; the harness reads only regular files")
    return path


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def numbered_lines(path: Path, fh=None, limit: int = LINE_LIMIT) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line, the line end kept, a leading BOM dropped. ``fh`` is an
    open binary file (e.g. ``gzip.open``); by default ``path`` is opened after
    :func:`regular_file`. A line over ``limit`` bytes, or not UTF-8, is a DataError at its line."""
    if fh is None:
        regular_file(path)
        try:
            fh = open(path, "rb")
        except OSError as e:
            raise read_error(path, f"cannot read: {e.strerror or e}", e) from None
        with fh:
            refuse_compressed(path, fh.peek(16)[:16])
            yield from numbered_lines(path, fh, limit)
        return
    lineno = 0
    while True:
        raw = _readline(path, fh, limit + 1 + (len(BOM) if lineno == 0 else 0))  # a BOM is not the line's
        if not raw:
            return
        lineno += 1
        if lineno == 1 and raw.startswith(BOM):
            raw = raw[len(BOM) :]
        if len(raw) - raw.endswith(b"\n") > limit:
            raise _too_long(path, lineno, limit)
        yield lineno, line_text(path, lineno, raw)


def line_text(path: Path, lineno: int, raw: bytes) -> str:
    """One line's bytes as text (what numbered_lines yields for it); DataError if not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DataError(
            path, f"not UTF-8 text (byte {e.start + 1} of the line: {raw[e.start : e.start + 1]!r})", line=lineno
        ) from None


def _too_long(path: Path, lineno: int, limit: int) -> DataError:
    return DataError(
        path, f"line longer than {limit:,} bytes; not a line of text (is this the right file?)", line=lineno
    )


def block_lines(path: Path, fh, limit: int = LINE_LIMIT, block: int = 1 << 24) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of each line of the open binary file ``fh``, its end kept and a leading
    BOM dropped, as numbered_lines reads them but not decoded (:func:`line_text` decodes one) and
    read ``block`` bytes at a time: one read and one split per block instead of a readline and a
    decode per line (20 us of the vectors' check's ~170 per 768-number line). A line over
    ``limit`` bytes is the same DataError at its line, raised once the lines before it are given."""
    lineno, rest = 0, b""
    while True:
        chunk = _read_block(path, fh, block)
        lines = (rest + chunk).split(b"\n") if chunk else [rest]
        rest = lines.pop() if chunk else b""
        for raw in lines:
            if not chunk and not raw:  # the file ended with a line end (or is empty)
                break
            lineno += 1
            if lineno == 1 and raw.startswith(BOM):
                raw = raw[len(BOM) :]
            if len(raw) > limit:
                raise _too_long(path, lineno, limit)
            yield lineno, raw + b"\n" if chunk else raw  # the last line may have no line end
        if not chunk:
            return
        if len(rest) > limit + len(BOM):  # bounded memory: a line that cannot end in time
            raise _too_long(path, lineno + 1, limit)


def _readline(path: Path, fh, size: int) -> bytes:
    return _read_block(path, fh, size, line=True)


def _read_block(path: Path, fh, size: int, line: bool = False) -> bytes:
    try:
        return fh.readline(size) if line else fh.read(size)
    except (gzip.BadGzipFile, zlib.error, EOFError) as e:
        raise DataError(
            path,
            f"not a valid compressed file ({type(e).__name__}: {e}); it is truncated or corrupt: recompress or replace it",
        ) from None
    except OSError as e:
        raise read_error(path, f"cannot read: {e.strerror or e}", e) from None


def json_values(path: Path, lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, object]]:
    """(line number, parsed value) of each non-blank line; DataError at the first line that is
    not JSON (too deeply nested included: Python's parser would raise RecursionError)."""
    for lineno, line in lines:
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except ValueError as e:
            raise DataError(path, f"invalid JSON: {e}", line=lineno) from None
        except RecursionError:
            raise DataError(path, "invalid JSON: nested too deeply", line=lineno) from None


def json_kind(value) -> str:
    """What a parsed JSON value is, in JSON's words and with the value when it is short, for the
    "(it is ...)" of an error: ``null``, ``the boolean true``, ``the number 1.5``, ``the string
    "3"``, ``an object``, ``an array``. One wording for every JSON reader (corpora, BEIR, impact
    vectors, topics)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        text = json.dumps(value)
        return f"the number {text if len(text) <= 40 else text[:37] + '...'}"
    if isinstance(value, str):
        return f"the string {json.dumps(value[:40])}"
    kinds: dict[type, str] = {dict: "an object", list: "an array"}
    return kinds.get(type(value), f"a {type(value).__name__}")


_JSON_SPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace, Jackson's too
_DECODER = json.JSONDecoder()


def json_documents(path: Path, lines: Iterable[tuple[int, str]], limit: int) -> Iterator[tuple[int, object]]:
    """(line number where it starts, parsed value) of each JSON value of a file read as Anserini's
    JsonCollection reads it: values one after another, separated by any whitespace (Jackson's
    ``readValues``), so one object per line, one pretty-printed object per file, and several
    pretty-printed objects in a row are all read. A JSON token never spans a line (a string may
    hold no raw line break), so a value is parsed once its last line has been read: a parse
    error at the end of what has been read means "read on", anywhere else it is the file's error,
    named at its line. A value longer than ``limit`` characters is an error (bounded memory)."""
    buf, first, size = "", 0, 0  # the pending value's text, its first line, its length in characters
    for lineno, line in lines:
        if not buf:
            if not line.strip(" \t\n\r"):
                continue
            first = lineno
        buf += line
        size += len(line)
        pos = 0
        while True:
            space = _JSON_SPACE.match(buf, pos)
            assert space is not None  # `*`: it matches, if only the empty string
            pos = space.end()
            if pos == len(buf):
                buf = ""
                break
            try:
                value, end = _DECODER.raw_decode(buf, pos)
            except ValueError as e:
                if getattr(e, "pos", 0) >= len(buf.rstrip(" \t\n\r")):
                    buf, first = buf[pos:], first + buf.count("\n", 0, pos)
                    if size > limit:
                        raise DataError(path, f"a JSON value longer than {limit:,} characters", line=first) from None
                    break  # incomplete: read on
                raise _broken_value(path, buf, pos, first, e) from None
            except RecursionError:
                raise DataError(path, "invalid JSON: nested too deeply", line=first) from None
            yield first + buf.count("\n", 0, pos), value
            first += buf.count("\n", 0, end)
            buf, pos, size = buf[end:], 0, len(buf) - end
    if buf:
        space = _JSON_SPACE.match(buf)
        assert space is not None  # `*`: it matches, if only the empty string
        try:
            _DECODER.raw_decode(buf, space.end())
        except ValueError as e:
            raise DataError(path, f"invalid JSON at the end of the file: {getattr(e, 'msg', e)}", line=first) from None
        except RecursionError:
            raise DataError(path, "invalid JSON: nested too deeply", line=first) from None


def _broken_value(path: Path, buf: str, pos: int, first: int, e: ValueError) -> DataError:
    """The error of the value starting at ``buf[pos]`` (line ``first`` of the file at ``buf[0]``),
    named at the line where that value starts: a document cut short on line 2 is seen to break
    only where line 3 begins ("Expecting ',' delimiter"), and line 3 is not the one to fix."""
    at = getattr(e, "pos", pos)
    start, line = first + buf.count("\n", 0, pos), first + buf.count("\n", 0, at)
    msg = getattr(e, "msg", str(e))
    if line == start:
        return DataError(path, f"invalid JSON: {msg}", line=start)
    column = at - buf.rfind("\n", 0, at)
    where = f"{msg} at line {line}, column {column}"
    if buf[at : at + 1] in ("{", "[") and not buf[at - column + 1 : at].strip(" \t\r"):
        # another value begins on a line of its own: the one before it was cut short
        where += f", where another value begins: is line {line - 1} cut short?"
    return DataError(path, f"invalid JSON in the value that starts on this line: {where}", line=start)


def id_problem(value: str) -> str | None:
    """Why ``value`` cannot be an id (None when it can).

    >>> id_problem("q 1")[:30]
    'contains a space (U+0020): an '

    >>> id_problem("LA010189-0001") is None
    True
    """
    if not value:
        return "is empty"
    m = _BAD_ID.search(value)
    if m:
        c = m.group()
        name = {" ": "a space", "\t": "a tab", "\n": "a line break", "\r": "a carriage return", "\x00": "a NUL byte"}
        what = name.get(c) or (
            "a line separator" if c in "\u2028\u2029" else "whitespace" if c.isspace() else "a control character"
        )
        return (
            f"contains {what} (U+{ord(c):04X}): an id may hold no whitespace or control character, "
            "since run and qrels files are whitespace-separated lines"
        )
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > ID_LIMIT:
        return f"is {size:,} bytes long; ids may have at most {ID_LIMIT:,}"
    return None


def check_id(source, what: str, value: str, line: int | None = None) -> str:
    """``value`` if it can be an id, else DataError(source, line) naming ``what`` (e.g. 'topic id')."""
    why = id_problem(value)
    if why:
        shown = value if len(value) <= 60 else value[:60] + "..."
        raise DataError(source, f"{what} {shown!r} {why}", line=line)
    return value
