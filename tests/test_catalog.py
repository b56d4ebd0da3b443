"""The table of formats (harness.formats.catalog, issue 48, item 2): each format's text reads back
to itself, the schema and the readers read the table, and a collection's fingerprint, files and
Anserini class are what they were before formats became values (the oracle: those values taken
by the code of the commit before, engine/corpus.py's dicts keyed by format names; a fingerprint
that moved would rebuild every user's index)."""

from __future__ import annotations

import doctest
import gzip

import pytest

from harness.config.schema import SCHEMA
from harness.engine.corpus import Corpus
from harness.engine.topics import read_topics
from harness.errors import DataError
from harness.formats import catalog, layouts
from harness.formats.catalog import (
    COLLECTION_FORMATS,
    TOPIC_FORMATS,
    Staging,
    choices,
    collection_format,
    topic_format,
)

from .conftest import REPO

DATA = REPO / "tests" / "data"


def test_the_doctests_hold():
    assert doctest.testmod(catalog).failed == 0
    assert doctest.testmod(layouts).failed == 0


@pytest.mark.parametrize(
    "text", ["jsonl", "text-folder", "irds:beir/scifact", "irds:beir/scifact#title,text", "tsv", "anserini:TsvInt"]
)
def test_a_format_text_reads_back_to_itself(text):
    parsed = [f for f in (collection_format(text), topic_format(text)) if f is not None]
    assert parsed and all(str(f) == text for f in parsed)


def test_names_that_are_no_format_are_none():
    for text in ("json", "irds", "anserini", "TSV", "trec:x", ""):
        assert collection_format(text) is None
    for text in ("html", "text-folder", "irds", "anserini", "Trec"):
        assert topic_format(text) is None
    assert topic_format("anserini:Cacm").reader == "Cacm" and not topic_format("anserini:Cacm").reads_without_java
    assert topic_format("irds:msmarco-passage/dev#text").dataset == ("msmarco-passage/dev", "text")
    assert collection_format("irds:beir/nfcorpus#title,text").dataset == ("beir/nfcorpus", ("title", "text"))


def test_the_schema_offers_the_table_and_nothing_else():
    collection = SCHEMA.key("collection").key("format")
    topics = SCHEMA.key("topics").key("format")
    assert collection.choices == ("jsonl", "trec", "html", "text-folder", "tsv", "vectors", "beir", "impact")
    assert topics.choices == ("tsv", "jsonl", "trec", "vectors", "beir", "impact", "anserini:<Reader>")
    assert collection.choices == choices(COLLECTION_FORMATS) and topics.choices == choices(TOPIC_FORMATS)
    for fmt in COLLECTION_FORMATS.values():  # each described where it is offered
        assert (f"`{fmt.name}`: {fmt.doc}" in collection.doc) == fmt.written
    assert str(topics.default) == "tsv"


def test_the_runs_a_format_fits_are_one_of_three():
    for fmt in COLLECTION_FORMATS.values():
        assert [fmt.dense, fmt.weights, fmt.text].count(True) == 1
    assert [f.name for f in COLLECTION_FORMATS.values() if f.dense] == ["vectors"]
    assert [f.name for f in COLLECTION_FORMATS.values() if f.weights] == ["impact"]
    assert [f.name for f in TOPIC_FORMATS.values() if not f.reads_without_java] == ["trec", "anserini"]


def test_a_topics_format_by_name_is_the_value(tmp_path):
    (tmp_path / "t.jsonl").write_text('{"qid": 1, "query": "flow"}\n')
    assert read_topics(tmp_path / "t.jsonl", "jsonl") == read_topics(tmp_path / "t.jsonl", TOPIC_FORMATS["jsonl"])
    with pytest.raises(DataError, match=r"unknown topics format 'jsonlines'; valid: tsv, jsonl, trec, vectors, beir"):
        read_topics(tmp_path / "t.jsonl", "jsonlines")
    with pytest.raises(DataError, match=r"unknown collection format 'json'; valid: jsonl, trec, html, text-folder"):
        Corpus(tmp_path, "json")


def _made(tmp_path):
    """Collections written here, each in one format: (path, format, fields)."""
    (tmp_path / "p.tsv").write_text("1\tfirst passage\n2\tsecond one\n")
    (tmp_path / "beir").mkdir()
    (tmp_path / "beir" / "corpus.jsonl").write_text('{"_id": "d1", "title": "t", "text": "x"}\n')
    (tmp_path / "beir" / "queries.jsonl").write_text('{"_id": "q1", "text": "x"}\n')  # not the corpus
    (tmp_path / "html").mkdir()
    (tmp_path / "html" / "a.html").write_text("<html><body>hi</body></html>")
    (tmp_path / "c.ndjson").write_text('{"id": "a", "contents": "b"}\n')
    return [
        (tmp_path / "p.tsv", "tsv", False),
        (tmp_path / "beir", "beir", False),
        (tmp_path / "beir", "beir", True),
        (tmp_path / "html", "html", False),
        (tmp_path / "c.ndjson", "jsonl", False),
    ]


