"""Indexing: every collection format, doc ids, fingerprint reuse, atomic builds, clear errors."""

from __future__ import annotations

import pytest

from harness.engine.corpus import Corpus
from harness.engine.index import IndexOptions, ensure_index, index_fingerprint
from harness.engine.indexer import indexer_args
from harness.engine.manifest import MANIFEST
from harness.engine.search import Searcher
from harness.errors import DataError
from harness.events import not_indexed
from harness.specs.similarity import Similarity

QUIET: dict = {}  # progress events are dropped by default (harness.events.ignore)


def build(tmp_path, fmt, files: dict[str, str], **kw):
    src = tmp_path / "src"
    for name, text in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    return ensure_index(Corpus(src, fmt), IndexOptions(**kw), tmp_path / "idx", threads=1, **QUIET)


def test_text_folder_ids_are_relative_paths(tmp_path):
    info = build(
        tmp_path,
        "text-folder",
        {
            "sample_docs/vsm_mixed.txt": "vector space model and boolean retrieval",
            "sample_docs/boost_vector.txt": "boosting query vectors",
            "other/notes.txt": "cooking pasta",
            "sample_docs/ignored.md": "vector vector",
        },
    )
    assert info.manifest["counters"]["indexed"] == 3
    assert info.manifest["stats"]["documents"] == 3
    s = Searcher(info.path, IndexOptions())
    assert sorted(s.ids) == ["other/notes.txt", "sample_docs/boost_vector.txt", "sample_docs/vsm_mixed.txt"]
    ids, _ = s.search(["vector"], Similarity.parse("bm25"), 10)[0]
    assert sorted(ids) == ["sample_docs/boost_vector.txt", "sample_docs/vsm_mixed.txt"]  # vectors -> vector
    assert s.search(["pasta"], Similarity.parse("bm25"), 10)[0][0] == ["other/notes.txt"]


def test_trec_and_html_collections(tmp_path):
    trec = build(
        tmp_path / "t",
        "trec",
        {
            "a.txt": (
                "<DOC>\n<DOCNO> FT-1 </DOCNO>\n<TEXT>\nbm25 ranking\n</TEXT>\n</DOC>\n"
                "<DOC>\n<DOCNO>FT-2</DOCNO>\n<TEXT>\nquery likelihood\n</TEXT>\n</DOC>\n"
            )
        },
    )
    assert sorted(Searcher(trec.path, IndexOptions()).ids) == ["FT-1", "FT-2"]
    html = build(tmp_path / "h", "html", {"alpha.html": "<html><body><p>BM25 ranking</p></body></html>"})
    s = Searcher(html.path, IndexOptions())
    assert list(s.ids) == ["alpha"]  # Anserini's HtmlCollection drops .html
    assert s.search(["ranking"], Similarity.parse("bm25"), 5)[0][0] == ["alpha"]


def test_reuse_and_rebuild_on_change(tmp_path):
    src = tmp_path / "c.jsonl"
    src.write_text('{"id": "a", "contents": "apple"}\n')
    corpus = Corpus(src, "jsonl")
    first = ensure_index(corpus, IndexOptions(), tmp_path / "idx", **QUIET)
    assert not first.reused
    again = ensure_index(corpus, IndexOptions(), tmp_path / "idx", **QUIET)
    assert again.reused and again.fingerprint == first.fingerprint
    # other options -> other fingerprint
    assert index_fingerprint(corpus, IndexOptions(stemmer="none")) != first.fingerprint
    src.write_text('{"id": "a", "contents": "apple"}\n{"id": "b", "contents": "banana"}\n')
    rebuilt = ensure_index(corpus, IndexOptions(), tmp_path / "idx", **QUIET)
    assert not rebuilt.reused and rebuilt.manifest["stats"]["documents"] == 2
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no leftovers


def test_bad_jsonl_names_file_and_line_and_leaves_nothing(tmp_path):
    src = tmp_path / "c.jsonl"
    src.write_text('{"id": "a", "contents": "apple"}\n{oops\n')
    with pytest.raises(DataError, match=r"c\.jsonl:2: invalid JSON"):
        ensure_index(Corpus(src, "jsonl"), IndexOptions(), tmp_path / "idx", **QUIET)
    src.write_text('{"id": "a", "contents": "apple"}\n{"id": "b", "text": "no contents"}\n')
    with pytest.raises(DataError, match=r'c\.jsonl:2: "contents" must be a string \(it is missing\)'):
        ensure_index(Corpus(src, "jsonl"), IndexOptions(), tmp_path / "idx", **QUIET)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl"]


def test_refuses_to_overwrite_a_foreign_folder(tmp_path):
    (tmp_path / "idx").mkdir()
    (tmp_path / "idx" / "precious.txt").write_text("keep me")
    src = tmp_path / "c.jsonl"
    src.write_text('{"id": "a", "contents": "apple"}\n')
    with pytest.raises(DataError, match=MANIFEST):
        ensure_index(Corpus(src, "jsonl"), IndexOptions(), tmp_path / "idx", **QUIET)
    assert (tmp_path / "idx" / "precious.txt").read_text() == "keep me"


def test_cranfield_counts(cranfield_index):
    # The collection's README: 1,400 docs, 2 empty ones that Anserini skips: 471 and 995.
    assert cranfield_index.manifest["counters"]["indexed"] == 1398
    assert cranfield_index.manifest["counters"]["empty"] == 2
    assert cranfield_index.manifest["stats"]["documents"] == 1398
    assert cranfield_index.manifest["empty_ids"] == ["471", "995"]
    assert not_indexed(cranfield_index.manifest) == "not indexed: 2 empty documents (471, 995)"


