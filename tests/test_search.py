"""Retrieval equals Anserini (SimpleSearcher) and plain Lucene, hit for hit."""

from __future__ import annotations

import json

import numpy as np
import pytest

from harness.engine import lucene
from harness.engine.corpus import Corpus
from harness.engine.index import IndexOptions, ensure_index
from harness.engine.search import Searcher
from harness.specs.similarity import Similarity


def simple_searcher_run(index_path, topics, sim: Similarity, k: int):
    """Anserini's own SimpleSearcher, one query at a time: the oracle."""
    ss = lucene.jclass("io.anserini.search.SimpleSearcher")(str(index_path))
    if sim.model == "bm25":
        ss.set_bm25(sim.params["k1"], sim.params["b"])
    else:
        ss.set_qld(sim.params["mu"])
    out = []
    for _, text in topics:
        hits = ss.search(text, k)
        out.append(([h.docid for h in hits], np.array([h.score for h in hits], dtype=np.float64)))
    ss.close()
    return out


def assert_same_runs(ours, theirs, tol=1e-4):
    assert len(ours) == len(theirs)
    for i, ((ids, scores), (ids2, scores2)) in enumerate(zip(ours, theirs)):
        assert ids == ids2, f"query {i}: ranking differs"
        if len(scores):
            assert np.max(np.abs(scores - scores2)) <= tol, f"query {i}: scores differ"
        assert np.all(np.diff(scores) < 0), f"query {i}: scores not strictly decreasing"


# One setting a model, none of them its default: both sides are given every parameter, so a
# parameter the harness dropped would leave it at its default and the runs would differ; the
# defaults' settings (bm25 k1=0.9 b=0.4, dirichlet mu=1000) took the same path once more each.
@pytest.mark.parametrize("spec", ["bm25(k1=1.2,b=0.75)", "dirichlet(mu=2000)"])
def test_cranfield_runs_equal_simple_searcher(cranfield_index, anserini_cranfield_index, cranfield_topics, spec):
    """The harness's index searched by the harness, Anserini's own index (no raw texts: conftest)
    by SimpleSearcher: the same hits and scores, so the two indexes score alike too."""
    sim = Similarity.parse(spec)
    searcher = Searcher(cranfield_index.path, IndexOptions())
    ours = searcher.search([t for _, t in cranfield_topics], sim, 1000, threads=2)
    theirs = simple_searcher_run(anserini_cranfield_index, cranfield_topics, sim, 1000)
    assert sum(len(ids) for ids, _ in ours) > 200_000
    assert_same_runs(ours, theirs)


def lucene_jm_run(index_path, topics, lam: float, k: int):
    """Plain Lucene IndexSearcher + LMJelinekMercerSimilarity, query from Anserini's generator."""
    J = lucene.jclass
    reader = J("org.apache.lucene.index.DirectoryReader").open(
        J("org.apache.lucene.store.FSDirectory").open(J("java.io.File")(str(index_path)).toPath())
    )
    IndexSearcher = J("org.apache.lucene.search.IndexSearcher")
    searcher = IndexSearcher(reader, signature="(Lorg/apache/lucene/index/IndexReader;)V")
    searcher.setSimilarity(J("org.apache.lucene.search.similarities.LMJelinekMercerSimilarity")(lam))
    SortField = J("org.apache.lucene.search.SortField")
    sort = J("org.apache.lucene.search.Sort")(
        SortField.FIELD_SCORE, SortField("id", J("org.apache.lucene.search.SortField$Type").STRING_VAL)
    )
    analyzer = J("io.anserini.analysis.DefaultEnglishAnalyzer").newDefaultInstance()
    gen = J("io.anserini.search.query.BagOfWordsQueryGenerator")()
    stored = reader.storedFields()
    ids = [stored.document(i).get("id") for i in range(reader.maxDoc())]  # each hit's stored id, read once
    out = []
    for _, text in topics:
        top = searcher.search(gen.buildQuery("contents", analyzer, text), k, sort, True)
        hits = top.scoreDocs
        out.append(([ids[h.doc] for h in hits], np.array([h.score for h in hits])))
    reader.close()
    return out


@pytest.mark.parametrize("lam", [0.1, 0.7])
def test_cranfield_jm_equals_plain_lucene(cranfield_index, cranfield_topics, lam):
    topics = cranfield_topics
    searcher = Searcher(cranfield_index.path, IndexOptions())
    ours = searcher.search([t for _, t in topics], Similarity.of("jm", {"lambda": lam}), 1000)
    assert_same_runs(ours, lucene_jm_run(cranfield_index.path, topics, lam, 1000))


