"""One document of a collection, checked as Anserini's collection classes read it.

JsonCollection (jsonl, and the JSON a text folder or a TSV of passages is converted to) reads
``{"id", "contents"}``; JsonVectorCollection (impact) ``{"id", "vector": {term: weight}}``; the
BEIR collections ``{"_id", "title", "text"}`` (harness.engine.beir); JsonDenseVectorCollection
(vectors) ``{"docid", "vector": [...]}`` (harness.engine.vectors). A document that Anserini would
index other than as the file meant, throw on, or drop with its whole file (a JSON string longer
than Jackson takes) is refused with a DataError naming its file and line. Each collection format
names its check (harness.formats.catalog, ``CollectionFormat.documents``); harness.engine.contents
reads the files and hands each parsed document here. :func:`document_id` is the one id check of
them all.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness.errors import DataError
from harness.formats.hygiene import check_id, json_kind
from harness.formats.impact import check_weights

__all__ = [
    "JSON_STRING_LIMIT",
    "DocumentCheck",
    "document_id",
    "check_json_document",
    "check_impact_document",
    "check_beir_document",
    "too_long",
]

# Jackson's StreamReadConstraints.maxStringLength in Anserini's fatjar: a longer JSON string
# makes IndexCollection abandon the whole file ("indexed no documents"); measured, see tests.
JSON_STRING_LIMIT = 20_000_000

# (file, parsed document, its line or None in a JSON array, "document i: " or "") -> None
DocumentCheck = Callable[[Path, object, "int | None", str], None]


def document_id(f: Path, doc: dict, key: str, lineno: int | None, where: str = "") -> str:
    """The id of a parsed document, ``doc[key]``: a string, or an integer whose text is the id
    (Anserini's ``asText()``), and an id Lucene indexes (harness.formats.hygiene.check_id);
    DataError naming the file and line otherwise."""
    return check_id(f, f"{where}document id", _id_text(f, doc, key, lineno, where), lineno)


def _id_text(f: Path, doc: dict, key: str, lineno: int | None, where: str) -> str:
    value = doc.get(key)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        got = "missing" if key not in doc else json_kind(value)
        raise DataError(f, f'{where}"{key}" must be a string or an integer (it is {got})', line=lineno)
    return str(value)


def too_long(what: str, size: str) -> str:
    return (
        f"{what} is {size}; Anserini's JSON reader (Jackson) refuses strings over {JSON_STRING_LIMIT:,} "
        "characters and then drops the whole file: split or shorten this document"
    )


def check_json_document(f: Path, doc: object, lineno: int | None, where: str) -> None:
    """A JsonCollection document: an "id" (a string or an integer) and a "contents" string.

    DataError naming the file and line otherwise."""
    if not isinstance(doc, dict):
        raise DataError(f, f'{where}expected a JSON object with "id" and "contents"', line=lineno)
    docid = _id_text(f, doc, "id", lineno, where)
    contents = doc.get("contents")
    if not isinstance(contents, str):  # said before the id's own check, as it always was
        got = "missing" if "contents" not in doc else json_kind(contents)
        raise DataError(f, f'{where}"contents" must be a string (it is {got})', line=lineno)
    check_id(f, f"{where}document id", docid, lineno)
    _check_strings(f, doc, lineno, where)


def check_impact_document(f: Path, doc: object, lineno: int | None, where: str) -> None:
    """A JsonVectorCollection document: an "id" (a string or an integer) and a "vector" of term weights.

    The weights as harness.formats.impact.check_weights checks them; "contents" (the text shown in
    reports) and any other key are kept in the raw document, not indexed."""
    if not isinstance(doc, dict):
        raise DataError(f, f'{where}expected a JSON object with "id" and "vector"', line=lineno)
    document_id(f, doc, "id", lineno, where)
    check_weights(f, doc.get("vector"), lineno, document=True, what=f"{where}vector")
    _check_strings(f, doc, lineno, where)


def check_beir_document(f: Path, doc: object, lineno: int | None, where: str) -> None:
    """A BEIR corpus document: an "_id" (a string or an integer) and a "title" and a "text" string.

    DataError naming the file and line otherwise."""
    if not isinstance(doc, dict):
        raise DataError(f, f'{where}expected a JSON object with "_id", "title" and "text"', line=lineno)
    docid = document_id(f, doc, "_id", lineno, where)
    for key in ("title", "text"):
        value = doc.get(key)
        if not isinstance(value, str):
            got = "missing" if key not in doc else json_kind(value)
            hint = ' (write "title": "" for a document without one)' if key == "title" else ""
            raise DataError(
                f,
                f'{where}document {docid!r}: "{key}" must be a string (it is {got}); Anserini\'s BEIR '
                f"collections need it{hint}",
                line=lineno,
            )
        if len(value) > JSON_STRING_LIMIT:
            raise DataError(
                f,
                f'{where}document {docid!r}: its "{key}" is {len(value):,} characters; Anserini\'s JSON reader '
                f"(Jackson) refuses strings over {JSON_STRING_LIMIT:,} characters and then drops the whole file",
                line=lineno,
            )


def _check_strings(f: Path, doc: dict, lineno: int | None, where: str) -> None:
    for key, value in doc.items():
        if isinstance(value, str) and len(value) > JSON_STRING_LIMIT:
            raise DataError(
                f,
                f"{where}document {doc['id']!r}: " + too_long(f'its "{key}"', f"{len(value):,} characters"),
                line=lineno,
            )