# Blank after Java's String.trim() (every char <= U+0020), which is what Anserini's
# DefaultLuceneDocumentGenerator calls empty; a no-break space is not blank to it, so "nbsp" is indexed.
_BLANKS = {"e1": "", "e2": " ", "e3": "\t\n ", "e4": "\u0000", "e5": "\r", "e6": "", "e7": "   "}


def test_empty_documents_are_named_in_collection_order_and_counted(tmp_path):
    import json

    from harness.engine import lucene

    docs = [("a", "apple pie")] + list(_BLANKS.items()) + [("nbsp", "\u00a0"), ("z", "zebra")]
    docs.insert(4, ("m", "middle"))
    src = tmp_path / "c.jsonl"
    src.write_text("".join(json.dumps({"id": i, "contents": t}) + "\n" for i, t in docs))
    info = ensure_index(Corpus(src, "jsonl"), IndexOptions(), tmp_path / "idx", threads=1, **QUIET)
    # the oracle: IndexCollection's own counter, and Java's trim() written out
    assert info.manifest["counters"]["empty"] == 7 == sum(t.strip("".join(map(chr, range(33)))) == "" for _, t in docs)
    assert info.manifest["counters"]["indexed"] == 4  # a, m, nbsp, z
    assert info.manifest["empty_ids"] == ["e1", "e2", "e3", "e4", "e5"]  # the first five, in file order
    text = "not indexed: 7 empty documents (e1, e2, e3, e4, e5 and 2 more)"
    assert not_indexed(info.manifest) == text
    # a reused index says the same: it is read from harness-index.json
    again = ensure_index(Corpus(src, "jsonl"), IndexOptions(), tmp_path / "idx", threads=1, **QUIET)
    assert again.reused and not_indexed(again.manifest) == text
    # the scan without a limit finds as many as IndexCollection counted
    stage = tmp_path / "stage"
    stage.mkdir()
    (stage / "c.jsonl").write_text(src.read_text())
    args = indexer_args("JsonCollection", stage, tmp_path / "unused", IndexOptions(), 1)
    found = lucene.jclass("harness.EmptyDocs").find("JsonCollection", str(stage), args, 100)
    assert list(found) == [i for i, _ in _BLANKS.items()]


def test_the_run_and_its_report_name_the_empty_documents_built_or_reused(tmp_path):
    import subprocess
    import sys

    (tmp_path / "c.jsonl").write_text(
        '{"id": "d1", "contents": "wing flow"}\n{"id": "blank", "contents": " "}\n'
        '{"id": "d2", "contents": "heat flow"}\n{"id": "void", "contents": ""}\n'
    )
    (tmp_path / "t.tsv").write_text("q1\tflow\n")
    (tmp_path / "q.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "c.yaml").write_text(
        "name: blanks\ncollection: {path: c.jsonl, format: jsonl}\nindex: {path: idx}\ntopics: t.tsv\n"
        "qrels: q.txt\nruns: [bm25]\nmeasures: [AP]\noutput: out\n"
    )
    said = "not indexed: 2 empty documents (blank, void)"
    for how in ("built", "reused"):
        r = subprocess.run(
            [sys.executable, "-m", "harness", "run", "c.yaml"], cwd=tmp_path, capture_output=True, text=True
        )
        assert r.returncode == 0, r.stderr
        assert f"index {how}: {tmp_path / 'idx'} (2 documents, 3 terms; {said})" in r.stderr
        head = r.stdout.splitlines()[2]
        assert head.startswith("Index `") and f"; {said}). 1 topics" in head
        page = (tmp_path / "out" / "report.html").read_text()
        assert f"; {said})." in page
    r = subprocess.run(
        [sys.executable, "-m", "harness", "index", "c.yaml"], cwd=tmp_path, capture_output=True, text=True
    )
    assert "not indexed          2 empty documents (blank, void)" in r.stdout.splitlines()


def test_an_index_without_empty_documents_names_none(tmp_path):
    info = build(tmp_path, "text-folder", {"a.txt": "apple", "b.txt": "banana"})
    assert info.manifest["counters"]["empty"] == 0 and info.manifest["empty_ids"] == []
    assert not_indexed(info.manifest) == ""


def test_stemmer_and_stopword_options(tmp_path):
    files = {"d.txt": "the running dogs"}
    kept = build(tmp_path / "a", "text-folder", files, stemmer="none", stopwords=False)
    s = Searcher(kept.path, IndexOptions(stemmer="none", stopwords=False))
    assert s.analyze("The running dogs") == ["the", "running", "dogs"]
    porter = build(tmp_path / "b", "text-folder", files)
    assert Searcher(porter.path, IndexOptions()).analyze("The running dogs") == ["run", "dog"]


def test_stats_equal_anserinis(cranfield_index):
    from harness.engine import lucene

    utils = lucene.jclass("io.anserini.index.IndexReaderUtils")
    reader = utils.getReader(str(cranfield_index.path))
    theirs = utils.getIndexStats(reader)
    ours = cranfield_index.manifest["stats"]
    for key in ("documents", "non_empty_documents", "total_terms", "unique_terms"):
        assert ours[key] == int(theirs.get(key)), key
    reader.close()


def test_repeated_doc_id_in_a_collection_is_an_error(tmp_path):
    info = build(
        tmp_path, "jsonl", {"c.jsonl": '{"id": "a", "contents": "apple"}\n{"id": "a", "contents": "apple pie"}\n'}
    )
    with pytest.raises(DataError, match="doc id 'a' occurs more than once"):
        Searcher(info.path, IndexOptions())
