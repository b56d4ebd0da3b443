"""bm25 accurate=true (issue 25.5b): Anserini's AccurateBM25Similarity reads exact document
lengths, which only an index built with IndexCollection -bm25.accurate stores; on an ordinary
index it would read Lucene's one-byte length codes as lengths (a meaningless model). One config
holding both gets both indexes, side by side, each run searched on the index it needs.

The oracle is computed here without the harness's search: BM25 with exact lengths in numpy,
float32 as AccurateBM25Similarity computes it, from the index's term vectors (each document's terms
and frequencies) and collection statistics, for the analysed query terms, rounded to 4 decimals
as Anserini's ScoreTiesAdjusterReranker does."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from harness.config import load_config
from harness.errors import DataError
from harness.experiment.execute import run_experiment

from .conftest import CRANFIELD

pytestmark = pytest.mark.java

K1, B = 0.9, 0.4
TOPICS = 25  # the first topics of Cranfield, checked against the oracle


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("accurate")
    cfg = tmp / "c.yaml"
    cfg.write_text(
        f"name: acc\ncollection: {{path: {CRANFIELD / 'corpus.jsonl'}, format: jsonl}}\n"
        f"index: {{path: {tmp / 'index'}}}\ntopics: {{path: {CRANFIELD / 'topics.tsv'}, format: tsv}}\n"
        f"qrels: {CRANFIELD / 'qrels.txt'}\nruns:\n  - bm25: {{}}\n  - bm25: {{accurate: true}}\n"
        f"measures: [AP]\noutput: {tmp / 'report'}\n"
    )
    config = load_config(cfg)
    return tmp, config, run_experiment(config)


def _oracle(index: Path, queries: list[tuple[str, list[str]]]) -> dict[str, dict[str, np.float32]]:
    from harness.engine import lucene

    J = lucene.jclass
    reader = J("org.apache.lucene.index.DirectoryReader").open(
        J("org.apache.lucene.store.FSDirectory").open(J("java.io.File")(str(index)).toPath())
    )
    try:
        vectors, stored = reader.termVectors(), reader.storedFields()
        lengths, tfs, ids = [], [], []
        for d in range(reader.maxDoc()):
            ids.append(stored.document(d).get("id"))
            tv = vectors.get(d, "contents")
            freqs: dict[str, int] = {}
            if tv is not None:
                it = tv.iterator()
                while (t := it.next()) is not None:
                    freqs[t.utf8ToString()] = int(it.totalTermFreq())
            tfs.append(freqs)
            lengths.append(sum(freqs.values()))
        doc_count = int(reader.getDocCount("contents"))
        avgdl = np.float32(reader.getSumTotalTermFreq("contents") / doc_count)
        Term = J("org.apache.lucene.index.Term")
        out = {}
        for qid, terms in queries:
            scores = {}
            for term, count in Counter(terms).items():
                df = int(reader.docFreq(Term("contents", term)))
                if df == 0:
                    continue
                idf = np.float32(np.log(1 + (doc_count - df + 0.5) / (df + 0.5)))
                weight = np.float32(count) * idf
                k1b = np.float32(K1) * np.float32(B) / avgdl
                k1mb = np.float32(K1) * (np.float32(1) - np.float32(B))
                for d, freqs in enumerate(tfs):
                    f = freqs.get(term)
                    if f:
                        f = np.float32(f)
                        s = weight * f / (f + k1mb + k1b * np.float32(lengths[d]))
                        scores[ids[d]] = scores.get(ids[d], 0.0) + float(s)  # Lucene sums in double
            # Anserini's ScoreTiesAdjusterReranker: scores to 4 decimals (ties then go by doc id)
            out[qid] = {doc: np.float32(round(float(np.float32(s)), 4)) for doc, s in scores.items()}
        return out
    finally:
        reader.close()


def test_one_config_builds_the_index_each_run_needs(both):
    tmp, config, result = both
    plain, accurate = result.runs
    assert plain.index is None and accurate.index == tmp / "index.exact-lengths"
    manifest = json.loads((tmp / "index.exact-lengths" / "harness-index.json").read_text())
    assert manifest["options"]["lengths"] == "exact" and manifest["anserini_args"]["bm25Accurate"] is True
    ordinary = json.loads((tmp / "index" / "harness-index.json").read_text())
    assert "bm25Accurate" not in ordinary["anserini_args"] and manifest["fingerprint"] != ordinary["fingerprint"]
    assert result.evaluations[plain.name].means["AP"] != result.evaluations[accurate.name].means["AP"]


def test_accurate_bm25_equals_bm25_with_exact_lengths(both):
    from harness.engine.search import Searcher

    tmp, config, result = both
    from harness.engine.topics import read_topics

    topics = read_topics(config.topics_path, config.topics_format)[:TOPICS]
    searcher = Searcher(tmp / "index.exact-lengths", _exact_options())
    queries = [(qid, searcher.analyze(text)) for qid, text in topics]
    searcher.close()
    oracle = _oracle(tmp / "index.exact-lengths", queries)
    run = result.runs[1].run
    checked = 0
    for qid, _ in topics:
        docs, scores = run.ranked(qid)
        want = oracle[qid]
        assert len(docs) == min(len(want), 1000)  # every document holding a query term, to depth 1000
        for doc, score in zip(docs[:50], scores[:50]):
            # equal, but for the few float32 steps a tie is lowered by (harness.engine.search), far
            # below the 1e-4 between two rounded scores
            assert abs(float(score) - float(want[doc])) <= 1e-5, (qid, doc)
            checked += 1
        # the order: by score, ties by doc id
        expected = sorted(want, key=lambda d: (-want[d], d))[:50]
        got = list(docs[:50])
        assert [want[d] for d in got] == [want[d] for d in expected], qid
    assert checked > 1000


def _exact_options():
    from harness.engine.index import IndexOptions

    return IndexOptions(lengths="exact")


def test_a_similarity_is_refused_on_an_index_of_the_other_lengths(both):
    from harness.engine.index import IndexOptions
    from harness.engine.search import Searcher
    from harness.specs.similarity import Similarity

    tmp, _, _ = both
    topics = [("1", "boundary layer")]
    ordinary = Searcher(tmp / "index", IndexOptions())
    with pytest.raises(DataError, match="reads exact document lengths, and this index stores Lucene length norms"):
        ordinary.search_run(topics, Similarity.parse("bm25(accurate=true)"), 10)
    ordinary.close()
    exact = Searcher(tmp / "index.exact-lengths", IndexOptions(lengths="exact"))
    for other in ("bm25", "dirichlet", "bm25+rm3"):
        with pytest.raises(DataError, match="reads Lucene length norms, and this index stores exact lengths"):
            exact.search_run(topics, Similarity.parse(other), 10)
    exact.close()


def test_an_existing_index_cannot_serve_accurate_bm25(tmp_path, both):
    tmp, _, _ = both
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        f"name: x\nindex: {{path: {tmp / 'index'}}}\ntopics: {{path: {CRANFIELD / 'topics.tsv'}, format: tsv}}\n"
        f"runs:\n  - bm25: {{accurate: true}}\noutput: {tmp_path / 'r'}\n"
    )
    with pytest.raises(DataError, match="exact document lengths, which the harness builds"):
        run_experiment(load_config(cfg))
