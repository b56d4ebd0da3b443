"""Indexing: every collection format, doc ids, fingerprint reuse, atomic builds, clear errors."""

from __future__ import annotations

import pytest

from harness.engine.corpus import Corpus
from harness.engine.index import MANIFEST, IndexOptions, ensure_index, index_fingerprint
from harness.engine.search import Searcher
from harness.engine.similarity import Similarity
from harness.errors import DataError

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
    # The collection's README: 1,400 docs, 2 empty ones that Anserini skips.
    assert cranfield_index.manifest["counters"]["indexed"] == 1398
    assert cranfield_index.manifest["counters"]["empty"] == 2
    assert cranfield_index.manifest["stats"]["documents"] == 1398


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
