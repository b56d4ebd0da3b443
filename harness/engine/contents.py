"""A collection's documents checked before and after Anserini's IndexCollection reads them, as
its format says (harness.formats.catalog: ``documents``, ``scanned``, ``dense``, ``docno_ids``).

Anserini's JSON collections stop reading a file at its first malformed value (or at a document
its JSON parser or Lucene refuses) and report nothing; its vector collections cast what they
cannot read to 0 or fail inside Lucene. So every document is checked here first, each by its
format's check of one document (harness.formats.json_docs; a vector's, harness.engine.vectors),
and bad input fails with its file and line; after the build, Anserini's counters are compared
with the documents counted, and a shortfall is named (:func:`check_complete`).

:func:`start_checks` runs the check beside the build: a vectors collection's on a thread of its
own, with a first pass in Java (harness.VectorLines) over a large file.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from pathlib import Path

from harness.engine import lucene
from harness.engine.corpus import Corpus, open_binary, read_chunk
from harness.engine.vectors import (
    MAX_DIMENSIONS,
    SameDimension,
    fast_json_object,
    fast_vector_document,
    parquet_count,
    parquet_rows,
    parse_vector,
)
from harness.errors import DataError
from harness.formats.hygiene import BOM, block_lines, check_id, json_documents, json_values, line_text, numbered_lines
from harness.formats.json_docs import JSON_STRING_LIMIT, document_id

__all__ = [
    "DOC_LINE_LIMIT",
    "VectorScan",
    "check_contents",
    "check_complete",
    "check_jsonl",
    "check_jsonl_file",
    "check_vectors",
    "start_checks",
]

# (file, line limit, most dimensions) -> (first doubtful line or 0, lines recognised before it, their
# dimension, the first one's line): harness.VectorLines.scan, check_vectors's first pass
VectorScan = Callable[[Path, int, int], tuple[int, int, int, int]]

# A "contents" key whose value is a string, and any "contents" key (check_contents). Inside a JSON
# string a quote is escaped, so '"contents"' followed by a colon only matches a key.
_STRING_CONTENTS = re.compile(rb'"contents"\s*:\s*"')
_CONTENTS_KEY = re.compile(rb'"contents"\s*:')
DOC_LINE_LIMIT = 4 * JSON_STRING_LIMIT + (1 << 20)  # bytes: any line holding a longer string is refused
_DOCNO = re.compile(r"<DOCNO>(.*?)</DOCNO>", re.S)
_BOM_MESSAGE = (
    "starts with a UTF-8 byte-order mark, which Anserini's {cls} cannot read (it would index nothing "
    "from this file): save the file without it"
)


def check_contents(corpus: Corpus, scan: VectorScan | None = None) -> int | None:
    """Before Anserini reads a JSONL collection: every document's "contents" must be a JSON
    string. Anserini's JsonCollection turns a number into its text as Jackson writes it (1.50
    becomes "1.5"), an array or object into no words at all, and throws on null with a Java
    stack trace; none of these is what the user meant, so the harness refuses them, naming
    the file and line (exit 2). A scan of the bytes finds the lines that may be wrong (0.17 s
    on a 169 MB, 200k-document file, against 0.74 s for parsing every line); only then is
    every line parsed to name the first bad one (a false alarm, e.g. a blank line or a key
    written with a \\u escape, costs that parse and nothing else).

    The other JSON collections (impact, beir) have every document parsed and checked, since
    each needs more than its "contents" (term weights; "_id", "title" and "text"); a vectors
    collection every vector (:func:`check_vectors`). Returns, for these, the documents; for JSON
    lines, the lines the scan counted (an upper bound on the documents, the one check_complete
    compares Anserini's count with, and the total of the indexing's progress), or None where a
    file holds one JSON array, or for a format whose documents are not checked here."""
    fmt = corpus.format
    if fmt.dense:
        return check_vectors(corpus, scan)  # the number of documents (check_complete's `documents`)
    if fmt.documents is None:
        return None
    if not fmt.scanned:
        _check_no_bom(corpus)
        return check_jsonl(corpus)
    total: int | None = 0
    for f in corpus.files():
        lines = strings = keys = 0
        rest = b""
        with open_binary(f) as fh:
            first = b""
            while chunk := read_chunk(f, fh, 1 << 22):
                if not first and not lines and not rest and chunk.startswith(BOM):
                    # Jackson, reading text through a Reader, stops at it: the whole file is lost
                    raise DataError(f, _BOM_MESSAGE.format(cls="JsonCollection"), line=1)
                if not first:
                    first = chunk.lstrip()[:1]
                    if first == b"[":
                        break
                chunk = rest + chunk
                cut = chunk.rfind(b"\n") + 1
                rest, chunk = chunk[cut:], chunk[:cut]
                lines += chunk.count(b"\n")
                strings += len(_STRING_CONTENTS.findall(chunk))
                keys += len(_CONTENTS_KEY.findall(chunk))
        if first == b"[":  # one JSON array of documents: parsed whole (such files are small)
            check_jsonl_file(corpus, f)
            total = None
            continue
        if rest.strip():
            lines += 1
            strings += len(_STRING_CONTENTS.findall(rest))
            keys += len(_CONTENTS_KEY.findall(rest))
        if strings < lines or keys > strings:
            check_jsonl_file(corpus, f)
        if total is not None:  # an unterminated last line counts, as in _max_json_lines
            total += lines + (bool(rest) and not rest.strip())
    return total


def check_jsonl(corpus: Corpus) -> int:
    """Every document of a JSON collection, as :func:`check_jsonl_file` checks one file; the number of documents."""
    return sum(check_jsonl_file(corpus, f) for f in corpus.files())


def check_jsonl_file(corpus: Corpus, f: Path) -> int:
    """Every document of one file as JsonCollection reads it (one JSON array of documents,
    or JSON objects one after another: one per line, or pretty-printed over several lines,
    one or more per file); DataError naming the first bad one. Returns how many there are.
    Each document is checked by its format's check (harness.formats.json_docs): an impact
    collection's (JsonVectorCollection reads its files alike) as JsonVectorCollection reads them,
    a beir corpus's as the BEIR collections do."""
    check = corpus.format.documents
    if check is None:
        raise ValueError(f"the {corpus.format} collection's documents are not JSON documents")
    with open_binary(f) as fh:
        head = read_chunk(f, fh, 4096).lstrip()[:1]
    if head == b"[":  # JsonCollection also reads one JSON array of documents per file
        with open_binary(f) as fh:
            try:
                docs = json.loads(read_chunk(f, fh, -1))
            except ValueError as e:
                raise DataError(f, f"invalid JSON: {e}") from None
            except RecursionError:
                raise DataError(f, "invalid JSON: nested too deeply") from None
        if not isinstance(docs, list):
            raise DataError(f, "expected a JSON array of documents or one JSON object per line")
        for i, doc in enumerate(docs):
            check(f, doc, None, f"document {i}: ")
        return len(docs)
    count = 0
    with open_binary(f) as fh:
        for lineno, doc in json_documents(f, numbered_lines(f, fh, limit=DOC_LINE_LIMIT), DOC_LINE_LIMIT):
            check(f, doc, lineno, "")
            count += 1
    return count


