"""Learned sparse retrieval over the user's term weights (harness.engine.impact), against Anserini's
own classes in its fatjar:

- the index: ``IndexCollection -collection JsonVectorCollection -generator DefaultLuceneDocumentGenerator
  -impact -pretokenized`` (its command line, ``main``), on the same files;
- the searches: ``SimpleImpactSearcher`` (its constructor opens the index and fetches nothing):
  ``search(String, k)`` for pretokenized queries, ``search(Map<String, Integer>, k)`` for term
  weights (``SearchCollection -impact -pretokenized`` fetches a list of prebuilt indexes over the
  network before it opens an index, so it cannot run here; its run lines on Anserini's own
  fixture are asserted below, from its JsonVectorEndToEndTest);
- Anserini's JsonVectorEndToEndTest: its collection and topics (tests/data/anserini-impact) and
  the run lines it asserts.

Runs must be equal hit for hit and score for score (the float32 scores, bit for bit) at several
depths, on fixtures made for what can go wrong: ties cut by the depth (broken by doc id in UTF-8
byte order), repeated tokens, real-valued weights (Anserini cuts them to their whole part),
weights written 3.0, unicode terms (a no-break space is no whitespace in Java), terms absent from
the index, zero weights, large weights whose products a float rounds.
"""

from __future__ import annotations

import gzip
import json
import random
import time
from pathlib import Path

import numpy as np
import pytest

from harness.engine import lucene
from harness.engine.contents import check_contents
from harness.engine.corpus import Corpus
from harness.engine.index import IndexOptions, ensure_index
from harness.engine.search import Searcher
from harness.engine.topics import read_topics
from harness.errors import DataError
from harness.formats.impact import MAX_TERM_UNITS, check_weights, term_problem
from harness.specs.similarity import Similarity

DATA = Path(__file__).parent / "data" / "anserini-impact"
IMPACT = Similarity.parse("impact")

# JsonVectorEndToEndTest's referenceRunOutput ("impact")
ANSERINI_END_TO_END = """\
1 Q0 doc2 1 8.000000 Anserini
2 Q0 doc1 1 1.000000 Anserini
3 Q0 doc1 1 4.000000 Anserini
3 Q0 doc2 2 3.000000 Anserini"""


# ---------------------------------------------------------------------------------- the oracle
def anserini_index(docs: Path, index: Path) -> Path:
    """Anserini's own impact index of ``docs`` (IndexCollection's command line, one thread)."""
    args = ["-collection", "JsonVectorCollection", "-input", str(docs), "-index", str(index)]
    args += ["-generator", "DefaultLuceneDocumentGenerator", "-threads", "1", "-impact", "-pretokenized"]
    with lucene.java_output_hidden():
        lucene.jclass("io.anserini.index.IndexCollection").main(args)
    return index


def anserini_search(searcher, query, k: int) -> list[tuple[str, float]]:
    """SimpleImpactSearcher.search(String, k) or search(Map<String, Integer>, k); a real-valued
    query weight goes in cut to its whole part, as JsonVectorCollection reads a document's (the
    harness's rule for query weights, which Anserini only takes as Integers)."""
    if isinstance(query, dict):
        m = lucene.jclass("java.util.HashMap")()
        Integer = lucene.jclass("java.lang.Integer")
        for term, w in query.items():
            m.put(term, Integer(int(w)))
        query = m
    return [(str(h.docid), float(h.score)) for h in searcher.search(query, k)]


def harness_search(s: Searcher, queries: list, depth: int) -> list[list[tuple[str, float]]]:
    """The harness's hits: external ids and the float32 scores, as BatchSearcher returns them."""
    counts, docs, scores = s.search_arrays(queries, IMPACT, depth, threads=2)
    out, start = [], 0
    for c in counts.tolist():
        out.append([(str(s.ids[d]), float(x)) for d, x in zip(docs[start : start + c], scores[start : start + c])])
        start += c
    return out


# ---------------------------------------------------------------------------------- fixtures
VOCAB = ["f1", "f2", "f3", "A", "a", "café", "東京", "😀", "##ing", "[CLS]", "a\u00a0b", "x" * MAX_TERM_UNITS]
# ids whose order as UTF-8 bytes differs from their order as numbers or by case
TIE_IDS = ["d10", "d9", "D1", "é1", "z-1", "d1", "e", "É", "d100", "0", "10", "9", "ä", "Z"]


