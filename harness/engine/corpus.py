"""Corpora -> what Anserini's IndexCollection reads.

| format      | Anserini collection | doc id                                              |
|-------------|---------------------|-----------------------------------------------------|
| jsonl       | JsonCollection      | the "id" field (one file, or a folder's .json/.jsonl/.gz files) |
| trec        | TrecCollection      | <DOCNO> (one file or a folder, .gz allowed)          |
| html        | HtmlCollection      | as Anserini's HtmlCollection gives it (file name)    |
| text-folder | JsonCollection      | the .txt file's path relative to the folder, with / |
| tsv         | JsonCollection      | the pid of each ``pid<TAB>text`` line (MS MARCO's passages) |
| vectors     | JsonDenseVectorCollection | the "docid" field; "vector" holds the numbers  |
|             | ParquetDenseVectorCollection (.parquet files) | the "docid" column (strings)   |
| impact      | JsonVectorCollection | the "id" field; "vector" holds {term: weight} (every file of a folder) |
| beir        | BeirFlatCollection, or BeirMultifieldCollection (fields) | "_id" (harness.engine.beir) |
| irds:ID     | JsonCollection      | ir_datasets' doc_id (harness.formats.irds: the text) |

A text folder is converted to one JsonCollection file in the index's staging area, so that
`corpora/sample_docs/x.txt` gets the id `sample_docs/x.txt`, as in the course lab. A TSV of
passages is converted to the JSON files Anserini's own conversion writes (harness.formats.msmarco).
An ir_datasets collection (format ``irds:ID``, path the folder ir_datasets keeps it in) is
streamed from ir_datasets into one JSON-lines file, never held in memory. A single
file is staged (hard link, else copy) into a folder of its own, since Anserini reads folders.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import json
import os
import re
import shutil
import stat
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.engine import beir
from harness.engine.json_docs import JSON_STRING_LIMIT, document_check, too_long
from harness.engine.vectors import (
    MAX_DIMENSIONS,
    PARQUET,
    SameDimension,
    fast_json_object,
    fast_vector_document,
    is_parquet,
    parquet_count,
    parquet_rows,
    parse_vector,
)
from harness.errors import DataError, read_error
from harness.formats import irds
from harness.formats.hygiene import (
    BOM,
    block_lines,
    check_id,
    json_documents,
    json_kind,
    json_values,
    line_text,
    numbered_lines,
    regular_file,
)
from harness.formats.msmarco import passages_to_json

# (file, line limit, most dimensions) -> (first doubtful line or 0, lines recognised before it, their
# dimension, the first one's line): harness.VectorLines.scan, Corpus.check_vectors's first pass
VectorScan = Callable[[Path, int, int], tuple[int, int, int, int]]

__all__ = ["FORMATS", "Corpus", "VectorScan"]

FORMATS = {
    "jsonl": "JsonCollection",
    "trec": "TrecCollection",
    "html": "HtmlCollection",
    "text-folder": "JsonCollection",
    "tsv": "JsonCollection",  # converted first, as Anserini's convert_collection_to_jsonl.py does
    "vectors": "JsonDenseVectorCollection",  # indexed by IndexFlat/HnswDenseVectors (engine.index)
    "impact": "JsonVectorCollection",  # indexed -impact -pretokenized (engine.index)
    "beir": "BeirFlatCollection",  # BeirMultifieldCollection with fields (engine.beir)
}
# A "contents" key whose value is a string, and any "contents" key (corpus.check_contents). Inside
# a JSON string a quote is escaped, so '"contents"' followed by a colon only matches a key.
_STRING_CONTENTS = re.compile(rb'"contents"\s*:\s*"')
_CONTENTS_KEY = re.compile(rb'"contents"\s*:')
DOC_LINE_LIMIT = 4 * JSON_STRING_LIMIT + (1 << 20)  # bytes: any line holding a longer string is refused
_DOCNO = re.compile(r"<DOCNO>(.*?)</DOCNO>", re.S)
_BOM_MESSAGE = (
    "starts with a UTF-8 byte-order mark, which Anserini's {cls} cannot read (it would index nothing "
    "from this file): save the file without it"
)
# Which files of a folder Anserini reads (DocumentCollection.discover with each collection's
# rules; Anserini matches names case-sensitively): JsonCollection any name ending in .json,
# .jsonl or .gz; TrecCollection any file but those whose name starts with readme or README, and
# nothing inside a folder named cr, dtd or dtds (upper or lower case: the TREC disks' layout);
# JsonVectorCollection every file (it sets no suffix: a README there is read as JSON too).
# Exactly these are checked and fingerprinted, so no file Anserini indexes escapes the fingerprint.
_ANSERINI_NAMES = {"jsonl": (".json", ".jsonl", ".gz")}
_SKIPPED_PREFIXES = {"trec": ("readme", "README")}
_SKIPPED_FOLDERS = {"trec": frozenset({"cr", "CR", "dtd", "DTD", "dtds", "DTDS"})}
_SUFFIXES = {
    "jsonl": _ANSERINI_NAMES["jsonl"],
    "trec": None,  # any file
    "html": None,
    "text-folder": (".txt",),
    "tsv": (".tsv",),
    "vectors": (".jsonl", ".json", ".jsonl.gz", ".json.gz", PARQUET),
    "impact": None,  # any file
    "beir": None,  # one file: the folder's corpus.jsonl(.gz) (Corpus.files)
}


_FINGERPRINTS: dict[tuple, str] = {}  # Corpus.fingerprint's, by _stat_key
_SETTLED_NS = 2_000_000_000  # a file modified more recently is hashed every time


def _stat_key(corpus: Corpus, files: list[Path]) -> tuple | None:
    """What identifies the files' bytes without reading them, or None when that cannot be
    trusted (a file unreadable, or modified in the last 2 seconds)."""
    try:
        stats = [f.stat() for f in files]
    except OSError:
        return None
    if any(time.time_ns() - st.st_mtime_ns < _SETTLED_NS for st in stats):
        return None
    return (str(corpus.path), corpus.format) + tuple(
        (str(f), st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev) for f, st in zip(files, stats, strict=True)
    )


@dataclass(frozen=True)
class Corpus:
    """A collection on disk, as Anserini will read it: its files, their fingerprint, the folder
    IndexCollection reads (staged when needed), and the check that every document was read."""

    path: Path
    format: str
    fields: bool = False  # a beir corpus with its title as a field of its own (BeirMultifieldCollection)

    @property
    def dataset(self) -> tuple[str, tuple[str, ...]] | None:
        """An ir_datasets collection's id and the fields it is indexed with; None for files."""
        return irds.split_collection(self.format) if self.format.startswith(irds.PREFIX) else None

    @property
    def anserini_class(self) -> str:
        if self.dataset is not None:
            return "JsonCollection"  # staged as one JSON-lines file (stage)
        if self.format == "vectors" and self.parquet:
            return "ParquetDenseVectorCollection"
        if self.format == "beir":
            return beir.anserini_class(self.fields)
        return FORMATS[self.format]

    @property
    def parquet(self) -> bool:
        """A vectors collection of Parquet files (one collection is all Parquet or all JSON)."""
        kinds = {is_parquet(f) for f in self.files()}
        if len(kinds) > 1:
            raise DataError(
                self.path, "holds both Parquet and JSON vector files; Anserini reads one kind per collection"
            )
        return kinds == {True}

    def files(self) -> list[Path]:
        """The files that make up the corpus, sorted by relative path: what Anserini reads,
        hidden files and folders included (its walk does not skip them, so neither may the
        fingerprint); a text folder, which we convert ourselves, skips hidden names.

        Nothing is opened here. Anserini walks the folder itself and opens what it finds, so a
        FIFO, socket or device anywhere inside (``mkfifo``, a link to ``/dev/zero``) would block
        or never end: each is an error naming it, as are symlink loops and unreadable entries.
        Linked folders are followed (each real folder once).

        An ir_datasets collection's files are those ir_datasets reads its documents from
        (harness.formats.irds.docs_files), which the fingerprint covers."""
        if self.dataset is not None:
            return irds.docs_files(self.dataset[0])
        p = self.path
        mode = _mode(p, "collection path")
        if self.format == "beir" and stat.S_ISDIR(mode):  # the folder's corpus file, nothing else
            p = beir.corpus_file(p)
            mode = _mode(p, "corpus file")
        if stat.S_ISREG(mode):
            return [p]
        if not stat.S_ISDIR(mode):
            regular_file(p, "collection file")  # raises: says what it is instead
        suffixes = _SUFFIXES[self.format]
        exact = self.format in _ANSERINI_NAMES  # Anserini's own rule: case-sensitive
        skipped = _SKIPPED_PREFIXES.get(self.format, ())
        files = []
        for f in _walk(p, skip_hidden=self.format == "text-folder", skip_folders=_SKIPPED_FOLDERS.get(self.format)):
            n = f.name
            if skipped and n.startswith(skipped):
                continue
            if suffixes is None or (n if exact else n.lower()).endswith(suffixes):
                files.append(f)
        files.sort(key=lambda f: f.relative_to(p).as_posix())
        if not files:
            want = "any file" if suffixes is None else " or ".join(suffixes)
            raise DataError(p, f"the {self.format} collection has no files ({want})")
        return files

    def fingerprint(self) -> str:
        """SHA-256 over the format and every file's relative path and bytes.

        Remembered for this process while no file's size, modification time, inode or device
        changes: `harness run` plans with the fingerprint (the default index folder is named by
        it) and the build records it, and a 770 MB vectors file takes 0.56 s to hash. As git
        does for its index, a file modified in the last 2 seconds is not trusted to its stat
        (the kernel's clock ticks coarser than the nanoseconds shown, so a quick rewrite of the
        same size can keep the time): such a corpus is hashed every time."""
        files = self.files()
        key = _stat_key(self, files)
        if key is not None and key in _FINGERPRINTS:
            return _FINGERPRINTS[key]
        h = hashlib.sha256(f"format={self.format}\n".encode())
        base = self.path if self.path.is_dir() else self.path.parent
        if self.dataset is not None:  # the id, fields, document class, ir_datasets' version
            h.update(irds.docs_signature(*self.dataset) + b"\0")
            base = irds.home()
        for f in files:
            h.update((f.relative_to(base) if f.is_relative_to(base) else f).as_posix().encode() + b"\0")
            try:
                fh = open(f, "rb")
            except OSError as e:
                raise read_error(f, f"cannot read: {e.strerror or e}", e) from None
            with fh:
                while chunk := _read(f, fh, 1 << 20):
                    h.update(chunk)
            h.update(b"\0")
        digest = h.hexdigest()
        if key is not None and key == _stat_key(self, files):  # nothing changed while it was read
            _FINGERPRINTS[key] = digest
        return digest

    def check_jsonl(self) -> int:
        """Anserini's JsonCollection stops reading a file at its first malformed value (or at a
        document its JSON parser or Lucene refuses) and reports nothing; we check every document,
        so bad input fails with its file and line. Returns the number of documents."""
        return sum(self.check_jsonl_file(f) for f in self.files())

    def check_vectors(self, scan: VectorScan | None = None) -> int:
        """Every line of a vectors collection: an object with a "docid" and a "vector" of finite
        numbers, all vectors of one dimension (harness.engine.vectors); DataError with file:line.
        Returns the number of documents (non-blank lines, or Parquet rows).

        ``scan``: a first pass over each uncompressed file (harness.VectorLines in Java, given by
        the index builder, whose JVM is running anyway) that finds how many lines from the top
        are of the one shape this check certainly accepts; only the lines from the first other
        one on are parsed here. None: every line is parsed here."""
        dims = SameDimension("vector")
        documents = 0
        if self.parquet:
            first: dict = {}
            for f in self.files():
                for row, docid, _ in parquet_rows(f, "docid", ("string", "large_string"), first, "documents"):
                    _row_id(f, "document id", docid, row)
                    documents += 1
            return documents

        def check(f: Path, doc, lineno: int) -> None:
            if not isinstance(doc, dict):
                raise DataError(f, 'expected a JSON object {"docid": ..., "vector": [...]}', line=lineno)
            docid = doc.get("docid")
            if isinstance(docid, bool) or not isinstance(docid, (str, int)):
                got = "missing" if "docid" not in doc else json_kind(docid)
                raise DataError(f, f'"docid" must be a string or an integer (it is {got})', line=lineno)
            check_id(f, "document id", str(docid), lineno)
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
            for _, doc in json_values(f, [(lineno, line)]):
                check(f, doc, lineno)
            return 1

        for f in self.files():
            skip = 0
            if scan is not None and not f.name.endswith(".gz"):
                doubtful, recognised, dim, first = scan(f, DOC_LINE_LIMIT, MAX_DIMENSIONS)
                if recognised:
                    dims.check(f, dim, first)
                    documents += recognised
                if not doubtful:
                    continue
                skip = doubtful - 1  # lines the scan recognised: no line before the first doubtful one is wrong
            with _open_binary(f) as fh:
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

    def check_jsonl_file(self, f: Path) -> int:
        """Every document of one file as JsonCollection reads it (one JSON array of documents,
        or JSON objects one after another: one per line, or pretty-printed over several lines,
        one or more per file); DataError naming the first bad one. Returns how many there are.
        An impact collection's documents (JsonVectorCollection reads its files alike) are
        checked as JsonVectorCollection reads them, a beir corpus's as the BEIR collections do
        (harness.engine.json_docs)."""
        check = document_check(self.format)
        with _open_binary(f) as fh:
            head = _read(f, fh, 4096).lstrip()[:1]
        if head == b"[":  # JsonCollection also reads one JSON array of documents per file
            with _open_binary(f) as fh:
                try:
                    docs = json.loads(_read(f, fh, -1))
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
        with _open_binary(f) as fh:
            for lineno, doc in json_documents(f, numbered_lines(f, fh, limit=DOC_LINE_LIMIT), DOC_LINE_LIMIT):
                check(f, doc, lineno, "")
                count += 1
        return count

    def check_contents(self, scan: VectorScan | None = None) -> int | None:
        """Before Anserini reads a JSONL collection: every document's "contents" must be a JSON
        string. Anserini's JsonCollection turns a number into its text as Jackson writes it (1.50
        becomes "1.5"), an array or object into no words at all, and throws on null with a Java
        stack trace; none of these is what the user meant, so the harness refuses them, naming
        the file and line (exit 2). A scan of the bytes finds the lines that may be wrong (0.17 s
        on a 169 MB, 200k-document file, against 0.74 s for parsing every line); only then is
        every line parsed to name the first bad one (a false alarm, e.g. a blank line or a key
        written with a \\u escape, costs that parse and nothing else).

        Returns, for vectors, the documents; for JSON lines, the lines the scan counted (an
        upper bound on the documents, the one check_complete compares Anserini's count with, and
        the total of the indexing's progress), or None where a file holds one JSON array."""
        if self.format == "vectors":
            return self.check_vectors(scan)  # the number of documents (check_complete's `documents`)
        if self.format == "impact":
            return self.check_impact()
        if self.format == "beir":  # every line parsed: "_id", "title" and "text" are all needed
            self._check_no_bom()
            self.check_jsonl()
            return None
        if self.format != "jsonl":
            return None
        total: int | None = 0
        for f in self.files():
            lines = strings = keys = 0
            rest = b""
            with _open_binary(f) as fh:
                first = b""
                while chunk := _read(f, fh, 1 << 22):
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
                self.check_jsonl_file(f)
                total = None
                continue
            if rest.strip():
                lines += 1
                strings += len(_STRING_CONTENTS.findall(rest))
                keys += len(_CONTENTS_KEY.findall(rest))
            if strings < lines or keys > strings:
                self.check_jsonl_file(f)
            if total is not None:  # an unterminated last line counts, as in _max_json_lines
                total += lines + (bool(rest) and not rest.strip())
        return total

    def check_impact(self) -> int:
        """Every document of an impact collection (harness.engine.json_docs), and no file starting
        with a byte-order mark (Jackson stops at it, as in a jsonl collection); DataError naming
        the file and line. Returns the number of documents."""
        self._check_no_bom()
        return sum(self.check_jsonl_file(f) for f in self.files())

    def _check_no_bom(self) -> None:
        """No file starting with a byte-order mark, which Jackson stops at (DataError, line 1)."""
        for f in self.files():
            with _open_binary(f) as fh:
                if _read(f, fh, len(BOM)) == BOM:
                    raise DataError(f, _BOM_MESSAGE.format(cls=self.anserini_class), line=1)

    def _max_json_lines(self) -> int | None:
        """An upper bound on the documents JsonCollection should find (line breaks, plus an
        unterminated last line), or None when a file holds a JSON array. One bytes.count per file,
        so the check costs nothing measurable on the happy path."""
        total = 0
        for f in self.files():
            with _open_binary(f) as fh:
                first, last = b"", b"\n"
                while chunk := _read(f, fh, 1 << 22):
                    if not first:
                        first = chunk.lstrip()[:1]
                    total += chunk.count(b"\n")
                    last = chunk[-1:]
            if first == b"[":
                return None
            total += last != b"\n"
        return total

    def _count_json_lines(self) -> int:
        """The exact number of non-blank lines of the JSONL files."""
        total = 0
        for f in self.files():
            with _open_binary(f) as fh:
                total += sum(1 for _, line in numbered_lines(f, fh, limit=DOC_LINE_LIMIT) if line.strip())
        return total

    def _check_docnos(self) -> None:
        """Every <DOCNO> of a TREC collection must be an id (harness.formats.hygiene.check_id):
        Lucene refuses an id term over 32,766 bytes, and Anserini then drops the whole file."""
        for f in self.files():
            with _open_binary(f) as fh:
                for lineno, line in numbered_lines(f, fh, limit=DOC_LINE_LIMIT):
                    for m in _DOCNO.finditer(line):
                        check_id(f, "<DOCNO>", m.group(1).strip(), lineno)

    def _check_gzip(self) -> None:
        """Read every .gz file to its end: DataError naming the first corrupt or truncated one."""
        for f in self.files():
            if f.name.endswith(".gz"):
                with _open_binary(f) as fh:
                    while _read(f, fh, 1 << 22):
                        pass

    def stage(self, staging: Path) -> Path:
        """Return the folder Anserini should read, creating files under `staging` when needed."""
        if self.dataset is not None:  # streamed from ir_datasets into one JSON-lines file
            staging.mkdir(parents=True, exist_ok=True)
            irds.write_collection(*self.dataset, staging / "docs.jsonl", JSON_STRING_LIMIT)
            return staging
        if self.format == "text-folder":
            if not self.path.is_dir():
                raise DataError(self.path, "a text-folder collection must be a folder of .txt files")
            staging.mkdir(parents=True, exist_ok=True)
            out = staging / "docs.jsonl"
            with open(out, "w", encoding="utf-8") as fh:
                for f in self.files():
                    doc_id = check_id(
                        f, "document id (the file's path in the folder)", f.relative_to(self.path).as_posix()
                    )
                    size = f.stat().st_size
                    if size > 4 * JSON_STRING_LIMIT:  # more than any 20M-character text: never read it
                        raise DataError(f, too_long("the text", f"{size:,} bytes"))
                    try:
                        text = f.read_bytes().decode("utf-8")
                    except UnicodeDecodeError as e:
                        raise DataError(f, f"not UTF-8 text (byte {e.start})") from None
                    except OSError as e:
                        raise read_error(f, f"cannot read: {e.strerror or e}", e) from None
                    if text.startswith("\ufeff"):
                        text = text[1:]
                    if len(text) > JSON_STRING_LIMIT:
                        raise DataError(f, too_long("the text", f"{len(text):,} characters"))
                    fh.write(json.dumps({"id": doc_id, "contents": text}, ensure_ascii=False) + "\n")
            return staging
        if self.format == "tsv":
            if staging.exists():
                shutil.rmtree(staging)  # a conversion an interrupted build left: made again
            passages_to_json(self.files(), staging, JSON_STRING_LIMIT)
            return staging
        if self.path.is_file() or self.format == "beir":  # a BEIR folder: its corpus file alone
            source = self.files()[0] if self.format == "beir" else self.path
            staging.mkdir(parents=True, exist_ok=True)
            name = source.name
            names = _ANSERINI_NAMES.get("jsonl" if self.format == "beir" else self.format)
            if names and not name.endswith(names):
                # a file the user named (corpus.ndjson): staged under a name Anserini reads
                name += names[0]
            target = staging / name
            target.unlink(missing_ok=True)
            try:
                os.link(source, target)
            except OSError:
                shutil.copyfile(source, target)
            return staging
        return self.path

    def check_complete(self, counters: dict, documents: int | None = None) -> None:
        """Anserini's JsonCollection stops reading a file at its first malformed line and says
        nothing; when the documents it saw fall short of the lines, find the bad line ourselves.
        ``documents``: what check_contents counted (vectors: documents; JSON lines: lines), so
        the files are not read again."""
        if counters.get("errors") or not counters.get("indexed"):
            self._check_gzip()  # a corrupt .gz is counted as one error by Anserini: name it
            if self.format == "trec":
                self._check_docnos()  # a DOCNO Lucene refuses drops its whole file
        if self.format not in ("jsonl", "vectors", "impact", "beir"):
            return
        seen = sum(counters.values())
        if self.format in ("vectors", "impact") and documents is not None:  # every document already checked
            if seen < documents:
                unit = "JSON documents" if self.format == "impact" else "Parquet rows" if self.parquet else "JSON lines"
                raise DataError(self.path, f"Anserini read {seen} of {documents} {unit} ({counters})")
            return
        if self.format == "vectors" and self.parquet:
            expected = sum(parquet_count(f) for f in self.files())
            if seen < expected:
                self.check_vectors()
                raise DataError(self.path, f"Anserini read {seen} of {expected} Parquet rows ({counters})")
            return
        bound = documents if self.format == "jsonl" and documents is not None else self._max_json_lines()
        if bound is None or seen >= bound:
            return
        if self.format in ("jsonl", "impact", "beir"):
            # Blank lines, and documents written over several lines, make the bound loose: count
            # the documents as JsonCollection reads them (raises DataError at a bad one).
            expected = self.check_jsonl()
            if seen < expected:
                raise DataError(self.path, f"Anserini read {seen} of {expected} JSON documents ({counters})")
            return
        expected = self._count_json_lines()  # blank lines make the bound loose: count exactly
        if seen < expected:
            self.check_vectors()  # raises DataError naming the file and line
            raise DataError(self.path, f"Anserini read {seen} of {expected} JSON lines ({counters})")