def check_vectors(corpus: Corpus, scan: VectorScan | None = None) -> int:
    """Every line of a vectors collection: an object with a "docid" and a "vector" of finite
    numbers, all vectors of one dimension (harness.engine.vectors); DataError with file:line.
    Returns the number of documents (non-blank lines, or Parquet rows).

    ``scan``: a first pass over each uncompressed file (harness.VectorLines in Java, given by
    the index builder, whose JVM is running anyway) that finds how many lines from the top
    are of the one shape this check certainly accepts; only the lines from the first other
    one on are parsed here. None: every line is parsed here."""
    dims = SameDimension("vector")
    documents = 0
    if corpus.parquet:
        first_vector: dict = {}  # its dimension, shared by the files
        for f in corpus.files():
            for row, docid, _ in parquet_rows(f, "docid", ("string", "large_string"), first_vector, "documents"):
                _row_id(f, "document id", docid, row)
                documents += 1
        return documents

    def check(f: Path, doc: object, lineno: int) -> None:
        if not isinstance(doc, dict):
            raise DataError(f, 'expected a JSON object {"docid": ..., "vector": [...]}', line=lineno)
        document_id(f, doc, "docid", lineno)
        dims.check(f, len(parse_vector(f, doc.get("vector"), lineno)), lineno)

    def full(f: Path, lineno: int, raw: bytes) -> int:  # the documents on the line: 0 or 1
        line = line_text(f, lineno, raw)
        if not line.strip():
            return 0
        doc = fast_json_object(line)  # orjson: 2-3x faster; None when json.loads must say
        if doc is not None:
            try:
                check(f, doc, lineno)
                return 1
            except DataError:
                pass  # named below with json.loads's values (e.g. an integer beyond 64 bits)
        for _, value in json_values(f, [(lineno, line)]):
            check(f, value, lineno)
        return 1

    for f in corpus.files():
        skip = 0
        if scan is not None and not f.name.endswith(".gz"):
            doubtful, recognised, dim, first = scan(f, DOC_LINE_LIMIT, MAX_DIMENSIONS)
            if recognised:
                dims.check(f, dim, first)
                documents += recognised
            if not doubtful:
                continue
            skip = doubtful - 1  # lines the scan recognised: no line before the first doubtful one is wrong
        with open_binary(f) as fh:
            for lineno, raw in block_lines(f, fh, limit=DOC_LINE_LIMIT):
                if lineno <= skip:
                    continue
                fast = fast_vector_document(raw)  # the common line, about 70 us for 768 numbers
                if fast is not None:
                    try:
                        check_id(f, "document id", str(fast[0]), lineno)
                        dims.check(f, fast[1], lineno)
                        documents += 1
                        continue
                    except DataError:
                        pass  # named by the full check
                documents += full(f, lineno, raw)
    return documents