def make_collection(folder: Path) -> list[dict]:
    """Documents in every layout JsonVectorCollection reads (one per line, pretty-printed over
    several lines, a JSON array, gzipped), with ties, zero weights, real-valued weights (a third
    of them: Anserini cuts them to their whole part, below 1 to nothing) and weights written 3.0."""
    rnd = random.Random(39)
    docs = []
    for i in range(160):
        terms = rnd.sample(VOCAB, rnd.randint(1, 6))
        weights = [rnd.randint(1, 40)] + [
            round(rnd.uniform(0, 12), 3) if rnd.random() < 1 / 3 else rnd.randint(0, 40) for _ in terms[1:]
        ]
        docs.append({"id": f"r{i}", "contents": f"text {i}", "vector": dict(zip(terms, weights))})
    for i, docid in enumerate(TIE_IDS):  # the same weights: every query ties them
        docs.append({"id": docid, "vector": {"tie": 2, "f1": 1 + i % 2}})
    docs.append({"id": 42, "vector": {"tie": 2, "f2": 3.0}})  # an integer id, a weight written 3.0
    docs.append({"id": "real", "vector": {"tie": 2.9999, "f1": 0.75, "f2": 1e-3, "f3": 7.5}})  # tie 2, f3 7
    docs.append({"id": "real2", "vector": {"f1": 1.5, "f2": 12.000001, "A": 0.0}})
    docs.append({"id": "big", "vector": {"f3": (1 << 23) + 1, "f2": 5}})  # products beyond float's whole numbers
    folder.mkdir()
    lines = [json.dumps(d, ensure_ascii=False) + "\n" for d in docs]
    (folder / "a.jsonl").write_text("".join(lines[:100]), encoding="utf-8")
    (folder / "b.json").write_text("".join(json.dumps(d, ensure_ascii=False, indent=2) + "\n" for d in docs[100:120]))
    (folder / "c.json").write_text(json.dumps(docs[120:150], ensure_ascii=False))
    with gzip.open(folder / "d.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.write("".join(lines[150:]))
    return docs


TEXT_QUERIES = [
    "f1",
    "f1 f1 f2",
    "tie",
    "tie f1",
    "café 東京 😀 😀",
    "absent",
    "absent f3",
    "a\u00a0b A a",
    "##ing ##ing ##ing [CLS]",
    "f2\u3000f3\tf1",  # an ideographic space and a tab split, as in Java
    "x" * MAX_TERM_UNITS + " f1",
    "x" * (MAX_TERM_UNITS + 3),  # cut by the WhitespaceAnalyzer as on the documents' side
    "f3 f2 tie",
]
WEIGHT_QUERIES = [
    {"f1": 3, "f2": 1},
    {"tie": 1},
    {"tie": 5, "f1": 2},
    {"f1": 0, "f2": 1},  # a clause of boost 0: the documents holding f1 and not f2 match with score 0
    {"absent": 7},
    {"absent": 7, "f3": 1},
    {"f1": 2.7, "tie": 0.5, "f2": 1.0, "f3": 1e-9},  # f1: 2, f2: 1, tie and f3 clauses of boost 0
    {"café": 2, "東京": 1, "😀": 3, "a\u00a0b": 4},
    {"f1": 1, "f2": 2, "f3": 3, "A": 4, "a": 5, "##ing": 6, "[CLS]": 7, "tie": 8},
]
DEPTHS = [1, 3, 10, 25, 1000]
# Float scores far beyond 2**24, with a query weight near the largest the harness takes (2**24).
# Anserini's search(Map, k) spends time in proportion to the weights (3.5 s a search here, against
# 1 ms for each query above), so this one is searched at two depths, not five: every hit (1000)
# and a cut (10) between two distinct scores; the ties cut by a depth are the queries above.
HEAVY_WEIGHT_QUERY = {"f3": (1 << 24) - 3, "f2": 5}
HEAVY_DEPTHS = [10, 1000]


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """(the harness's index, its searcher, Anserini's own SimpleImpactSearcher on Anserini's own index, the
    documents) of the fixture."""
    base = tmp_path_factory.mktemp("impact")
    docs = make_collection(base / "docs")
    info = ensure_index(Corpus(base / "docs", "impact"), IndexOptions(impact=True), base / "ours", threads=2)
    theirs = lucene.jclass("io.anserini.search.SimpleImpactSearcher")(str(anserini_index(base / "docs", base / "a")))
    ours = Searcher(info.path, info.options)
    yield info, ours, theirs, docs
    ours.close()
    theirs.close()


# ---------------------------------------------------------------------------------- runs
@pytest.mark.java
def test_the_index_is_anserinis(both):
    info, ours, theirs, docs = both
    n = len(docs)
    assert n == 178 and info.manifest["counters"] == {
        "indexed": n,
        "empty": 0,
        "unindexable": 0,
        "skipped": 0,
        "errors": 0,
    }
    assert info.manifest["anserini_args"] == {
        "generatorClass": "DefaultLuceneDocumentGenerator",
        "impact": True,
        "pretokenized": True,
        "storePositions": False,
        "storeDocvectors": False,
        "storeRaw": True,
    }
    assert info.manifest["options"] == {"lengths": "lucene", "impact": True}
    assert int(theirs.get_total_num_docs()) == info.manifest["stats"]["documents"] == n
    # every weight as Anserini reads it, cut to its whole part: the total of the index's frequencies
    total = sum(int(w) for d in docs for w in d["vector"].values())
    assert info.manifest["stats"]["total_terms"] == total


@pytest.mark.java
@pytest.mark.parametrize("depth", DEPTHS)
def test_pretokenized_queries_equal_anserinis(both, depth):
    _, ours, theirs, _ = both
    got = harness_search(ours, TEXT_QUERIES, depth)
    want = [anserini_search(theirs, q, depth) for q in TEXT_QUERIES]
    assert got == want
    assert sum(map(len, got)) > len(TEXT_QUERIES) or depth == 1


@pytest.mark.java
@pytest.mark.parametrize("depth", DEPTHS)
def test_weight_queries_equal_anserinis(both, depth):
    _, ours, theirs, _ = both
    got = harness_search(ours, WEIGHT_QUERIES, depth)
    assert got == [anserini_search(theirs, q, depth) for q in WEIGHT_QUERIES]


@pytest.mark.java
@pytest.mark.parametrize("depth", HEAVY_DEPTHS)
def test_the_largest_query_weights_equal_anserinis(both, depth):
    _, ours, theirs, _ = both
    (got,) = harness_search(ours, [HEAVY_WEIGHT_QUERY], depth)
    assert got == anserini_search(theirs, HEAVY_WEIGHT_QUERY, depth)
    assert got[0][0] == "big" and got[0][1] > 2**46  # (2**23 + 1) * (2**24 - 3), rounded to a float


@pytest.mark.java
def test_what_the_fixture_exercises(both):
    """The cases above are there: a tie group cut by the depth, in UTF-8 byte order of the ids,
    with Anserini's 1e-6 steps; zero-weight clauses matching with score 0; a term never indexed;
    a repeated token weighing twice; real-valued weights cut to their whole part; texts and
    weights in one batch, each searched in its form."""
    _, ours, _, _ = both
    (tie,) = harness_search(ours, ["tie"], 10)
    assert [d for d, _ in tie] == sorted([*TIE_IDS, "42", "real"], key=str.encode)[:10]
    assert [s for _, s in tie] == [float(np.float32(2) - np.float32(1e-6) * np.float32(k)) for k in range(10)]
    batch = [{"f1": 0, "f2": 1}, {"f2": 1}, {"absent": 7}, "f1 f1", "f1", {"f3": 1}, "f3", {"f1": 2.9}]
    zero, f2, absent, twice, once, f3, f3_text, f1_real = harness_search(ours, batch, 1000)
    assert len(zero) > len(f2) > 10 and zero[: len(f2)] == f2 and max(s for _, s in zero[len(f2) :]) <= 0
    assert absent == []
    assert [d for d, _ in twice] == [d for d, _ in once] and twice[0][1] == 2 * once[0][1]
    # real: f3 7.5 (7); real2: f1 1.5 (1), searched with 2.9 (2)
    assert f3 == f3_text and round(dict(f3)["real"]) == 7 and f1_real == twice and round(dict(f1_real)["real2"]) == 2
    assert harness_search(ours, batch[:3], 1000) + harness_search(ours, batch[3:5], 1000) == [
        zero,
        f2,
        absent,
        twice,
        once,
    ]
    with pytest.raises(DataError, match="searches query texts; term weights are searched by impact runs"):
        ours.search_arrays([{"f1": 1}], Similarity.parse("bm25"), 10)
    with pytest.raises(DataError, match=r'queries: "query 2" is empty'):
        ours.search_arrays(["f1", {}], IMPACT, 10)


@pytest.mark.java
def test_impact_searches_report_their_progress(both, monkeypatch):
    """An impact search counts its queries done as a text search does (BatchSearcher.done(),
    polled by the progress display while Java searches): texts and term weights of one batch
    are two Java searches, counted on from one to the other."""
    _, ours, _, _ = both
    ours.search_arrays(["f1", "f2 f2", "f3"], IMPACT, 10)
    assert ours._java.done() == 3
    ours.search_arrays([{"f1": 1}, {"f2": 1}], IMPACT, 10)
    assert ours._java.done() == 2
    real = lucene.interruptible

    def polled_once_done(fn, *args, poll=None, **kw):  # a search too quick to be polled while it runs
        out = real(fn, *args, **kw)
        if poll is not None:
            poll()
        return out

    monkeypatch.setattr(lucene, "interruptible", polled_once_done)
    seen: list[int] = []
    ours._search_packed(["f1", {"f2": 1}, "f3", {"f1": 1}, {"f3": 2}], IMPACT, 10, 2, seen.append)
    assert seen == [2, 5]
    seen.clear()
    ours._search_packed([{"f2": 1}, {"f1": 1}], IMPACT, 10, 2, seen.append)
    assert seen == [2]


@pytest.mark.java
def test_impact_searches_are_timed_per_query(both):
    """Each impact query is timed in Java (harness.engine.latency): texts and term weights of one
    run are two batches, their times put back in the queries' order, their walls summed, each
    query's time inside them and the walls inside the call as Python times it."""
    _, ours, _, _ = both
    queries = ["f1", {"f2": 1}, "f3", {"f1": 1}, {"f3": 2}]
    t = time.perf_counter()
    (counts, _, _), times = ours.timed_arrays(queries, IMPACT, 10, 2)
    outer = time.perf_counter() - t
    assert len(times.nanos) == len(counts) == 5 and (times.nanos > 0).all()
    assert (times.batches, times.threads) == (2, 2)
    assert times.nanos.sum() <= times.wall * 2 and times.wall / 1e9 <= outer
    (_, _, _), alone = ours.timed_arrays(["f1", "f3"], IMPACT, 10, 2)
    assert alone.batches == 1 and len(alone.nanos) == 2


@pytest.mark.java
def test_anserinis_end_to_end_lines(tmp_path):
    """JsonVectorEndToEndTest: its collection, its pretokenized topics, the lines it asserts."""
    info = ensure_index(Corpus(DATA / "segment1.json", "impact"), IndexOptions(impact=True), tmp_path, threads=1)
    topics = read_topics(DATA / "json_vector_topics.tsv", "tsv")
    s = Searcher(info.path, info.options)
    try:
        hits = s.search([text for _, text in topics], IMPACT, 1000)
    finally:
        s.close()
    lines = [
        f"{qid} Q0 {d} {r} {score:.6f} Anserini"
        for (qid, _), (ids, scores) in zip(topics, hits)
        for r, (d, score) in enumerate(zip(ids, scores), 1)
    ]
    assert lines == ANSERINI_END_TO_END.splitlines()
    # its index counts: two documents, no other counter
    assert info.manifest["counters"]["indexed"] == 2 and info.manifest["stats"]["total_terms"] == 29


# ---------------------------------------------------------------------------------- what is refused
BAD_DOCS = [
    ('{"id": "a", "vector": {"f1": "3"}}', 1, r'the weight of "f1" is the string "3", not a number'),
    ('{"id": "a", "vector": {"f1": true}}', 1, "is the boolean true, not a number"),
    ('{"id": "a", "vector": {"f1": null}}', 1, "is null, not a number"),
    ('{"id": "a", "vector": {"f1": [1]}}', 1, "is an array, not a number"),
    ('{"id": "a", "vector": {"f1": -1}}', 1, "is -1: weights are >= 0"),
    ('{"id": "a", "vector": {"f2": 1, "f1": -0.5}}', 1, 'the weight of "f1" is the number -0.5: weights are >= 0'),
    ('{"id": "a", "vector": {"f1": 1e400}}', 1, "is the number Infinity, not a finite number"),
    ('{"id": "a", "vector": {}}', 1, r'"vector" is empty: Anserini would write no text for this document'),
    ('{"id": "a", "vector": {"f1": 0, "f2": 0.9}}', 1, r'"vector" has no weight >= 1 \(Anserini cuts'),
    ('{"id": "a", "vector": {"a b": 1}}', 1, r'the term "a b" contains whitespace \(U\+0020\)'),
    ('{"id": "a", "vector": {"a\\u3000b": 1}}', 1, r"contains whitespace \(U\+3000\)"),
    ('{"id": "a", "vector": {"": 1}}', 1, 'the term "" is empty'),
    ('{"id": "a", "vector": {"' + "y" * 256 + '": 1}}', 1, "is 256 UTF-16 units long"),
    ('{"id": "a", "vector": {"\\ud800": 1}}', 1, "not valid Unicode"),
    ('{"id": "a", "vector": {"f1": 16777216, "f2": 1}}', 1, "the weights add up to 16,777,217"),
    ('{"id": "a", "vector": [0.1, 0.2]}', 1, "must be a JSON object {term: weight} .*: format vectors"),
    ('{"id": "a", "contents": "x"}', 1, r'"vector" must be a JSON object \{term: weight\} \(it is missing\)'),
    ('{"vector": {"f1": 1}}', 1, r'"id" must be a string or an integer \(it is missing\)'),
    ('{"id": 1.5, "vector": {"f1": 1}}', 1, r'"id" must be a string or an integer \(it is the number 1.5\)'),
    ('{"id": "a b", "vector": {"f1": 1}}', 1, "document id 'a b' contains a space"),
    ('{"id": "a", "vector": {"f1": 1}}\n[1]', 2, r'expected a JSON object with "id" and "vector"'),
    ('{"id": "a", "vector": {"f1": 1}}\n\n{"id": "b", "vector": {"f1": 1}', 3, "invalid JSON at the end of the file"),
]


@pytest.mark.parametrize(("text", "line", "message"), BAD_DOCS)
def test_bad_documents_are_refused_with_file_and_line(tmp_path, text, line, message):
    f = tmp_path / "docs.jsonl"
    f.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"docs\.jsonl:{line}: .*{message}"):
        check_contents(Corpus(f, "impact"))


