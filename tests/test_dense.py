"""Dense retrieval over the user's vectors (harness.engine.dense), against two oracles:

- Anserini's own: SearchFlatDenseVectorsTest.testBasicAda2 and SearchHnswDenseVectorsTest.testBasicAda2
  (Anserini 2.3.0's tests, run on its openai_ada2 sample of 100 documents and 2 queries, copied to
  tests/data/anserini-dense) assert these run lines, to Anserini's six decimals.
- numpy: Lucene's DOT_PRODUCT score max((1 + q.d) / 2, 0), computed in float32 with the
  summation order of Lucene's scalar dot product (DefaultVectorUtilSupport: four fused
  multiply-add accumulators over blocks of four, then the tail), ranked by score, ties by doc id.
"""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path

import numpy as np
import pytest

from harness.engine import lucene
from harness.engine.contents import check_contents
from harness.engine.corpus import Corpus
from harness.engine.index import IndexOptions, ensure_index
from harness.engine.searchers import open_searcher
from harness.engine.topics import read_topics
from harness.errors import DataError
from harness.specs.similarity import Similarity

REPO = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data" / "anserini-dense"
DOCS = DATA / "sample100.jsonl.gz"
TOPICS = DATA / "topics.msmarco-passage-dev-openai-ada2.jsonl"

# SearchFlatDenseVectorsTest.testBasicAda2 = SearchHnswDenseVectorsTest.testBasicAda2 (-efSearch 1000, -hits 5)
ANSERINI_ADA2 = """\
160885 Q0 45 1 0.863064 Anserini
160885 Q0 44 2 0.861596 Anserini
160885 Q0 40 3 0.858651 Anserini
160885 Q0 48 4 0.858514 Anserini
160885 Q0 41 5 0.856265 Anserini
867490 Q0 10 1 0.850331 Anserini
867490 Q0 45 2 0.846281 Anserini
867490 Q0 44 3 0.845236 Anserini
867490 Q0 95 4 0.845013 Anserini
867490 Q0 97 5 0.844905 Anserini"""


def lucene_dot(docs: np.ndarray, q: np.ndarray) -> np.ndarray:
    """float32 dot products of each row of ``docs`` with ``q``, in the order of Lucene's scalar
    DefaultVectorUtilSupport.dotProduct (four accumulators, then the rest). Each step is
    Math.fma where Lucene's Constants.HAS_FAST_SCALAR_FMA holds (the product of two float32 is
    exact in float64, then rounded once to float32), else a float32 product rounded, then the
    sum rounded: Lucene decides from the JVM's UseFMA and the CPU's maker (on this project's
    machines: fma on an Intel Xeon, not on an AMD EPYC), so the oracle asks Lucene, as
    Anserini's scores on the same machine follow the same flag."""
    fma = bool(lucene.jclass("org.apache.lucene.util.Constants").HAS_FAST_SCALAR_FMA)
    d64, q64 = docs.astype(np.float64), q.astype(np.float64)

    def step(i, acc):
        if fma:
            return (d64[..., i] * q64[i] + acc).astype(np.float32)
        return (docs[..., i] * q[i]).astype(np.float32) + acc  # float32 product, float32 sum

    acc = np.zeros((docs.shape[0], 4), dtype=np.float32)
    n = docs.shape[1] & ~3
    for i in range(0, n, 4):
        acc = step(slice(i, i + 4), acc)
    res = ((acc[:, 0] + acc[:, 1]) + acc[:, 2]) + acc[:, 3]
    for i in range(n, docs.shape[1]):
        res = step(i, res)
    return res


def numpy_ranking(q: list[float], depth: int):
    docs = [json.loads(line) for line in gzip.open(DOCS, "rt")]
    ids = [d["docid"] for d in docs]
    matrix = np.array([d["vector"] for d in docs], dtype=np.float32)
    dot = lucene_dot(matrix, np.array(q, dtype=np.float32))
    scores = np.maximum((np.float32(1) + dot) / np.float32(2), np.float32(0))
    order = sorted(range(len(ids)), key=lambda i: (-scores[i], ids[i]))[:depth]
    exact = (1 + matrix.astype(np.float64) @ np.array(q)) / 2  # the float64 score, for a tolerance check
    return [ids[i] for i in order], scores[order], exact[order]


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    base = tmp_path_factory.mktemp("dense")
    corpus = Corpus(DOCS, "vectors")
    flat = ensure_index(corpus, IndexOptions(vectors="flat"), base / "flat", threads=1)
    hnsw = ensure_index(corpus, IndexOptions(vectors="hnsw", M=16, efC=100), base / "hnsw", threads=1)
    return flat, hnsw