def check_complete(corpus: Corpus, counters: dict[str, int], documents: int | None = None) -> None:
    """Anserini's JsonCollection stops reading a file at its first malformed line and says
    nothing; when the documents it saw fall short of the lines, find the bad line ourselves.
    ``documents``: what check_contents counted (vectors: documents; JSON lines: lines), so
    the files are not read again."""
    fmt = corpus.format
    if counters.get("errors") or not counters.get("indexed"):
        _check_gzip(corpus)  # a corrupt .gz is counted as one error by Anserini: name it
        if fmt.docno_ids:
            _check_docnos(corpus)  # a DOCNO Lucene refuses drops its whole file
    if fmt.documents is None and not fmt.dense:
        return
    seen = sum(counters.values())
    if not fmt.scanned and documents is not None:  # every document already checked (and counted)
        if seen < documents:
            unit = "Parquet rows" if fmt.dense and corpus.parquet else "JSON lines" if fmt.dense else "JSON documents"
            raise DataError(corpus.path, f"Anserini read {seen} of {documents} {unit} ({counters})")
        return
    if fmt.dense and corpus.parquet:
        expected = sum(parquet_count(f) for f in corpus.files())
        if seen < expected:
            check_vectors(corpus)
            raise DataError(corpus.path, f"Anserini read {seen} of {expected} Parquet rows ({counters})")
        return
    bound = documents if documents is not None else _max_json_lines(corpus)
    if bound is None or seen >= bound:
        return
    if fmt.documents is not None:
        # Blank lines, and documents written over several lines, make the bound loose: count
        # the documents as JsonCollection reads them (raises DataError at a bad one).
        expected = check_jsonl(corpus)
        if seen < expected:
            raise DataError(corpus.path, f"Anserini read {seen} of {expected} JSON documents ({counters})")
        return
    expected = _count_json_lines(corpus)  # blank lines make the bound loose: count exactly
    if seen < expected:
        check_vectors(corpus)  # raises DataError naming the file and line
        raise DataError(corpus.path, f"Anserini read {seen} of {expected} JSON lines ({counters})")


def _check_no_bom(corpus: Corpus) -> None:
    """No file starting with a byte-order mark, which Jackson stops at (DataError, line 1)."""
    for f in corpus.files():
        with open_binary(f) as fh:
            if read_chunk(f, fh, len(BOM)) == BOM:
                raise DataError(f, _BOM_MESSAGE.format(cls=corpus.anserini_class), line=1)


def _max_json_lines(corpus: Corpus) -> int | None:
    """An upper bound on the documents JsonCollection should find (line breaks, plus an
    unterminated last line), or None when a file holds a JSON array. One bytes.count per file,
    so the check costs nothing measurable on the happy path."""
    total = 0
    for f in corpus.files():
        with open_binary(f) as fh:
            first, last = b"", b"\n"
            while chunk := read_chunk(f, fh, 1 << 22):
                if not first:
                    first = chunk.lstrip()[:1]
                total += chunk.count(b"\n")
                last = chunk[-1:]
        if first == b"[":
            return None
        total += last != b"\n"
    return total