def test_what_the_documents_may_hold(tmp_path):
    """3.0 is 3 and 2.7 is 2 (as Jackson's asInt reads them), a weight of 0 beside others is kept
    (Anserini writes no such term), a no-break space is no whitespace in Java, a term of 255 UTF-16
    units is one token, and every file of a folder is read, a README too."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a").write_text(
        '{"id": "a", "vector": {"f1": 3.0, "f2": 0, "a\\u00a0b": 1, "' + "y" * 255 + '": 1}, "contents": 7}\n'
        '{"id": 2, "vector": {"f1": 2.7, "f2": 0.3}}\n'
    )
    assert check_contents(Corpus(folder, "impact")) == 2
    (folder / "README.md").write_text("# my weights\n")
    with pytest.raises(DataError, match=r"README\.md:1: invalid JSON"):
        check_contents(Corpus(folder, "impact"))
    assert check_weights("q", {"f1": 3.0, "f2": 16777216}, None, document=False) == {"f1": 3, "f2": 16777216}
    assert check_weights("q", {"f1": 2.7, "f2": 0.3, "f3": 16777216.9}, None, document=False) == {
        "f1": 2,
        "f2": 0,
        "f3": 16777216,
    }
    with pytest.raises(DataError, match=r"is 16,777,217, beyond 16,777,216"):
        check_weights("q", {"f1": 16777217}, None, document=False)


def test_a_byte_order_mark_is_refused(tmp_path):
    f = tmp_path / "docs.jsonl"
    f.write_bytes(b'\xef\xbb\xbf{"id": "a", "vector": {"f1": 1}}\n')
    with pytest.raises(DataError, match=r"docs\.jsonl:1: starts with a UTF-8 byte-order mark, .*JsonVectorCollection"):
        check_contents(Corpus(f, "impact"))


BAD_TOPICS = [
    ('{"id": "1", "vector": {"f1": 1}}\n{"id": "1", "vector": {"f1": 2}}', 2, "topic '1' occurs twice"),
    ('{"id": "1", "qid": "2", "vector": {"f1": 1}}', 1, "\"id\" '1' and \"qid\" '2' differ"),
    ('{"vector": {"f1": 1}}', 1, r'"id" \(or "qid"\) must be a string or an integer \(it is missing\)'),
    ('{"id": "1", "vector": {"f1": -2}}', 1, "is -2: weights are >= 0"),
    ('{"id": "1", "vector": {"f1": 0.5}}', 1, r'"vector" has no weight >= 1 .*: the query would match nothing'),
    ('{"id": "1", "vector": {}}', 1, r'"vector" is empty: the query would match nothing'),
    ('{"id": "1", "vector": {"f1": "2"}}', 1, r'the weight of "f1" is the string "2", not a number'),
    ('{"id": "1", "vector": {"a\\tb": 1}}', 1, r"contains whitespace \(U\+0009\)"),
    ('{"id": "1", "vector": "f1 f1"}', 1, r'"vector" must be a JSON object \{term: weight\} \(it is the string'),
    ('["1", {"f1": 1}]', 1, "expected a JSON object"),
    ("", None, "no topics in the file"),
]


@pytest.mark.parametrize(("text", "line", "message"), BAD_TOPICS)
def test_bad_query_weights_are_refused_with_file_and_line(tmp_path, text, line, message):
    f = tmp_path / "q.jsonl"
    f.write_text(text + "\n")
    where = rf"q\.jsonl:{line}: " if line else r"q\.jsonl: "
    with pytest.raises(DataError, match=where + ".*" + message):
        read_topics(f, "impact")


def test_query_weights_topics(tmp_path):
    f = tmp_path / "q.jsonl"
    f.write_text(
        '{"id": "q1", "vector": {"f1": 3, "東京": 1.0, "x": 0}}\n\n{"qid": 7, "vector": {"y": 2.5}, "contents": "t"}\n'
    )
    assert read_topics(f, "impact") == [("q1", '{"f1":3,"東京":1,"x":0}'), ("7", '{"y":2}')]


# ---------------------------------------------------------------------------------- Java's own rules
@pytest.mark.java
def test_the_whitespace_rule_is_javas():
    """term_problem's whitespace is Java's Character.isWhitespace, what Lucene's WhitespaceTokenizer
    splits at, for every character of the BMP (none beyond it is whitespace in Java)."""
    Character = lucene.jclass("java.lang.Character")
    java = [c for c in range(0x10000) if Character.isWhitespace(c) and not 0xD800 <= c < 0xE000]
    ours = [
        c for c in range(0x10000) if not 0xD800 <= c < 0xE000 and "whitespace" in (term_problem(f"a{chr(c)}b") or "")
    ]
    assert ours == java and 0xA0 not in java  # a no-break space is part of a term


@pytest.mark.java
@pytest.mark.parametrize(
    "term", ["y" * 254, "y" * 255, "y" * 256, "y" * 253 + "😀", "y" * 254 + "😀", "y" * 255 + "😀", "😀" * 128]
)
def test_the_length_rule_is_lucenes(term):
    """A term is kept whole exactly when Lucene's WhitespaceAnalyzer makes one token of it."""
    analyzer = lucene.jclass("org.apache.lucene.analysis.core.WhitespaceAnalyzer")()
    tokens = [str(t) for t in lucene.jclass("io.anserini.analysis.AnalyzerUtils").analyze(analyzer, term)]
    assert (term_problem(term) is None) == (tokens == [term])