def _row_id(f: Path, what: str, value: str, row: int) -> str:
    """check_id for a Parquet row: the message names the row (a Parquet file has no lines)."""
    try:
        return check_id(f, what, value)
    except DataError as e:
        raise DataError(f, f"row {row}: {str(e).split(': ', 1)[1]}") from None


def _mode(p: Path, what: str) -> int:
    try:
        return p.stat().st_mode
    except FileNotFoundError:
        if p.is_symlink():
            raise DataError(p, f"the {what} is a broken symbolic link (to {os.readlink(p)})") from None
        raise DataError(p, f"the {what} does not exist") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise DataError(p, f"the {what} is a symbolic link loop") from None
        raise read_error(p, f"cannot read the {what}: {e.strerror or e}", e) from None


def _walk(top: Path, skip_hidden: bool, skip_folders: frozenset | None = None):
    """Regular files under ``top``, following linked folders once each, not entering a folder
    whose name is in ``skip_folders``; any other kind of entry is a DataError naming it."""
    seen: set[tuple[int, int]] = set()
    stack = [top]
    while stack:
        folder = stack.pop()
        st = folder.stat()
        if (st.st_dev, st.st_ino) in seen:
            continue  # a link back to a folder already walked: Anserini would loop here
        seen.add((st.st_dev, st.st_ino))
        try:
            names = sorted(os.listdir(folder))
        except OSError as e:
            raise read_error(folder, f"cannot list the collection folder: {e.strerror or e}", e) from None
        for n in names:
            if skip_hidden and n.startswith("."):
                continue
            entry = folder / n
            mode = _mode(entry, "collection entry")
            if stat.S_ISDIR(mode):
                if not (skip_folders and n in skip_folders):
                    stack.append(entry)
            elif stat.S_ISREG(mode):
                yield entry
            else:
                regular_file(entry, "collection file")  # raises: a FIFO, socket or device


def _open_binary(f: Path):
    try:
        return gzip.open(f, "rb") if f.name.endswith(".gz") else open(f, "rb")
    except OSError as e:
        raise read_error(f, f"cannot read: {e.strerror or e}", e) from None


def _read(f: Path, fh, size: int) -> bytes:
    try:
        return fh.read(size)
    except (gzip.BadGzipFile, zlib.error, EOFError) as e:
        raise DataError(
            f,
            f"not a valid compressed file ({type(e).__name__}: {e}); it is truncated or corrupt: recompress or replace it",
        ) from None
    except OSError as e:
        raise read_error(f, f"cannot read: {e.strerror or e}", e) from None