def test_query_text_never_raises(cranfield_index):
    searcher = Searcher(cranfield_index.path, IndexOptions())
    odd = ["-dash", "/slip flow/", "?", '"quoted phrase', "(the ?slip? effect)", "a AND OR NOT", "", "the of and"]
    res = searcher.search(odd, Similarity.parse("bm25"), 10)
    assert len(res) == len(odd)
    assert res[0][0] and res[1][0]  # '-dash' and '/slip flow/' are words, they match
    assert len(res[6][0]) == 0  # empty query: no hits
    assert len(res[7][0]) == 0  # only stopwords: no hits


def test_tie_group_straddling_the_cutoff(tmp_path):
    """Seven identical documents tie; depth 4 must keep the 4 smallest ids (string order),
    exactly as SimpleSearcher does, whatever the indexing order or thread count."""
    ids = ["d7", "d10", "d2", "d33", "d1", "d05", "d4"]
    corpus = tmp_path / "tie.jsonl"
    lines = [{"id": i, "contents": "apple banana"} for i in ids] + [
        {"id": "z0", "contents": "apple apple banana cherry"}
    ]
    corpus.write_text("".join(json.dumps(x) + "\n" for x in lines))
    info = ensure_index(Corpus(corpus, "jsonl"), IndexOptions(), tmp_path / "idx", threads=1)
    expected = ["d05", "d1", "d10", "d2"]  # ascending string order of the tied ids
    for threads in (1, 2):
        searcher = Searcher(info.path, IndexOptions())
        ids_got, scores = searcher.search(["banana"], Similarity.parse("bm25"), 4, threads=threads)[0]
        assert ids_got == expected
        assert np.all(np.diff(scores) < 0)
    theirs = simple_searcher_run(info.path, [("1", "banana")], Similarity.parse("bm25"), 4)
    assert theirs[0][0] == expected


def test_strictly_decreasing_breaks_every_float32_tie():
    """Above 32, float32 cannot hold Anserini's 1e-6 tie step: equal neighbours remain. They
    become strictly decreasing float64 values within 1e-9 of the originals, order unchanged."""
    from harness.engine.search import strictly_decreasing

    rng = np.random.default_rng(0)
    pool = np.array([40.0, 33.5, 32.0, 2.0, 1.0, 1e-30, 0.0, -1e-6, -2.0], dtype=np.float32)
    for _ in range(500):
        scores = np.sort(rng.choice(pool, int(rng.integers(1, 80))))[::-1]
        out = strictly_decreasing(scores)
        assert np.all(np.diff(out) < 0)
        assert np.max(np.abs(out - scores)) < 1e-9
        assert np.array_equal(np.argsort(-out, kind="stable"), np.arange(len(out)))
    assert strictly_decreasing(np.array([3, 3, 3, 1], dtype=np.float32)).tolist() == [
        3.0,
        np.nextafter(3.0, 0),
        np.nextafter(np.nextafter(3.0, 0), 0),
        1.0,
    ]


def test_strictly_decreasing_over_rankings_back_to_back():
    """Several rankings in one array: each is made strictly decreasing on its own, a ranking's
    first score never lowered because the previous one ended on the same value."""
    from harness.engine.search import strictly_decreasing

    rng = np.random.default_rng(1)
    pool = np.array([40.0, 33.5, 2.0, 1.0], dtype=np.float32)
    parts = [np.sort(rng.choice(pool, int(rng.integers(1, 30))))[::-1] for _ in range(200)]
    starts = np.cumsum([0] + [len(p) for p in parts[:-1]])
    together = strictly_decreasing(np.concatenate(parts), starts)
    assert together.tolist() == np.concatenate([strictly_decreasing(p) for p in parts]).tolist()