@pytest.mark.java
def test_what_is_refused_anserini_would_change(tmp_path):
    """The refusals are not pedantry: on these documents Anserini's own index holds f1 with the
    frequencies 3 (for "3"), 1 (for true) and none (for -1), and "a b" as two terms. 2.7 is 2
    there, which the harness reads alike (it is no refusal)."""
    (tmp_path / "docs").mkdir()
    docs = {"w27": {"f1": 2.7}, "s3": {"f1": "3"}, "t": {"f1": True}, "neg": {"f1": -1, "g": 1}, "ab": {"a b": 1}}
    (tmp_path / "docs" / "d.jsonl").write_text(
        "".join(json.dumps({"id": k, "vector": v}) + "\n" for k, v in docs.items())
    )
    searcher = lucene.jclass("io.anserini.search.SimpleImpactSearcher")(
        str(anserini_index(tmp_path / "docs", tmp_path / "a"))
    )
    try:
        assert anserini_search(searcher, "f1", 10) == [("s3", 3.0), ("w27", 2.0), ("t", 1.0)]
        assert anserini_search(searcher, "a", 10) == anserini_search(searcher, "b", 10) == [("ab", 1.0)]
    finally:
        searcher.close()
    assert check_weights("d.jsonl", docs.pop("w27"), 1, document=True) == {"f1": 2}
    for v in docs.values():
        with pytest.raises(DataError):
            check_weights("d.jsonl", v, 1, document=True)
