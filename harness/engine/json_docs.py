"""One document of a JSON collection, checked as Anserini's JSON collection classes read it.

JsonCollection (jsonl, and the JSON a text folder or a TSV of passages is converted to) reads
``{"id", "contents"}``; JsonVectorCollection (impact) ``{"id", "vector": {term: weight}}``; the
BEIR collections ``{"_id", "title", "text"}`` (harness.engine.beir). A document that Anserini
would index other than as the file meant, throw on, or drop with its whole file (a JSON string
longer than Jackson takes) is refused with a DataError naming its file and line.
harness.engine.corpus reads the files and hands each parsed document here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness.engine import beir
from harness.errors import DataError
from harness.formats.hygiene import check_id, json_kind
from harness.formats.impact import check_weights

__all__ = ["JSON_STRING_LIMIT", "document_check", "too_long"]

# Jackson's StreamReadConstraints.maxStringLength in Anserini's fatjar: a longer JSON string
# makes IndexCollection abandon the whole file ("indexed no documents"); measured, see tests.
JSON_STRING_LIMIT = 20_000_000

# (file, parsed document, its line or None in a JSON array, "document i: " or "") -> None
DocumentCheck = Callable[[Path, object, "int | None", str], None]


def document_check(collection_format: str) -> DocumentCheck:
    """The check of one document of a collection of this format (DataError naming file and line)."""
    return {"impact": _check_impact_doc, "beir": _check_beir_doc}.get(collection_format, _check_doc)


def too_long(what: str, size: str) -> str:
    return (
        f"{what} is {size}; Anserini's JSON reader (Jackson) refuses strings over {JSON_STRING_LIMIT:,} "
        "characters and then drops the whole file: split or shorten this document"
    )


def _check_impact_doc(f: Path, doc, lineno: int | None, where: str) -> None:
    """A JsonVectorCollection document: an "id" (a string or an integer, as for jsonl) and a
    "vector" of term weights (harness.formats.impact.check_weights); "contents" (the text shown
    in reports) and any other key are kept in the raw document, not indexed."""
    if not isinstance(doc, dict):
        raise DataError(f, f'{where}expected a JSON object with "id" and "vector"', line=lineno)
    docid = doc.get("id")
    if isinstance(docid, bool) or not isinstance(docid, (str, int)):
        got = "missing" if "id" not in doc else json_kind(docid)
        raise DataError(f, f'{where}"id" must be a string or an integer (it is {got})', line=lineno)
    check_id(f, f"{where}document id", str(docid), lineno)
    check_weights(f, doc.get("vector"), lineno, document=True, what=f"{where}vector")
    _check_strings(f, doc, lineno, where)


def _check_beir_doc(f: Path, doc, lineno: int | None, where: str) -> None:
    beir.check_document(f, doc, lineno, where, JSON_STRING_LIMIT)


def _check_doc(f: Path, doc, lineno: int | None, where: str) -> None:
    if not isinstance(doc, dict):
        raise DataError(f, f'{where}expected a JSON object with "id" and "contents"', line=lineno)
    for key, types in (("id", (str, int)), ("contents", (str,))):
        if not isinstance(doc.get(key), types) or isinstance(doc.get(key), bool):
            got = "missing" if key not in doc else json_kind(doc[key])
            want = "a string" if key == "contents" else "a string or an integer"
            raise DataError(f, f'{where}"{key}" must be {want} (it is {got})', line=lineno)
    check_id(f, f"{where}document id", str(doc["id"]), lineno)
    _check_strings(f, doc, lineno, where)


def _check_strings(f: Path, doc: dict, lineno: int | None, where: str) -> None:
    for key, value in doc.items():
        if isinstance(value, str) and len(value) > JSON_STRING_LIMIT:
            raise DataError(
                f,
                f"{where}document {doc['id']!r}: " + too_long(f'its "{key}"', f"{len(value):,} characters"),
                line=lineno,
            )
