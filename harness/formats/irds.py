"""ir_datasets ids (``irds:msmarco-passage/dev/small``), read through the optional ``ir_datasets``
package (``pip install 'harness[irds]'``) from its local cache only, never downloaded.

The cache is ``$IR_DATASETS_HOME``, else ``~/.ir_datasets``, as ir_datasets reads it; a dataset's
files lie under its first id component (``~/.ir_datasets/msmarco-passage``). Every read runs with
ir_datasets' network doors shut (:func:`offline`): each remote source's ``stream`` raises
instead of connecting, so data that is not in the cache is an error naming the dataset, where it
was looked for and the command that fetches it, never a download.

What is read is what ir_datasets yields, unchanged: query ids, doc ids and labels as its
``queries_iter`` and ``qrels_iter`` give them. The query text is the field ``field`` names when
given; otherwise, like PyTerrier's ``get_topics``, the one text field when a query has only one
(``GenericQuery.text``), else ir_datasets' own ``default_text()`` (a TREC topic's ``title``, as
Anserini and Pyserini take it).

A document's indexed text (:func:`document_text`): the fields ``fields`` names, joined by a newline;
otherwise a document with ``title`` and ``text`` fields (BEIR's) is ``title + "\\n" + text``, as
Anserini's BeirFlatCollection makes its contents; else the only text field (``GenericDoc.text``);
else ir_datasets' own ``default_text()`` (a TREC document's ``text``, not its markup). The documents
are read from the file ir_datasets keeps them in (``docs_path``), which, with the dataset id,
ir_datasets' version and this rule, is what identifies them (:func:`docs_files`, :func:`docs_signature`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from harness import lazy
from harness.errors import DataError
from harness.formats.hygiene import check_id
from harness.formats.pyserini_cache import MissingFromCache
from harness.formats.qrels import Qrels

__all__ = [
    "PREFIX",
    "home",
    "folder",
    "read_topics",
    "read_qrels",
    "check",
    "offline",
    "documents",
    "check_documents",
    "write_collection",
    "document_text",
    "docs_files",
    "docs_signature",
]

# the optional ir_datasets package (pip install 'harness[irds]'): a missing one is a DataError
ir_datasets = lazy.module("ir_datasets")
download = lazy.module("ir_datasets.util.download")

PREFIX = "irds:"
# Bump when the text a document is indexed with changes (document_text): part of every index's fingerprint
DOC_TEXT_RULE = 1
_PARTS = {"topics": ("queries", "queries_iter"), "qrels": ("qrels", "qrels_iter"), "docs": ("docs", "docs_iter")}


class _WouldDownload(Exception):
    """Raised inside :func:`offline` where ir_datasets would open a remote source."""


def home() -> Path:
    """ir_datasets' cache folder as ``ir_datasets.util.home_path`` reads it (without creating it)."""
    return Path(os.environ.get("IR_DATASETS_HOME") or Path.home() / ".ir_datasets")


def folder(dataset_id: str) -> Path:
    """Where ir_datasets keeps ``dataset_id``'s files: its first id component under :func:`home`."""
    return home() / dataset_id.split("/", 1)[0]


def _fetch(dataset_id: str, part: str) -> str:
    return f"python -m ir_datasets export {dataset_id} {_PARTS[part][0]} > /dev/null"


def _missing(dataset_id: str, part: str, detail: str = "") -> DataError:
    what = f"the {_PARTS[part][0]} of ir_datasets' {dataset_id!r}"
    return MissingFromCache(PREFIX + dataset_id, what, folder(dataset_id), _fetch(dataset_id, part), detail)