def run_lines(info, sim: str, depth: int) -> list[str]:
    topics = read_topics(TOPICS, "vectors")
    s = open_searcher(info.path, info.options)
    try:
        hits = s.search_hits(topics, Similarity.parse(sim), depth)
    finally:
        s.close()
    return [
        f"{qid} Q0 {d} {r} {score:.6f} Anserini"
        for (qid, _), (ids, scores) in zip(topics, hits)
        for r, (d, score) in enumerate(zip(ids, scores), 1)
    ]


@pytest.mark.java
def test_index_manifest(indexes):
    flat, hnsw = indexes
    assert flat.manifest["counters"]["indexed"] == hnsw.manifest["counters"]["indexed"] == 100
    assert flat.manifest["stats"]["documents"] == 100
    assert flat.manifest["anserini_args"]["indexer"] == "IndexFlatDenseVectors"
    assert hnsw.manifest["anserini_args"] == {
        "indexer": "IndexHnswDenseVectors",
        "generatorClass": "DenseVectorDocumentGenerator",
        "M": 16,
        "efC": 100,
    }
    assert flat.fingerprint != hnsw.fingerprint
    again = ensure_index(Corpus(DOCS, "vectors"), IndexOptions(vectors="flat"), flat.path, threads=1)
    assert again.reused


@pytest.mark.java
@pytest.mark.parametrize("which", [0, 1], ids=["flat", "hnsw"])
def test_anserini_expected_run_lines(indexes, which):
    assert run_lines(indexes[which], "knn(efSearch=1000)", 5) == ANSERINI_ADA2.splitlines()


@pytest.mark.java
def test_flat_equals_numpy_bit_for_bit(indexes):
    flat, hnsw = indexes
    topics = read_topics(TOPICS, "vectors")
    s = open_searcher(flat.path, flat.options)
    h = open_searcher(hnsw.path, hnsw.options)
    try:
        got = s.search_hits(topics, Similarity.parse("knn"), 1000)
        # HNSW asked for at least as many candidates as there are documents is exact: the same run
        assert h.search_hits(topics, Similarity.parse("knn(efSearch=100)"), 1000)[0][0] == got[0][0]
        assert [ids for ids, _ in h.search_hits(topics, Similarity.parse("knn(efSearch=100)"), 1000)] == [
            ids for ids, _ in got
        ]
        # and returns at most efSearch hits
        assert [len(ids) for ids, _ in h.search_hits(topics, Similarity.parse("knn(efSearch=7)"), 20)] == [7, 7]
    finally:
        s.close()
        h.close()
    for (_, text), (ids, scores) in zip(topics, got):
        want_ids, want_scores, exact = numpy_ranking(json.loads(text), 1000)
        assert ids == want_ids and len(ids) == 100
        assert scores.tobytes() == want_scores.tobytes()
        # and within float32 rounding of the exact (float64) dot product
        assert np.max(np.abs(scores - exact)) < 1e-6


@pytest.mark.java
def test_query_of_another_dimension(indexes, tmp_path):
    topics = tmp_path / "q.jsonl"
    topics.write_text('{"qid": 1, "vector": [0.5, 0.5, 0.5]}\n')
    s = open_searcher(indexes[0].path, indexes[0].options)
    try:
        with pytest.raises(DataError, match=r"q\.jsonl: topic '1' has a vector of 3 dimensions; .* of 1536"):
            s.search_run(read_topics(topics, "vectors"), Similarity.parse("knn"), 10, source=str(topics))
        with pytest.raises(DataError, match="needs a text index"):
            s.search_hits([("1", "[0.1]")], Similarity.parse("bm25"), 10)
    finally:
        s.close()


