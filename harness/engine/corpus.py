"""Corpora -> what Anserini's IndexCollection reads.

| format      | Anserini collection | doc id                                              |
|-------------|---------------------|-----------------------------------------------------|
| jsonl       | JsonCollection      | the "id" field (one .jsonl/.json file or a folder)   |
| trec        | TrecCollection      | <DOCNO> (one file or a folder, .gz allowed)          |
| html        | HtmlCollection      | as Anserini's HtmlCollection gives it (file name)    |
| text-folder | JsonCollection      | the .txt file's path relative to the folder, with / |

A text folder is converted to one JsonCollection file in the index's staging area, so that
`corpora/sample_docs/x.txt` gets the id `sample_docs/x.txt`, as in the course lab. A single
file is staged (hard link, else copy) into a folder of its own, since Anserini reads folders.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from harness.errors import DataError
from harness.files import json_lines

__all__ = ["FORMATS", "Corpus"]

FORMATS = {
    "jsonl": "JsonCollection",
    "trec": "TrecCollection",
    "html": "HtmlCollection",
    "text-folder": "JsonCollection",
}
_SUFFIXES = {
    "jsonl": (".jsonl", ".json", ".jsonl.gz", ".json.gz"),
    "trec": None,  # any file
    "html": None,
    "text-folder": (".txt",),
}


@dataclass(frozen=True)
class Corpus:
    """A collection on disk, as Anserini will read it: its files, their fingerprint, the folder
    IndexCollection reads (staged when needed), and the check that every document was read."""

    path: Path
    format: str

    @property
    def anserini_class(self) -> str:
        return FORMATS[self.format]

    def files(self) -> list[Path]:
        """The files that make up the corpus, sorted by relative path (hidden files skipped)."""
        p = self.path
        if p.is_file():
            return [p]
        if not p.is_dir():
            raise DataError(p, "collection path does not exist")
        suffixes = _SUFFIXES[self.format]
        files = []
        for root, dirs, names in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for n in names:
                if n.startswith("."):
                    continue
                if suffixes is None or n.lower().endswith(suffixes):
                    files.append(Path(root, n))
        files.sort(key=lambda f: f.relative_to(p).as_posix())
        if not files:
            want = "any file" if suffixes is None else " or ".join(suffixes)
            raise DataError(p, f"the {self.format} collection has no files ({want})")
        return files

    def fingerprint(self) -> str:
        """SHA-256 over the format and every file's relative path and bytes."""
        h = hashlib.sha256(f"format={self.format}\n".encode())
        base = self.path if self.path.is_dir() else self.path.parent
        for f in self.files():
            h.update(f.relative_to(base).as_posix().encode() + b"\0")
            with open(f, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    h.update(chunk)
            h.update(b"\0")
        return h.hexdigest()

    def check_jsonl(self) -> None:
        """Anserini's JsonCollection stops reading a file at its first malformed line and reports
        nothing; we check every line first, so bad input fails with its file and line."""
        for f in self.files():
            opener = gzip.open if f.name.endswith(".gz") else open
            with opener(f, "rt", encoding="utf-8") as fh:
                head = fh.read(1)
                while head.isspace():
                    head = fh.read(1)
                fh.seek(0)
                if head == "[":  # JsonCollection also reads one JSON array of documents per file
                    try:
                        docs = json.load(fh)
                    except ValueError as e:
                        raise DataError(f, f"invalid JSON: {e}") from None
                    for i, doc in enumerate(docs):
                        _check_doc(f, doc, None, f"document {i}: ")
                    continue
                for lineno, doc in json_lines(f, enumerate(fh, start=1)):
                    _check_doc(f, doc, lineno, "")

    def _max_json_lines(self) -> int | None:
        """An upper bound on the documents JsonCollection should find (line breaks, plus an
        unterminated last line), or None when a file holds a JSON array. One bytes.count per file,
        so the check costs nothing measurable on the happy path."""
        total = 0
        for f in self.files():
            opener = gzip.open if f.name.endswith(".gz") else open
            with opener(f, "rb") as fh:
                first, last = b"", b"\n"
                while chunk := fh.read(1 << 22):
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
            opener = gzip.open if f.name.endswith(".gz") else open
            with opener(f, "rb") as fh:
                total += sum(1 for line in fh if line.strip())
        return total

    def stage(self, staging: Path) -> Path:
        """Return the folder Anserini should read, creating files under `staging` when needed."""
        if self.format == "text-folder":
            if not self.path.is_dir():
                raise DataError(self.path, "a text-folder collection must be a folder of .txt files")
            staging.mkdir(parents=True, exist_ok=True)
            out = staging / "docs.jsonl"
            with open(out, "w", encoding="utf-8") as fh:
                for f in self.files():
                    try:
                        text = f.read_text(encoding="utf-8")
                    except UnicodeDecodeError as e:
                        raise DataError(f, f"not UTF-8 text (byte {e.start})") from None
                    doc_id = f.relative_to(self.path).as_posix()
                    fh.write(json.dumps({"id": doc_id, "contents": text}, ensure_ascii=False) + "\n")
            return staging
        if self.path.is_file():
            staging.mkdir(parents=True, exist_ok=True)
            target = staging / self.path.name
            target.unlink(missing_ok=True)
            try:
                os.link(self.path, target)
            except OSError:
                shutil.copyfile(self.path, target)
            return staging
        return self.path

    def check_complete(self, counters: dict) -> None:
        """Anserini's JsonCollection stops reading a file at its first malformed line and says
        nothing; when the documents it saw fall short of the lines, find the bad line ourselves."""
        if self.format != "jsonl":
            return
        seen = sum(counters.values())
        bound = self._max_json_lines()
        if bound is None or seen >= bound:
            return
        expected = self._count_json_lines()  # blank lines make the bound loose: count exactly
        if seen < expected:
            self.check_jsonl()  # raises DataError naming the file and line
            raise DataError(self.path, f"Anserini read {seen} of {expected} JSON lines ({counters})")


def _check_doc(f: Path, doc, lineno: int | None, where: str) -> None:
    if not isinstance(doc, dict):
        raise DataError(f, f'{where}expected a JSON object with "id" and "contents"', line=lineno)
    for key, types in (("id", (str, int)), ("contents", (str,))):
        if not isinstance(doc.get(key), types) or isinstance(doc.get(key), bool):
            got = "missing" if key not in doc else f"a {type(doc[key]).__name__}"
            want = "a string" if key == "contents" else "a string or an integer"
            raise DataError(f, f'{where}"{key}" must be {want} (it is {got})', line=lineno)
    if "\n" in str(doc["id"]):
        raise DataError(f, f"{where}doc id {doc['id']!r} contains a line break", line=lineno)