@contextmanager
def offline():
    """ir_datasets with every remote source closed: a ``stream`` of any download class but
    ``LocalDownload`` (files the user placed) raises :class:`_WouldDownload`. ir_datasets has no
    switch of its own for this; the classes are restored on exit."""

    def closed(self, *args, **kwargs):
        raise _WouldDownload(getattr(self, "url", None) or type(self).__name__)

    classes, todo = [], list(download.BaseDownload.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if not issubclass(cls, download.LocalDownload) and "stream" in vars(cls):
            classes.append((cls, vars(cls)["stream"]))
    try:
        for cls, _ in classes:
            cls.stream = closed
        yield
    finally:
        for cls, stream in classes:
            cls.stream = stream


def _dataset(dataset_id: str, part: str):
    try:
        load = ir_datasets.load  # the package is imported here
    except ImportError:
        raise DataError(
            PREFIX + dataset_id,
            "irds: ids need the optional ir_datasets package: pip install 'harness[irds]' (or pip install ir_datasets)",
        ) from None
    try:
        ds = load(dataset_id)
    except KeyError:
        raise DataError(
            PREFIX + dataset_id, f"ir_datasets knows no dataset {dataset_id!r} (see https://ir-datasets.com)"
        ) from None
    has = getattr(ds, f"has_{_PARTS[part][0]}", None)
    if has is None or not has():
        raise DataError(PREFIX + dataset_id, f"the ir_datasets dataset {dataset_id!r} has no {_PARTS[part][0]}")
    return ds


def _read(dataset_id: str, part: str, rows):
    """``rows(iterator)`` over the dataset's ``part``, offline; a missing file is MissingFromCache."""
    ds = _dataset(dataset_id, part)
    _present(ds, dataset_id, part)
    try:
        with offline():
            return rows(getattr(ds, _PARTS[part][1])())
    except _WouldDownload as e:
        raise _missing(dataset_id, part, f" (ir_datasets would download {e})") from None
    except FileNotFoundError as e:  # a LocalDownload the user was to place (ir_datasets logs how)
        raise _missing(dataset_id, part, f" ({e.filename or e} is missing)") from None


def _present(ds, dataset_id: str, part: str) -> None:
    if not folder(dataset_id).exists() and not _local_only(ds, part):
        raise _missing(dataset_id, part)


def _local_only(ds, part: str) -> bool:
    """A dataset registered over the user's own files (``LocalDownload``) may live anywhere."""
    handler = getattr(ds, f"{_PARTS[part][0]}_handler")()
    seen: set[int] = set()
    todo = [handler]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or len(seen) > 200:
            continue
        seen.add(id(obj))
        if isinstance(obj, download.LocalDownload):
            return True
        todo.extend(v for v in getattr(obj, "__dict__", {}).values() if hasattr(v, "__dict__"))
    return False


def check(dataset_id: str, part: str) -> Path:
    """Check that ``part`` (topics, qrels, docs) of ``dataset_id`` is in the cache, reading its
    first record offline; returns the folder it lives in."""
    _read(dataset_id, part, lambda it: next(iter(it), None))
    return folder(dataset_id)


def _text_field(cls, field: str | None, dataset_id: str):
    fields = [f for f in cls._fields if f != "query_id"]
    if field is not None:
        if field not in fields:
            raise DataError(PREFIX + dataset_id, f"its queries have no field {field!r}; they have: {', '.join(fields)}")
        return lambda q: getattr(q, field)
    if len(fields) == 1:
        return lambda q: getattr(q, fields[0])
    if hasattr(cls, "default_text"):
        return lambda q: q.default_text()
    raise DataError(
        PREFIX + dataset_id, f"its queries have several fields ({', '.join(fields)}): name one with `field`"
    )


def read_topics(dataset_id: str, field: str | None = None) -> list[tuple[str, str]]:
    """``(query_id, text)`` pairs in ir_datasets' order (see the module's note on the text)."""
    ds = _dataset(dataset_id, "topics")
    text = _text_field(ds.queries_cls(), field, dataset_id)
    topics = _read(dataset_id, "topics", lambda it: [(q.query_id, text(q)) for q in it])
    source = PREFIX + dataset_id
    seen: set[str] = set()
    for qid, t in topics:
        if qid in seen:
            raise DataError(source, f"topic {qid!r} is given twice")
        seen.add(qid)
        if not isinstance(t, str) or not t.strip():
            raise DataError(source, f"topic {qid!r} has an empty query text{'' if field else ' (choose a `field`)'}")
    if not topics:
        raise DataError(source, "the dataset has no queries")
    return topics


def read_qrels(dataset_id: str) -> Qrels:
    """The dataset's judgments as a :class:`~harness.formats.qrels.Qrels` (topics and documents in
    ir_datasets' order; a (query, document) pair judged twice is an error, as in a qrels file)."""
    source = PREFIX + dataset_id

    def rows(it):
        out: dict[str, dict[str, int]] = {}
        for r in it:
            judged = out.setdefault(r.query_id, {})
            if r.doc_id in judged:
                raise DataError(source, f"topic {r.query_id!r}, document {r.doc_id!r} is judged twice")
            judged[r.doc_id] = r.relevance
        return out

    judged = _read(dataset_id, "qrels", rows)
    if not judged:
        raise DataError(source, "the dataset has no judgments: nothing could be evaluated")
    return Qrels.from_dict(judged, source=source)


# ------------------------------------------------------------------------------ documents


def document_text(cls, fields: tuple[str, ...], dataset_id: str) -> Callable[[Any], str]:
    """The text a document of ``cls`` is indexed with (see the module's note)."""
    names = [f for f in cls._fields if f != "doc_id"]
    if fields:
        unknown = [f for f in fields if f not in names]
        if unknown:
            raise DataError(
                PREFIX + dataset_id, f"its documents have no field {unknown[0]!r}; they have: {', '.join(names)}"
            )
        return lambda d: "\n".join("" if getattr(d, f) is None else str(getattr(d, f)) for f in fields)
    if "title" in names and "text" in names:  # Anserini's BeirFlatCollection: title, newline, text
        return lambda d: f"{d.title or ''}\n{d.text or ''}"
    texts = [f for f in names if getattr(cls, "__annotations__", {}).get(f) in (str, "str")]
    if len(texts) == 1:
        return lambda d: getattr(d, texts[0]) or ""
    if hasattr(cls, "default_text"):
        return lambda d: d.default_text() or ""
    raise DataError(
        PREFIX + dataset_id,
        f"its documents have several fields ({', '.join(names)}): name those to index with `contents`",
    )


def documents(dataset_id: str, fields: tuple[str, ...] = ()) -> Iterator[tuple[str, str]]:
    """``(doc_id, text)`` of every document, in ir_datasets' order, streamed and offline."""
    ds = _dataset(dataset_id, "docs")
    text = document_text(ds.docs_cls(), fields, dataset_id)
    _present(ds, dataset_id, "docs")
    n = 0
    try:
        with offline():
            for d in ds.docs_iter():
                yield d.doc_id, text(d)
                n += 1
    except _WouldDownload as e:
        raise _missing(dataset_id, "docs", f" (ir_datasets would download {e})") from None
    except FileNotFoundError as e:
        raise _missing(dataset_id, "docs", f" ({e.filename or e} is missing)") from None
    except (ValueError, KeyError, TypeError, AttributeError, OSError) as e:  # its parser on a damaged file
        why = str(e).splitlines()[0] if str(e) else ""
        raise DataError(
            PREFIX + dataset_id,
            f"ir_datasets could not read its documents after the first {n} ({type(e).__name__}: {why}); "
            f"its files in {folder(dataset_id)} may be damaged: remove them and fetch them again",
        ) from None


def write_collection(dataset_id: str, fields: tuple[str, ...], out: Path, limit: int) -> int:
    """The documents as Anserini's JsonCollection reads them, one ``{"id", "contents"}`` per line
    into ``out`` (the index's build folder), streamed; a text over ``limit`` characters (Jackson's
    longest string: harness.formats.json_docs.JSON_STRING_LIMIT) is refused. Returns how many."""
    source, n = PREFIX + dataset_id, 0
    with open(out, "w", encoding="utf-8") as fh:
        for doc_id, text in documents(dataset_id, fields):
            check_id(source, "document id", doc_id)
            if len(text) > limit:
                raise DataError(
                    source,
                    f"document {doc_id!r}: its text is {len(text):,} characters; Anserini's JSON reader (Jackson) "
                    f"refuses strings over {limit:,} characters and would drop the whole file",
                )
            fh.write(json.dumps({"id": doc_id, "contents": text}, ensure_ascii=False) + "\n")
            n += 1
    return n


def check_documents(dataset_id: str, fields: tuple[str, ...] = ()) -> Path:
    """The first document read offline and its text made (fields checked); the dataset's folder."""
    next(documents(dataset_id, fields), None)
    return folder(dataset_id)


def docs_files(dataset_id: str) -> list[Path]:
    """The files that hold the dataset's documents: ir_datasets' ``docs_path`` (a file, or every
    file under a folder), asked without downloading; when the dataset has none on disk, every
    file of the dataset's folder but ir_datasets' lookup stores (``*.pklz4``)."""
    ds = _dataset(dataset_id, "docs")
    try:
        with offline():
            where = Path(ds.docs_path(force=False))
    except Exception:  # no docs_path, or one that needs a download: fall back to the whole folder
        where = None
    if where is None or not where.exists():
        where = folder(dataset_id)
    if where.is_file():
        return [where]
    return sorted(
        (p for p in where.rglob("*") if p.is_file() and not any(part.endswith(".pklz4") for part in p.parts)),
        key=lambda p: p.as_posix(),
    )


def docs_signature(dataset_id: str, fields: tuple[str, ...] = ()) -> bytes:
    """What besides the files' bytes makes the indexed documents: the id, the fields, the
    document class, ir_datasets' version (its parsers) and :data:`DOC_TEXT_RULE`."""
    cls = _dataset(dataset_id, "docs").docs_cls()
    return json.dumps(
        {
            "dataset": dataset_id,
            "fields": list(fields),
            "class": f"{cls.__module__}.{cls.__qualname__}{list(cls._fields)}",
            "ir_datasets": getattr(ir_datasets, "__version__", "?"),
            "rule": DOC_TEXT_RULE,
        },
        sort_keys=True,
    ).encode()