BAD_DOCS = [
    ('{"docid": "a", "vector": [1, 2]}\n{"docid": "b", "vector": [1, 2, 3]}\n', 2, "3 dimensions, the first one"),
    ('{"docid": "a", "vector": [1, NaN]}\n', 1, r"element 1 is nan: not a finite"),
    ('{"docid": "a", "vector": [1, Infinity]}\n', 1, r"element 1 is inf: not a finite"),
    ('{"docid": "a", "vector": [1, 1e39]}\n', 1, "not a finite float32"),
    ('{"docid": "a", "vector": [1, "2"]}\n', 1, r'element 1 is "2", not a number'),
    ('{"docid": "a", "vector": [1, true]}\n', 1, "element 1 is true, not a number"),
    ('{"docid": "a", "vector": []}\n', 1, "is empty"),
    ('{"docid": "a", "vector": "1 2"}\n', 1, "must be a JSON array of numbers"),
    ('{"id": "a", "vector": [1]}\n', 1, '"docid" must be a string or an integer \\(it is missing\\)'),
    ('{"docid": "a", "vector": [1]}\nnot json\n', 2, "invalid JSON"),
]


@pytest.mark.parametrize(("text", "line", "message"), BAD_DOCS)
def test_bad_vectors_are_refused_with_file_and_line(tmp_path, text, line, message):
    f = tmp_path / "docs.jsonl"
    f.write_text(text)
    with pytest.raises(DataError, match=rf"docs\.jsonl:{line}: .*{message}"):
        check_contents(Corpus(f, "vectors"))


def test_a_bad_vector_checked_beside_the_build_leaves_no_index(tmp_path):
    """The check runs on its own thread while Anserini indexes (engine.contents.start_checks):
    its error is still the build's, and nothing is left of the build."""
    good = "".join(f'{{"docid": "d{i}", "vector": [{i}, 1, 2]}}\n' for i in range(200))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "v.jsonl").write_text(good + '{"docid": "x", "vector": [1, NaN, 2]}\n' + good)
    with pytest.raises(DataError, match=r"v\.jsonl:201: .*element 1 is nan: not a finite"):
        ensure_index(Corpus(tmp_path / "docs", "vectors"), IndexOptions(vectors="flat"), tmp_path / "idx", threads=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]


BAD_TOPICS = [
    ('{"qid": 1, "vector": [1, 2]}\n{"qid": 2, "vector": [1]}\n', 2, "1 dimensions, the first one"),
    ('{"qid": 1, "vector": [NaN]}\n', 1, "not a finite"),
    ('{"qid": 1, "vector": [1]}\n{"qid": 1, "vector": [2]}\n', 2, "occurs twice"),
    ('{"id": 1, "vector": [1]}\n', 1, '"qid" must be'),
]


@pytest.mark.parametrize(("text", "line", "message"), BAD_TOPICS)
def test_bad_query_vectors_are_refused_with_file_and_line(tmp_path, text, line, message):
    f = tmp_path / "topics.jsonl"
    f.write_text(text)
    with pytest.raises(DataError, match=rf"topics\.jsonl:{line}: .*{message}"):
        read_topics(f, "vectors")


def test_knn_is_a_spec_with_a_canonical_form():
    assert str(Similarity.parse("knn")) == "knn(efSearch=100)"
    assert Similarity.parse(str(Similarity.of("knn", {"efSearch": 1000}))) == Similarity.of("knn", {"efSearch": 1000})
    with pytest.raises(ValueError):
        Similarity.parse("knn(efSearch=0)")


def dense_config(tmp_path, index: str = "{vectors: hnsw, M: 16, efC: 100}", runs: str = "knn: {efSearch: 1000}", **kw):
    (tmp_path / "qrels.txt").write_text("160885 0 44 1\n867490 0 95 1\n")
    text = f"""name: dense
collection: {{path: {kw.get("docs", DOCS)}, format: {kw.get("fmt", "vectors")}}}
index: {index}
topics: {{path: {kw.get("topics_path", TOPICS)}, format: {kw.get("topics", "vectors")}}}
qrels: qrels.txt
runs:
  - {runs}
depth: 10
measures: [RR, nDCG@10]
output: {tmp_path / "out"}
"""
    (tmp_path / "c.yaml").write_text(text)
    return tmp_path / "c.yaml"