@pytest.mark.parametrize("spec", ["bm25(k1=0.9,b=0.4)", "dirichlet(mu=1000)"])
def test_search_run_equals_search_and_its_file_equals_repr(cranfield_index, cranfield_topics, spec, tmp_path):
    """The columnar path (what `harness run` uses) gives the run that search() gives, bit for
    bit, and its TREC file is the text of one repr() per score."""
    from harness.formats.run import Run
    from harness.formats.runs import read_run, write_run

    sim = Similarity.parse(spec)
    searcher = Searcher(cranfield_index.path, IndexOptions())
    topics = list(cranfield_topics) + [("empty", "zzzzqqq")]
    run = searcher.search_run(topics, sim, 1000)
    ranked = searcher.search([t for _, t in topics], sim, 1000)
    expected = Run.from_ranked({q: r for (q, _), r in zip(topics, ranked) if len(r[0])})
    assert run.topics() == expected.topics() and "empty" not in run.topics()
    for q in run.topics():
        assert run.ranked(q)[0] == expected.ranked(q)[0]
        assert run.ranked(q)[1].tolist() == expected.ranked(q)[1].tolist()
    write_run(tmp_path / "run", run, "tag")
    lines = [
        f"{q} Q0 {d} {r} {s!r} tag\n"
        for q, (ids, scores) in zip([q for q, _ in topics], ranked)
        for r, (d, s) in enumerate(zip(ids, scores.tolist()), start=1)
    ]
    assert (tmp_path / "run").read_text() == "".join(lines)
    back = read_run(tmp_path / "run")
    assert np.array_equal(back.scores.view(np.uint64), run.scores.view(np.uint64))


HOSTILE_QUERIES = [
    "apple",
    "apple AND banana",
    "apple*",
    "appl?",
    '"apple banana"',
    "title:apple",
    "apple\\ banana",
    "\\",
    "the of and",  # stopwords only: analyses to nothing
    "zzzz",  # no matching term
    "apple apple apple banana",  # a repeated term (a boost of 3)
    "apple^3 banana~2",
    "(apple OR fig) -cherry",
    "+apple +banana",
    "apple/banana",
    "APPLE Banana",
    "é日本",
    "kiwi " * 300,
    " ".join(["apple", "banana", "cherry", "date", "elder", "fig", "grape", "honey"] * 40),  # long
    "apple [banana TO cherry]",
    "apple && banana || !cherry",
    "{}",
]


def test_awkward_queries_and_ids_equal_simple_searcher(tmp_path):
    """Ids with accents, CJK, astral characters and Lucene syntax, documents of 1 to 3,000 words,
    stopword-only and duplicate texts; queries with Lucene syntax, no matching term, nothing after
    analysis, repeats, 2,400 words. Every (query, similarity, expansion, depth) equals
    SimpleSearcher: ids, float32 scores, order (ties by id across every cut-off)."""
    import random

    rnd = random.Random(3)
    words = "apple banana cherry date elder fig grape honey iris jade kiwi lemon mango peach".split()
    ids = ["é1", "e1", "Z", "a", "ä", "日本", "𝔸x", "b-1", "b_1", "B1", "ñ", "a:b", "x*y", "q?"]
    docs = []
    for i in range(200):
        n = rnd.choice([1, 2, 5, 20, 200, 3000]) if i > 20 else 3
        text = " ".join(rnd.choice(words) for _ in range(n))
        if i % 17 == 0:
            text = "the and of a to is"
        if i % 13 == 0:
            text = "apple banana cherry"
        docs.append({"id": ids[i] if i < len(ids) else f"d{i:03d}", "contents": text})
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "d.jsonl").write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), "utf-8")
    info = ensure_index(Corpus(tmp_path / "c", "jsonl"), IndexOptions(), tmp_path / "idx", threads=1)
    ours = Searcher(info.path, IndexOptions())
    ss = lucene.jclass("io.anserini.search.SimpleSearcher")(str(info.path))
    setups = {
        "bm25": lambda: (ss.unset_rm3(), ss.unset_rocchio(), ss.set_bm25(0.9, 0.4)),
        "dirichlet": lambda: (ss.unset_rm3(), ss.unset_rocchio(), ss.set_qld(1000.0)),
        "bm25+rm3": lambda: (ss.unset_rocchio(), ss.set_bm25(0.9, 0.4), ss.set_rm3(10, 10, 0.5)),
        "dirichlet+rm3": lambda: (ss.unset_rocchio(), ss.set_qld(1000.0), ss.set_rm3(10, 10, 0.5)),
        "bm25+rocchio": lambda: (ss.unset_rm3(), ss.set_bm25(0.9, 0.4), ss.set_rocchio()),
    }
    try:
        for spec, setup in setups.items():
            setup()
            for k in (1, 3, 10, 60, 1000):
                got = ours.search(HOSTILE_QUERIES, Similarity.parse(spec), k, threads=1)
                for q, (doc_ids, scores) in zip(HOSTILE_QUERIES, got, strict=True):
                    hits = ss.search(q, k)
                    assert doc_ids == [str(h.docid) for h in hits], (spec, k, q[:40])
                    assert scores.astype(np.float32).tolist() == [h.score for h in hits], (spec, k, q[:40])
    finally:
        ss.close()
        ours.close()