# (path, format, fields) -> (fingerprint, Anserini class), as the code before computed them
BEFORE = {
    ("corpora", "text-folder", False): (
        "923ffbbf0e6873e81461c91f82a431c9c98fecaeecb6e599fd1b0a7e4272ed9c",
        "JsonCollection",
    ),
    ("tests/data/anserini/json", "jsonl", False): (
        "f5a4690975d40d160543ffd1b9e7266842efb40ec9b5fee7713f389ee06d510c",
        "JsonCollection",
    ),
    ("tests/data/anserini/trec", "trec", False): (
        "f47fa3779df903155fe6b967d08b406c8a8cacf609bb26c5ab7acb950b1992ab",
        "TrecCollection",
    ),
    ("tests/data/anserini-dense/sample100.jsonl.gz", "vectors", False): (
        "6ca0e251bc9ed5a6d4954000608646854cf46ad358b6da704f19b3b6e63968dd",
        "JsonDenseVectorCollection",
    ),
    ("tests/data/anserini-impact/segment1.json", "impact", False): (
        "13952f4e95ba19b503bc5cfe9139e4c206eb63c7d022743ddf691e6d5e040cf1",
        "JsonVectorCollection",
    ),
    ("p.tsv", "tsv", False): ("e4d8a3bfcb1778380c583eadcba1c5425642f2ce2dcbb8616889dce245077dd6", "JsonCollection"),
    ("beir", "beir", False): ("bbc598b9a332342c5d40df481ab768a95c3f3dd2b9c4e5d7ef93ffc1c95f7e7a", "BeirFlatCollection"),
    ("beir", "beir", True): (
        "bbc598b9a332342c5d40df481ab768a95c3f3dd2b9c4e5d7ef93ffc1c95f7e7a",
        "BeirMultifieldCollection",
    ),
    ("html", "html", False): ("20ad902ff9687f603b03e2627c221724e49cf2f5d2e232457993f38eee0e382e", "HtmlCollection"),
    ("c.ndjson", "jsonl", False): (
        "143e47d55004f3d279b2fed4431be7cafe6281a3d8aa20da1c46703a4eb96d23",
        "JsonCollection",
    ),
}


def test_fingerprints_and_anserini_classes_are_what_they_were(tmp_path):
    corpora = [(REPO / path, fmt, fields) for path, fmt, fields in BEFORE if (REPO / path).exists()]
    assert len(corpora) == 5
    for path, fmt, fields in [*corpora, *_made(tmp_path)]:
        corpus = Corpus(path, COLLECTION_FORMATS[fmt], fields=fields)
        key = (path.relative_to(REPO if path.is_relative_to(REPO) else tmp_path).as_posix(), fmt, fields)
        assert (corpus.fingerprint(), corpus.anserini_class) == BEFORE[key], key
    assert [f.name for f in Corpus(tmp_path / "beir", "beir").files()] == ["corpus.jsonl"]


def test_the_files_a_folder_holds_are_those_its_format_reads(tmp_path):
    """Anserini's own rules, as the format carries them: JsonCollection's names case-sensitively,
    TrecCollection without readme files and the TREC disks' cr/dtd folders, a text folder without
    hidden names."""
    for name in ("a.json", "b.jsonl", "c.gz", "d.JSON", "e.txt", "readme", "README.txt", ".hidden.txt", "f.tsv"):
        (tmp_path / name).write_bytes(gzip.compress(b"x") if name.endswith(".gz") else b"x")
    (tmp_path / "dtd").mkdir()
    (tmp_path / "dtd" / "g.txt").write_text("x")

    def names(fmt):
        return sorted(f.relative_to(tmp_path).as_posix() for f in Corpus(tmp_path, fmt).files())

    assert names("jsonl") == ["a.json", "b.jsonl", "c.gz"]
    assert names("text-folder") == ["README.txt", "dtd/g.txt", "e.txt"]
    assert names("tsv") == ["f.tsv"]
    assert names("trec") == [".hidden.txt", "a.json", "b.jsonl", "c.gz", "d.JSON", "e.txt", "f.tsv"]
    assert names("impact") == [
        ".hidden.txt",
        "README.txt",
        "a.json",
        "b.jsonl",
        "c.gz",
        "d.JSON",
        "dtd/g.txt",
        "e.txt",
        "f.tsv",
        "readme",
    ]
    converted = [f.name for f in COLLECTION_FORMATS.values() if f.staging is not Staging.AS_IS]
    assert converted == ["text-folder", "tsv", "irds"]  # JSON lines written for JsonCollection