@pytest.mark.java
def test_a_config_runs_knn_end_to_end(tmp_path):
    import subprocess
    import sys

    cfg = dense_config(tmp_path)
    import os

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}  # this checkout's harness
    r = subprocess.run([sys.executable, "-m", "harness", "run", str(cfg)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    (run_file,) = (tmp_path / "out" / "runs").glob("*.trec")
    lines = run_file.read_text().splitlines()
    top5 = [ln.split() for ln in lines if int(ln.split()[3]) <= 5]
    assert [f"{q} Q0 {d} {k} {float(s):.6f} Anserini" for q, _, d, k, s, _ in top5] == ANSERINI_ADA2.splitlines()
    summary = (tmp_path / "out" / "summary.csv").read_text().splitlines()
    # by hand: the relevant documents rank 2nd (44) and 4th (95): RR = (1/2 + 1/4) / 2;
    # nDCG@10 = (1/log2(3) + 1/log2(5)) / 2
    run, rr, ndcg = summary[1].split(",")
    assert float(rr) == 0.375 and abs(float(ndcg) - (1 / np.log2(3) + 1 / np.log2(5)) / 2) < 1e-12


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"runs": "bm25: {}"}, "runs: a vectors collection is searched with knn runs only (not bm25(k1=0.9,b=0.4))"),
        ({"topics": "tsv"}, "topics.format: must be vectors for a vectors collection"),
        ({"index": "{vectors: flat, M: 8}"}, "index.M: is a setting of the HNSW graph"),
        ({"fmt": "jsonl", "index": "{vectors: flat}", "runs": "bm25: {}", "topics": "tsv"}, "index.vectors: indexes a"),
        ({"fmt": "jsonl", "index": "{}", "topics": "tsv"}, "runs: knn runs need a `vectors` collection"),
    ],
)
def test_config_checks_dense_keys_together(tmp_path, kw, message):
    from harness.config import load_config
    from harness.errors import ConfigError

    # files in the layouts the formats read: a format its files contradict is another error (test_layouts.py)
    if kw.get("topics") == "tsv":
        (tmp_path / "t.tsv").write_text("160885\twhat is a vector\n")
        kw = {**kw, "topics_path": tmp_path / "t.tsv"}
    if kw.get("fmt") == "jsonl":
        (tmp_path / "d.jsonl").write_text('{"id": "44", "contents": "vectors and text"}\n')
        kw = {**kw, "docs": tmp_path / "d.jsonl"}
    with pytest.raises(ConfigError) as e:
        load_config(dense_config(tmp_path, **kw))
    assert message in str(e.value)


def test_config_defaults_to_a_flat_index(tmp_path):
    from harness.config import load_config
    from harness.experiment.plan import plan

    cfg = load_config(dense_config(tmp_path, index="{}"))
    assert (cfg.vectors, str(cfg.runs[0])) == ("flat", "knn(efSearch=1000)")
    assert plan(cfg).options == IndexOptions(vectors="flat")


def anserini_index(tmp_path, indexer: str, *flags: str) -> Path:
    """Anserini's own indexer from its command line (IndexHnsw/FlatDenseVectors.main), one thread."""
    from harness.engine import lucene

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / DOCS.name).write_bytes(DOCS.read_bytes())
    args = ["-collection", "JsonDenseVectorCollection", "-input", str(tmp_path / "docs")]
    args += ["-index", str(tmp_path / "anserini"), "-generator", "DenseVectorDocumentGenerator", "-threads", "1"]
    with lucene.java_output_hidden():
        lucene.jclass(f"io.anserini.index.{indexer}").main([*args, *flags])
    return tmp_path / "anserini"


