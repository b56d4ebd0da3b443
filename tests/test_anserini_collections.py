"""Anserini's own sample collections, indexed by the harness and by IndexCollection: the same
documents, terms and statistics, and the same runs.

Data: tests/data/anserini/, copied from castorini/anserini's src/test/resources/sample_docs
(commit 81e34145, Apache 2.0; see tests/data/README.md). Oracles: an index IndexCollection
builds from the same folder with the same arguments, read through Anserini's IndexReaderUtils;
SimpleSearcher on that index; and the documents Anserini's collection unit tests expect
(JsonCollectionDocumentObjectTest, JsonCollectionDocumentArrayTest,
JsonCollectionLineObjectTest and their Compressed variants, TrecCollectionTest).

JsonCollection reads a file's JSON values one after another (Jackson's readValues), so a file may
hold one pretty-printed object (collection1), a JSON array (collection2), or several objects
each written over several lines (collection3, collection4); the harness once refused all but the
array and one object per line with "invalid JSON" at line 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.engine.contents import check_contents, check_jsonl
from harness.engine.corpus import Corpus
from harness.engine.index import IndexOptions, ensure_index
from harness.engine.indexer import index_stats, run_index_collection
from harness.errors import DataError
from harness.formats.hygiene import json_documents

from .conftest import assert_runs_equal_simple_searcher

DATA = Path(__file__).resolve().parent / "data" / "anserini"
QUIET = {"on": lambda e: None}

# (collection, format, Anserini class, {doc id: its text as Anserini's unit test expects it})
JSON_1 = {"doc1": "contents of document 1.", "doc2": 'Some more "blah" text in document2!'}
JSON_2 = {"doc1": "this is the contents 1.", "doc2": "this is the contents 2."}
COLLECTIONS = [
    ("json/collection1", "jsonl", "JsonCollection", JSON_1),  # one pretty-printed object per file
    ("json/collection1_gz", "jsonl", "JsonCollection", JSON_1),
    ("json/collection2", "jsonl", "JsonCollection", JSON_2),  # a JSON array
    ("json/collection3", "jsonl", "JsonCollection", JSON_2),  # pretty-printed objects in a row
    ("json/collection3_gz", "jsonl", "JsonCollection", JSON_2),
    ("json/collection4", "jsonl", "JsonCollection", {"doc3": "third document contains C", "doc4": "fourth doc goes D"}),
    ("trec/collection1", "trec", "TrecCollection", {"AP-0001": None, "doc2": None}),
    ("trec/collection2", "trec", "TrecCollection", {"TREC_DOC_1": None, "DOC222": None, "WSJ_1": None}),
    ("trec/collection3", "trec", "TrecCollection", {"TREC_DOC_1.00001": None, "TREC_DOC_1.00002": None, "WSJ_1": None}),
]


def documents(index: Path) -> dict:
    """{doc id: (term vector, stored raw)} of every document, through IndexReaderUtils."""
    from harness.engine import lucene

    utils = lucene.jclass("io.anserini.index.IndexReaderUtils")
    reader = utils.getReader(str(index))
    stored, out = reader.storedFields(), {}
    for i in range(reader.maxDoc()):
        doc = stored.document(i)
        vector = utils.getDocumentVector(reader, doc.get("id"))
        out[str(doc.get("id"))] = ({str(k): int(vector.get(k)) for k in vector.keySet().toArray()}, doc.get("raw"))
    reader.close()
    return out


def analyzed(text: str) -> dict:
    from harness.engine.analysis import analyze

    terms = analyze(text, IndexOptions())
    return {t: terms.count(t) for t in set(terms)}


@pytest.mark.java
@pytest.mark.parametrize("name, fmt, cls, expected", COLLECTIONS, ids=[c[0] for c in COLLECTIONS])
def test_the_harness_indexes_what_index_collection_indexes(tmp_path, name, fmt, cls, expected):
    ours = ensure_index(Corpus(DATA / name, fmt), IndexOptions(), tmp_path / "ours", threads=1, **QUIET)
    counters = run_index_collection(cls, DATA / name, tmp_path / "theirs", IndexOptions(), 1)
    assert ours.manifest["counters"] == counters
    assert ours.manifest["stats"] == index_stats(tmp_path / "theirs")
    mine, theirs = documents(ours.path), documents(tmp_path / "theirs")
    assert mine == theirs
    assert sorted(mine) == sorted(expected)
    for doc_id, text in expected.items():
        if text is not None:  # the JSON documents' text, as Anserini's unit tests expect it
            assert mine[doc_id][0] == analyzed(text), doc_id


@pytest.mark.java
@pytest.mark.parametrize("name", ["json/collection1", "json/collection3", "trec/collection2"])
def test_runs_on_the_samples_equal_simple_searcher_on_anserinis_index(tmp_path, name):
    fmt, cls = ("trec", "TrecCollection") if name.startswith("trec") else ("jsonl", "JsonCollection")
    ours = ensure_index(Corpus(DATA / name, fmt), IndexOptions(), tmp_path / "ours", threads=1, **QUIET)
    run_index_collection(cls, DATA / name, tmp_path / "theirs", IndexOptions(), 1)
    queries = ["contents of document", "document 2", "simple text", "head text content", "nothing here"]
    assert_runs_equal_simple_searcher(ours.path, tmp_path / "theirs", queries, 10)


def _values(text: str, limit: int = 1 << 20):
    lines = list(enumerate(text.splitlines(keepends=True), start=1))
    return list(json_documents(Path("c.json"), lines, limit))


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"a": 1}\n{"b": 2}\n', [(1, {"a": 1}), (2, {"b": 2})]),
        ('\n{\n  "a": 1\n}\n\n{"b":\n 2}{"c": 3}\n', [(2, {"a": 1}), (6, {"b": 2}), (7, {"c": 3})]),
        ('{"a": [1,\n2]}', [(1, {"a": [1, 2]})]),
        ("", []),
    ],
)
def test_json_documents_reads_values_one_after_another(text, expected):
    assert _values(text) == expected


@pytest.mark.parametrize(
    "text, line",
    [
        ('{"a": 1}\n{oops\n', 2),
        ('{"a": 1}\n{"b": 2 x}\n', 2),
        ('{"a": 1}}\n', 1),
        ('{"a": 1}\n\n{"b":\n', 3),  # the file ends inside a value
        ('{"a": "x\n"}\n', 1),  # a raw line break inside a string
    ],
)
def test_json_documents_names_the_line_of_bad_json(text, line):
    with pytest.raises(DataError, match=rf"c\.json:{line}: invalid JSON"):
        _values(text)


def test_a_document_cut_short_is_named_at_its_own_line_not_the_next(tmp_path):
    """Issue 36: a JSON-lines document truncated on line 2 was reported at line 3 ("Expecting
    ',' delimiter"), where the reader, reading on as Anserini does for pretty-printed objects,
    saw it break."""
    (tmp_path / "c.jsonl").write_text(
        '{"id": "d1", "contents": "a"}\n{"id": "d2", "contents": "b"\n{"id": "d3", "contents": "c"}\n'
    )
    with pytest.raises(DataError) as e:
        check_jsonl(Corpus(tmp_path / "c.jsonl", "jsonl"))
    assert e.value.line == 2
    assert str(e.value).endswith(
        "c.jsonl:2: invalid JSON in the value that starts on this line: Expecting ',' delimiter at line 3, "
        "column 1, where another value begins: is line 2 cut short?"
    )
    # a pretty-printed object is named at its first line, with the place it breaks
    with pytest.raises(DataError, match=r"c\.json:2: invalid JSON in the value .* at line 4, column 3$"):
        _values('{"a": 1}\n{\n  "b": 2\n  "c": 3\n}\n')


def test_json_documents_bounds_a_value_spread_over_lines():
    with pytest.raises(DataError, match="longer than 40 characters"):
        _values("[\n" + "1,\n" * 30 + "1]\n", limit=40)


def test_a_collection_of_pretty_printed_objects_is_checked_document_by_document(tmp_path):
    """What Anserini would index wrongly is still refused, at the document's first line."""
    (tmp_path / "c.json").write_text('{\n  "id": "a",\n  "contents": "x"\n}\n{\n  "id": "b",\n  "contents": 1.5\n}\n')
    with pytest.raises(DataError, match=r'c\.json:5: "contents" must be a string \(it is the number 1\.5\)'):
        check_contents(Corpus(tmp_path, "jsonl"))
    (tmp_path / "c.json").write_text('{\n  "id": "a",\n  "contents": "x"\n}\n{\n  "id": "b",\n  "contents": "y"\n}\n')
    assert check_jsonl(Corpus(tmp_path, "jsonl")) == 2


def _trec_doc(docno: str, text: str) -> str:
    return f"<DOC>\n<DOCNO> {docno} </DOCNO>\n<TEXT>\n{text}\n</TEXT>\n</DOC>\n"


def _json_line(doc_id: str, text: str) -> str:
    return f'{{"id": "{doc_id}", "contents": "{text}"}}\n'


@pytest.mark.java
def test_the_files_read_and_fingerprinted_are_the_files_anserini_reads(tmp_path):
    """DocumentCollection.discover's rules: JsonCollection reads names ending in .json, .jsonl or
    .gz, case-sensitively (so docs.gz, not DOCS.JSONL); TrecCollection skips names starting with
    readme/README and folders named cr, dtd, dtds. The harness once fingerprinted DOCS.JSONL and
    not docs.gz, so a changed docs.gz reused an index that no longer matched the collection."""
    import gzip

    from harness.engine.index import index_fingerprint

    js = tmp_path / "json"
    js.mkdir()
    (js / "a.jsonl").write_text(_json_line("a", "alpha beta"))
    (js / "b.gz").write_bytes(gzip.compress(_json_line("b", "beta gamma").encode()))
    (js / "C.JSONL").write_text(_json_line("c", "gamma delta"))  # Anserini does not read it
    trec = tmp_path / "trec"
    for folder in ("", "cr", "DTD", "sub"):
        (trec / folder).mkdir(parents=True, exist_ok=True)
    (trec / "fr1").write_text(_trec_doc("FR-1", "alpha beta"))
    (trec / "sub" / "fr2").write_text(_trec_doc("FR-2", "beta gamma"))
    (trec / "README").write_text(_trec_doc("R-1", "read me"))
    (trec / "readme.txt").write_text(_trec_doc("R-2", "read me too"))
    (trec / "cr" / "cr1").write_text(_trec_doc("CR-1", "congressional record"))
    (trec / "DTD" / "d1").write_text(_trec_doc("D-1", "document type"))
    for folder, fmt, cls, ids in (
        (js, "jsonl", "JsonCollection", ["a", "b"]),
        (trec, "trec", "TrecCollection", ["FR-1", "FR-2"]),
    ):
        corpus = Corpus(folder, fmt)
        ours = ensure_index(corpus, IndexOptions(), tmp_path / f"ours-{fmt}", threads=1, **QUIET)
        counters = run_index_collection(cls, folder, tmp_path / f"theirs-{fmt}", IndexOptions(), 1)
        assert ours.manifest["counters"] == counters
        assert documents(ours.path) == documents(tmp_path / f"theirs-{fmt}")
        assert sorted(documents(ours.path)) == ids
        assert [f.relative_to(folder).as_posix() for f in corpus.files()] == (
            ["a.jsonl", "b.gz"] if fmt == "jsonl" else ["fr1", "sub/fr2"]
        )
    before = index_fingerprint(Corpus(js, "jsonl"), IndexOptions())
    (js / "b.gz").write_bytes(gzip.compress(_json_line("b", "changed").encode()))
    assert index_fingerprint(Corpus(js, "jsonl"), IndexOptions()) != before
    before = index_fingerprint(Corpus(trec, "trec"), IndexOptions())
    (trec / "README").write_text("notes")  # Anserini does not read it: the index stays valid
    assert index_fingerprint(Corpus(trec, "trec"), IndexOptions()) == before


@pytest.mark.java
@pytest.mark.parametrize("name", ["corpus.ndjson", "CORPUS.JSONL", "corpus"])
def test_a_single_jsonl_file_of_any_name_is_indexed(tmp_path, name):
    """A file given as the collection is staged under a name JsonCollection reads (it reads only
    names ending in .json, .jsonl or .gz, and so indexed nothing from corpus.ndjson)."""
    (tmp_path / name).write_text(_json_line("a", "alpha beta") + _json_line("b", "beta gamma"))
    info = ensure_index(Corpus(tmp_path / name, "jsonl"), IndexOptions(), tmp_path / "idx", threads=1, **QUIET)
    assert info.manifest["counters"]["indexed"] == 2
    assert sorted(documents(info.path)) == ["a", "b"]


@pytest.mark.java
@pytest.mark.parametrize("name", ["d.jsonl", "d.json.gz"])
def test_a_byte_order_mark_anserini_cannot_read_is_named(tmp_path, name):
    """IndexCollection indexes nothing from a JSON file that starts with a UTF-8 byte-order mark
    (Jackson reads it through a Reader and stops); the harness says so, where it said "Anserini
    read 0 of 2 JSON documents"."""
    import gzip

    data = b"\xef\xbb\xbf" + (_json_line("a", "alpha") + _json_line("b", "beta")).encode()
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    assert (
        run_index_collection("JsonCollection", tmp_path / "c", tmp_path / "theirs", IndexOptions(), 1)["indexed"] == 0
    )
    with pytest.raises(DataError, match=rf"{name}:1: starts with a UTF-8 byte-order mark"):
        ensure_index(Corpus(tmp_path / "c", "jsonl"), IndexOptions(), tmp_path / "ours", threads=1, **QUIET)