def _count_json_lines(corpus: Corpus) -> int:
    """The exact number of non-blank lines of the JSONL files."""
    total = 0
    for f in corpus.files():
        with open_binary(f) as fh:
            total += sum(1 for _, line in numbered_lines(f, fh, limit=DOC_LINE_LIMIT) if line.strip())
    return total


def _check_docnos(corpus: Corpus) -> None:
    """Every <DOCNO> of a TREC collection must be an id (harness.formats.hygiene.check_id):
    Lucene refuses an id term over 32,766 bytes, and Anserini then drops the whole file."""
    for f in corpus.files():
        with open_binary(f) as fh:
            for lineno, line in numbered_lines(f, fh, limit=DOC_LINE_LIMIT):
                for m in _DOCNO.finditer(line):
                    check_id(f, "<DOCNO>", m.group(1).strip(), lineno)


def _check_gzip(corpus: Corpus) -> None:
    """Read every .gz file to its end: DataError naming the first corrupt or truncated one."""
    for f in corpus.files():
        if f.name.endswith(".gz"):
            with open_binary(f) as fh:
                while read_chunk(f, fh, 1 << 22):
                    pass


def _row_id(f: Path, what: str, value: str, row: int) -> str:
    """check_id for a Parquet row: the message names the row (a Parquet file has no lines)."""
    try:
        return check_id(f, what, value)
    except DataError as e:
        raise DataError(f, f"row {row}: {str(e).split(': ', 1)[1]}") from None


def start_checks(corpus: Corpus, fingerprint: Callable[[], str]) -> Callable[[], tuple[int | None, str]]:
    """Check the corpus (:func:`check_contents`) and take its fingerprint; the function returned
    raises what the check found, or gives the documents it counted and the fingerprint.

    A vectors collection is checked on a thread of its own while Anserini indexes it: the
    check parses every number (orjson, then numpy: 70-100 us per 768-number line, about half
    of what IndexFlatDenseVectors takes to index it), and the fingerprint reads every byte again,
    while Anserini reads one file on one thread, so the check takes the other core instead of
    adding its time. Nothing of the build is kept before the check has passed (it is built in
    `work`, swapped in only after), so a bad vector still fails the build with the file, line
    and problem, and leaves no index."""
    if not corpus.format.dense:
        documents = check_contents(corpus)
        fp = fingerprint()
        return lambda: (documents, fp)
    box: dict = {}
    scan = _vector_scan(corpus)

    def work() -> None:
        try:
            box["fingerprint"] = fingerprint()
            box["documents"] = check_contents(corpus, scan)
        except BaseException as e:  # handed to the building thread
            box["error"] = e
        finally:
            if scan is not None:
                lucene.detach()  # this thread called Java

    thread = threading.Thread(target=work, name="harness-vector-check", daemon=True)
    thread.start()

    def checked() -> tuple[int | None, str]:
        thread.join()
        if "error" in box:
            raise box["error"]
        return box["documents"], box["fingerprint"]

    return checked


# Collections smaller than this are checked by Python alone: 1,000 lines of 768 numbers, ~0.1 s
_SCAN_FROM_BYTES = 8 << 20


def _vector_scan(corpus: Corpus) -> VectorScan | None:
    """The Java first pass of the vectors' check (harness.VectorLines; check_vectors) for a
    large JSON-lines collection, None otherwise. It scans about 3 ns a byte (1.2 s for the dense
    bench's 366 MB) where the Python check takes 90-120 us per 768-number line (6-8 s there),
    which competed with Anserini's indexer and the JIT for the second core. Its class is resolved
    here, on the building thread, so that the JVM (which the build starts anyway) is never started from the check's thread (the JVM's start
    takes the signal handlers, which only the main thread puts back: lucene._start)."""
    if corpus.parquet:
        return None
    try:
        size = sum(f.stat().st_size for f in corpus.files() if not f.name.endswith(".gz"))
    except (OSError, DataError):
        return None  # the check names it
    if size < _SCAN_FROM_BYTES:
        return None
    scanner = lucene.jclass("harness.VectorLines")

    def scan(f: Path, limit: int, dims: int) -> tuple[int, int, int, int]:
        try:
            doubtful, recognised, dim, first = scanner.scan(str(f), limit, dims)
        except Exception:  # unreadable, vanished...: the Python check reads it and says what is wrong
            return 1, 0, 0, 0
        return int(doubtful), int(recognised), int(dim), int(first)

    return scan