def vectors_format(path) -> str:
    """The Lucene vectors format an index's "vector" field was written with (as Lucene records it)."""
    from harness.engine import lucene

    J = lucene.jclass
    reader = J("org.apache.lucene.index.DirectoryReader").open(
        J("org.apache.lucene.store.FSDirectory").open(J("java.io.File")(str(path)).toPath())
    )
    try:
        info = reader.leaves().get(0).reader().getFieldInfos().fieldInfo("vector")
        return str(info.getAttribute("PerFieldKnnVectorsFormat.format"))
    finally:
        reader.close()


@pytest.mark.java
@pytest.mark.parametrize("which", ["hnsw", "flat"])
def test_int8_quantisation_equals_anserinis_quantize_sqv(indexes, tmp_path, which):
    graph = {"M": 16, "efC": 100} if which == "hnsw" else {}
    options = IndexOptions(vectors=which, quantize="int8", **graph)
    ours = ensure_index(Corpus(DOCS, "vectors"), options, tmp_path / "ours", threads=1)
    flags = ["-M", "16", "-efC", "100"] if which == "hnsw" else []
    theirs = anserini_index(tmp_path, options.indexer, *flags, "-quantize.sqv")
    plain = indexes[0 if which == "flat" else 1]
    assert ours.manifest["anserini_args"]["quantizeSQV"] is True
    assert ours.manifest["options"]["quantize"] == "int8"
    assert ours.fingerprint != plain.fingerprint  # part of the fingerprint
    assert "quantize" not in plain.manifest["options"] and "quantizeSQV" not in plain.manifest["anserini_args"]
    # Lucene's scalar-quantised format, as Anserini's -quantize.sqv writes it
    assert vectors_format(ours.path) == vectors_format(theirs) != vectors_format(plain.path)
    assert "Quantized" in vectors_format(ours.path)
    topics = read_topics(TOPICS, "vectors")
    runs = []
    for path in (ours.path, theirs):
        s = open_searcher(path, options)
        try:
            runs.append(s.search_hits(topics, Similarity.parse("knn(efSearch=1000)"), 100))
        finally:
            s.close()
    (a, b) = runs
    assert [ids for ids, _ in a] == [ids for ids, _ in b] and all(len(ids) == 100 for ids, _ in a)
    assert all(x.tobytes() == y.tobytes() for (_, x), (_, y) in zip(a, b))
    # HNSW scores the quantised vectors (close to, not equal to, the floats' scores); Anserini's
    # flat quantised format (Anserini20FlatScalarQuantizedVectorsFormat) gives the floats' run here
    exact = run_lines(plain, "knn(efSearch=1000)", 5)
    lines = [
        f"{qid} Q0 {d} {r} {score:.6f} Anserini"
        for (qid, _), (ids, scores) in zip(topics, a)
        for r, (d, score) in enumerate(zip(ids[:5], scores[:5]), 1)
    ]
    assert (lines == exact) == (which == "flat")
    assert max(abs(float(x.split()[4]) - float(y.split()[4])) for x, y in zip(lines, exact)) < 0.01


def test_quantize_needs_a_vectors_index(tmp_path):
    from harness.config import load_config
    from harness.errors import ConfigError

    cfg = load_config(dense_config(tmp_path, index="{vectors: hnsw, quantize: int8}"))
    assert cfg.quantize == "int8"
    with pytest.raises(ConfigError, match="index.quantize: quantises the vectors"):
        # a text collection in the layout its format reads (a vectors file declared jsonl is refused as such)
        load_config(
            dense_config(
                tmp_path,
                docs=REPO / "corpora",
                fmt="text-folder",
                topics_path=REPO / "topics" / "demo.tsv",
                index="{quantize: int8}",
                runs="bm25: {}",
                topics="tsv",
            )
        )
    with pytest.raises(ConfigError, match="index.quantize"):
        load_config(dense_config(tmp_path, index="{vectors: hnsw, quantize: int4}"))


