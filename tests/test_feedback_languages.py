"""Query expansion on text outside ASCII: which feedback terms Anserini 2.3.0 keeps.

- RM3 keeps only terms matching ``[a-z0-9]+`` (Rm3Reranker's filterTerms, on by default), which
  drops every Arabic or Russian term and every Spanish one with an accent; ``-rm3.noTermFilter``
  (``SimpleSearcher.set_rm3(..., filterTerms=false)``) keeps them. The harness: ``rm3(filter_terms=false)``.
- Rocchio keeps every term of 2 to 20 characters whatever its script (RocchioReranker has no such
  filter), and BM25PRF always keeps ASCII terms only (no flag): the harness does the same.

Oracle: Anserini's SimpleSearcher with set_language, set_bm25 and set_rm3 / set_rocchio, on the
index the harness built from the XQuAD fixtures (tests/data/README.md), query by query. Each
sentence of the eight paragraphs is a document: RM3 and Rocchio drop a feedback term found in
more than a tenth of the documents, so over the eight paragraphs alone every term is dropped and
the filter could not show.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from harness.engine import lucene
from harness.engine.corpus import Corpus
from harness.engine.index import IndexOptions, ensure_index
from harness.engine.search import Searcher
from harness.specs.similarity import Similarity
from tests.test_languages import fixture

pytestmark = pytest.mark.java

CODES = ("ar", "es", "ru")


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    out = {}
    for code in CODES:
        base = tmp_path_factory.mktemp(code)
        corpus_file, topics = fixture(code)
        (base / "corpus").mkdir()
        docs = [json.loads(line) for line in corpus_file.read_text("utf-8").splitlines()]
        sentences = [
            {"id": f"{d['id']}-{i}", "contents": text}
            for d in docs
            for i, text in enumerate(re.split(r"(?<=[.!?\u061f])\s+", d["contents"]))
            if text.strip()
        ]
        assert len(sentences) > 30
        (base / "corpus" / "docs.jsonl").write_text("".join(json.dumps(x) + "\n" for x in sentences), "utf-8")
        info = ensure_index(Corpus(base / "corpus", "jsonl"), IndexOptions(language=code), base / "idx", threads=1)
        out[code] = (info, topics)
    return out


def anserini(index_path, code: str, topics, sim: Similarity, k: int):
    ss = lucene.jclass("io.anserini.search.SimpleSearcher")(str(index_path))
    ss.set_language(code)  # first: the reranker is made with the searcher's analyzer
    ss.set_bm25(sim.params["k1"], sim.params["b"])
    e = sim.expansion_params
    if sim.expansion == "rm3":
        ss.set_rm3(None, e["fb_terms"], e["fb_docs"], e["original_query_weight"], False, e.get("filter_terms", True))
    else:
        ss.set_rocchio(
            None,
            e["top_fb_terms"],
            e["top_fb_docs"],
            e["bottom_fb_terms"],
            e["bottom_fb_docs"],
            e["alpha"],
            e["beta"],
            e["gamma"],
            False,
            e["gamma"] > 0,
        )
    out = []
    for _, text in topics:
        hits = ss.search(text, k)
        out.append(([str(h.docid) for h in hits], np.array([h.score for h in hits], dtype=np.float32)))
    ss.close()
    return out


def ours(info, topics, sim: Similarity, k: int):
    s = Searcher(info.path, info.options)
    try:
        return s.search([t for _, t in topics], sim, k)
    finally:
        s.close()


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize(
    "spec",
    [
        "bm25+rm3",
        "bm25+rm3(filter_terms=false)",
        "bm25+rm3(fb_terms=20,fb_docs=3,original_query_weight=0.3,filter_terms=false)",
        "bm25+rocchio",
    ],
)
def test_feedback_equals_anserini(indexes, code, spec):
    info, topics = indexes[code]
    sim = Similarity.parse(spec)
    got = ours(info, topics, sim, 10)
    want = anserini(info.path, code, topics, sim, 10)
    assert sum(len(ids) for ids, _ in got) > 0
    for (ids, scores), (want_ids, want_scores) in zip(got, want):
        assert ids == want_ids
        assert scores.astype(np.float32).tobytes() == want_scores.tobytes()


@pytest.mark.parametrize("code", ["ar", "ru"])
def test_the_filter_drops_every_feedback_term_outside_ascii(indexes, code):
    """Filtered, RM3 over Arabic or Russian feeds back only numbers and Latin words (Super Bowl
    "50"), so it finds few documents the first search missed; unfiltered, it finds many more."""
    info, topics = indexes[code]
    plain = ours(info, topics, Similarity.parse("bm25"), 10)
    filtered = ours(info, topics, Similarity.parse("bm25+rm3"), 10)
    unfiltered = ours(info, topics, Similarity.parse("bm25+rm3(filter_terms=false)"), 10)
    hits = [sum(len(ids) for ids, _ in run) for run in (plain, filtered, unfiltered)]
    assert hits[0] <= hits[1] < hits[2], hits


def test_filter_terms_is_named_only_when_off():
    assert (
        str(Similarity.parse("bm25+rm3")) == "bm25(k1=0.9,b=0.4)+rm3(fb_terms=10,fb_docs=10,original_query_weight=0.5)"
    )
    off = Similarity.parse("bm25+rm3(filter_terms=false)")
    assert str(off).endswith("original_query_weight=0.5,filter_terms=false)")
    assert Similarity.parse(str(off)) == off
    assert Similarity.parse("bm25+rm3(filter_terms=true)") == Similarity.parse("bm25+rm3")
    assert off.settings["rm3.filter_terms"] is False
    assert Similarity.parse("bm25+rm3").settings["rm3.filter_terms"] is True
    with pytest.raises(ValueError, match="filter_terms must be true or false"):
        Similarity.parse("bm25+rm3(filter_terms=2)")
