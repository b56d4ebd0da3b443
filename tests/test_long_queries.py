"""Limits Lucene would hit: a query of more than 1,024 distinct terms, and a depth of 2^31 - 1.
The oracle is Anserini's SimpleSearcher on what those requests mean: words absent from the
index add nothing to a score, and no search returns more than every document."""

from __future__ import annotations

import random
import string

from harness.engine.index import IndexOptions
from harness.engine.search import Searcher
from harness.specs.similarity import Similarity

from .test_search import assert_same_runs, simple_searcher_run


def _absent_words(n: int) -> list[str]:
    rng = random.Random(7)
    return ["zq" + "".join(rng.choice(string.ascii_lowercase) for _ in range(10)) for _ in range(n)]


def test_query_of_1500_terms_runs_and_equals_the_short_query(cranfield_index, cranfield_topics):
    topics = cranfield_topics[:5]
    noise = " ".join(_absent_words(1500))  # Lucene's default clause limit is 1,024
    searcher = Searcher(cranfield_index.path, IndexOptions())
    sim = Similarity.parse("bm25(k1=0.9,b=0.4)")
    ours = searcher.search([f"{text} {noise}" for _, text in topics], sim, 100)
    assert_same_runs(ours, simple_searcher_run(cranfield_index.path, topics, sim, 100))


def test_depth_at_java_int_max_returns_every_matching_document(cranfield_index, cranfield_topics):
    topics = cranfield_topics[:3]
    searcher = Searcher(cranfield_index.path, IndexOptions())
    sim = Similarity.parse("dirichlet(mu=1000)")
    ours = searcher.search([t for _, t in topics], sim, 2**31 - 1)
    theirs = simple_searcher_run(cranfield_index.path, topics, sim, 1400)  # Cranfield: 1,400 documents
    assert_same_runs(ours, theirs)