@pytest.mark.java
@pytest.mark.parametrize("which", [0, 1], ids=["flat", "hnsw"])
def test_ad_hoc_search_of_query_vectors_equals_anserini(indexes, which):
    """harness.query on a vectors index: the query vectors as a dict, a list of vectors and one
    vector (a numpy array), searched with knn, give Anserini's testBasicAda2 lines; a text query,
    a vector of another dimension and a text model on a vectors index are DataErrors."""
    import harness

    topics = {qid: json.loads(text) for qid, text in read_topics(TOPICS, "vectors")}
    index = str(indexes[which].path)
    df = harness.query(index, topics, "knn", k=5, efSearch=1000)
    lines = [f"{r.qid} Q0 {r.docno} {r.rank} {r.score:.6f} Anserini" for r in df.itertuples()]
    assert lines == ANSERINI_ADA2.splitlines()
    as_list = harness.query(index, list(topics.values()), "knn", k=5, efSearch=1000)
    assert as_list["docno"].tolist() == df["docno"].tolist() and as_list["qid"].tolist() == ["1"] * 5 + ["2"] * 5
    one = harness.query(index, np.array(topics["867490"]), "knn", k=5, efSearch=1000)
    assert one["docno"].tolist() == ["10", "45", "44", "95", "97"]
    with pytest.raises(DataError, match="topic 'q9': a knn query is a vector of numbers"):
        harness.query(index, {"q9": "a text"}, "knn")
    with pytest.raises(DataError, match="topic 'q9' has a vector of 3 dimensions"):
        harness.query(index, {"q9": [0.1, 0.2, 0.3]}, "knn")
    with pytest.raises(DataError, match="needs a text index; .* is a vectors index"):
        harness.query(index, "a text", "bm25")
    # what a topics file may not hold, a vector given in Python may not either
    nan, huge = list(topics["867490"]), list(topics["867490"])
    nan[3], huge[0] = float("nan"), 1e20
    with pytest.raises(DataError, match=r"topic 'q9': \"vector\" element 3 is nan: not a finite float32 number"):
        harness.query(index, {"q9": nan}, "knn")
    with pytest.raises(DataError, match=r"topic '1': this vector's squared length is 1e\+40, beyond float32's"):
        harness.query(index, np.array(huge), "knn")


@pytest.mark.java
def test_knn_on_a_text_index_is_a_data_error(tmp_path):
    import harness

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("vector space model\n")
    with pytest.raises(DataError, match="knn\\(efSearch=100\\) needs a vectors index; .* is a text index"):
        harness.query(str(tmp_path / "docs"), [0.1, 0.2], "knn")


@pytest.mark.java
def test_knn_run_files_are_written_through_java_as_write_run_writes_them(indexes, tmp_path):
    """A knn run's cache file comes from RunText (Java), as a text run's does: the bytes of
    write_run's own path for the same Run, on both index kinds."""
    from harness.formats.runs import write_run

    topics = read_topics(TOPICS, "vectors")
    for info in indexes:
        s = open_searcher(info.path, info.options)
        try:
            run = s.search_run(topics, Similarity.parse("knn(efSearch=100)"), 100)
        finally:
            s.close()
        calls = []
        java = run.text_writer
        run.text_writer = lambda path, tag, w=java, c=calls: c.append(w(path, tag)) or c[-1]
        write_run(tmp_path / "java.trec", run, "knn")
        run.text_writer = None
        write_run(tmp_path / "python.trec", run, "knn")
        assert calls == [True]
        assert (tmp_path / "java.trec").read_bytes() == (tmp_path / "python.trec").read_bytes()


@pytest.mark.java
def test_knn_queries_are_timed_as_text_queries_are(indexes):
    """Each knn query is timed in Java (harness.engine.latency: its vector read, its query made
    and searched): one positive time per topic, their sum at most the batch's wall time on each
    thread, and the wall inside the Java call as Python times it."""
    topics = read_topics(TOPICS, "vectors")
    for info in indexes:
        s = open_searcher(info.path, info.options)
        try:
            t = time.perf_counter()
            run, times = s.timed_run(topics, Similarity.parse("knn(efSearch=100)"), 100, threads=2)
            outer = time.perf_counter() - t
        finally:
            s.close()
        assert len(times.nanos) == len(topics) > 1 and (times.nanos > 0).all() and times.threads == 2
        assert times.nanos.sum() <= times.wall * 2 and times.wall / 1e9 <= outer and times.batches == 1
