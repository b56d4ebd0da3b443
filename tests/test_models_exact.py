"""Every similarity family and every query expansion equals its reference on Cranfield (all 225
topics, depth 1000): same doc ids, same ranks, scores within 1e-4.

References (never our BatchSearcher):
- plain Lucene: an IndexSearcher over the index with the similarity built here from Lucene's
  (or Anserini's) classes, Anserini's BagOfWordsQueryGenerator and analyzer, Anserini's order
  (score, then id) and Anserini's ScoreTiesAdjusterReranker, what SimpleSearcher does;
- Anserini's SimpleSearcher with set_bm25/set_qld + set_rm3/set_rocchio;
- for BM25-PRF (and expansion over the other families), Anserini's rerankers in a
  RerankerCascade with ScoreTiesAdjusterReranker, fed and run the way SearchCollection does
  (first search of depth rerankcutoff=50 with its order, ScoredDocs.fromTopDocs, a
  RerankerContext with hits = 1000).
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.engine import lucene
from harness.engine.index import IndexOptions
from harness.engine.search import Searcher
from harness.specs.similarity import Similarity
from tests.test_search import assert_same_runs

DEPTH = 1000
SIM = "org.apache.lucene.search.similarities."


def _lucene_similarity(spec: str):
    """The Lucene object for a spec, spelled out class by class (independently of search.py)."""
    J = lucene.jclass
    table = {
        "tfidf()": lambda: J(SIM + "ClassicSimilarity")(),
        "bm25(k1=0.9,b=0.4,accurate=true)": lambda: J("io.anserini.search.similarity.AccurateBM25Similarity")(0.9, 0.4),
        "bm25(k1=1.2,b=0.75,accurate=true)": lambda: J("io.anserini.search.similarity.AccurateBM25Similarity")(
            1.2, 0.75
        ),
        "dfr(basic_model=in,after_effect=l,normalization=h2,c=0.1)": lambda: J(SIM + "DFRSimilarity")(
            J(SIM + "BasicModelIn")(), J(SIM + "AfterEffectL")(), J(SIM + "NormalizationH2")(0.1)
        ),
        "dfr(basic_model=g,after_effect=b,normalization=z,z=0.3)": lambda: J(SIM + "DFRSimilarity")(
            J(SIM + "BasicModelG")(), J(SIM + "AfterEffectB")(), J(SIM + "NormalizationZ")(0.3)
        ),
        "dfr(basic_model=if,after_effect=l,normalization=h1,c=1)": lambda: J(SIM + "DFRSimilarity")(
            J(SIM + "BasicModelIF")(), J(SIM + "AfterEffectL")(), J(SIM + "NormalizationH1")(1.0)
        ),
        "dfr(basic_model=ine,after_effect=b,normalization=h3,mu=800)": lambda: J(SIM + "DFRSimilarity")(
            J(SIM + "BasicModelIne")(), J(SIM + "AfterEffectB")(), J(SIM + "NormalizationH3")(800.0)
        ),
        "dfr(basic_model=in,after_effect=l,normalization=none)": lambda: J(SIM + "DFRSimilarity")(
            J(SIM + "BasicModelIn")(), J(SIM + "AfterEffectL")(), J(SIM + "Normalization$NoNormalization")()
        ),
        "ib(distribution=spl,lambda=df,normalization=h2,c=0.1)": lambda: J(SIM + "IBSimilarity")(
            J(SIM + "DistributionSPL")(), J(SIM + "LambdaDF")(), J(SIM + "NormalizationH2")(0.1)
        ),
        "ib(distribution=ll,lambda=ttf,normalization=h1,c=1)": lambda: J(SIM + "IBSimilarity")(
            J(SIM + "DistributionLL")(), J(SIM + "LambdaTTF")(), J(SIM + "NormalizationH1")(1.0)
        ),
        "dfi(measure=standardized)": lambda: J(SIM + "DFISimilarity")(J(SIM + "IndependenceStandardized")()),
        "dfi(measure=saturated)": lambda: J(SIM + "DFISimilarity")(J(SIM + "IndependenceSaturated")()),
        "dfi(measure=chisquared)": lambda: J(SIM + "DFISimilarity")(J(SIM + "IndependenceChiSquared")()),
        "axiomatic(function=f1exp,s=0.25,k=0.35)": lambda: J(SIM + "AxiomaticF1EXP")(0.25, 0.35),
        "axiomatic(function=f1log,s=0.25)": lambda: J(SIM + "AxiomaticF1LOG")(0.25),
        "axiomatic(function=f2exp,s=0.5,k=0.35)": lambda: J(SIM + "AxiomaticF2EXP")(0.5),  # Anserini's -f2exp
        "axiomatic(function=f2log,s=0.5)": lambda: J(SIM + "AxiomaticF2LOG")(0.5),  # Anserini's -f2log
        "axiomatic(function=f3exp,s=0.25,k=0.35,query_len=3)": lambda: J(SIM + "AxiomaticF3EXP")(0.25, 3),
        "axiomatic(function=f3log,s=0.25,query_len=3)": lambda: J(SIM + "AxiomaticF3LOG")(0.25, 3),
    }
    return table[spec]()


class _Lucene:
    """A plain Lucene IndexSearcher on the index, with Anserini's query generator and order."""

    def __init__(self, index_path):
        J = lucene.jclass
        self.reader = J("org.apache.lucene.index.DirectoryReader").open(
            J("org.apache.lucene.store.FSDirectory").open(J("java.io.File")(str(index_path)).toPath())
        )
        stored = self.reader.storedFields()
        self.ids = [stored.document(i).get("id") for i in range(self.reader.maxDoc())]
        SortField = J("org.apache.lucene.search.SortField")
        self.sort = J("org.apache.lucene.search.Sort")(
            SortField.FIELD_SCORE, SortField("id", J("org.apache.lucene.search.SortField$Type").STRING_VAL)
        )
        self.analyzer = J("io.anserini.analysis.DefaultEnglishAnalyzer").newDefaultInstance()
        self.generator = J("io.anserini.search.query.BagOfWordsQueryGenerator")()
        self.no_stored_fields = self._no_stored_fields()

    def _no_stored_fields(self):
        """An IndexSearcher over an in-memory index of as many documents as this one, with no
        stored field: for ScoredDocs.fromTopDocs, which reads each hit's stored document through
        a new StoredFields per hit, only to fill ScoredDocs.lucene_documents and docids, which
        neither the tie adjuster (it reads the scores and their count) nor this reference (it maps
        lucene_docids through self.ids) reads. The hits, scores and order are Lucene's TopDocs
        from this index. Reading Cranfield's stored texts was 3 of each family's 4 seconds; an
        index of the ids alone, 1.0 s a family (decompressing a block of ids per hit); with
        nothing stored, 0.6 s."""
        J = lucene.jclass
        directory = J("org.apache.lucene.store.ByteBuffersDirectory")()
        writer = J("org.apache.lucene.index.IndexWriter")(directory, J("org.apache.lucene.index.IndexWriterConfig")())
        Document = J("org.apache.lucene.document.Document")
        for _ in self.ids:
            writer.addDocument(Document())
        writer.forceMerge(1)
        writer.close()
        reader = J("org.apache.lucene.index.DirectoryReader").open(directory)
        assert reader.maxDoc() == len(self.ids)
        return J("org.apache.lucene.search.IndexSearcher")(reader, signature="(Lorg/apache/lucene/index/IndexReader;)V")

    def searcher(self, similarity):
        s = lucene.jclass("org.apache.lucene.search.IndexSearcher")(
            self.reader, signature="(Lorg/apache/lucene/index/IndexReader;)V"
        )
        s.setSimilarity(similarity)
        return s

    def query(self, text):
        return self.generator.buildQuery("contents", self.analyzer, text)

    def run(self, similarity, topics, k=DEPTH):
        """Top k in Anserini's order, scores through Anserini's ScoreTiesAdjusterReranker."""
        J = lucene.jclass
        s = self.searcher(similarity)
        ScoredDocs = J("io.anserini.search.ScoredDocs")
        adjust = J("io.anserini.rerank.lib.ScoreTiesAdjusterReranker")()
        out = []
        for _, text in topics:
            top = s.search(self.query(text), k, self.sort, True)
            docs = adjust.rerank(ScoredDocs.fromTopDocs(top, self.no_stored_fields), None)
            out.append(([self.ids[d] for d in docs.lucene_docids], np.array(list(docs.scores), dtype=np.float64)))
        return out

    def cascade_run(self, similarity, reranker, topics, first_depth=50, k=DEPTH):
        """Anserini's RerankerCascade (reranker, then ScoreTiesAdjusterReranker) fed as
        SearchCollection.searchTopics feeds it."""
        J = lucene.jclass
        s = self.searcher(similarity)
        cascade = J("io.anserini.rerank.RerankerCascade")()
        cascade.add(reranker)
        cascade.add(J("io.anserini.rerank.lib.ScoreTiesAdjusterReranker")())
        ScoredDocs = J("io.anserini.search.ScoredDocs")
        Context = J("io.anserini.rerank.RerankerContext")
        AnalyzerUtils = J("io.anserini.analysis.AnalyzerUtils")
        out = []
        for qid, text in topics:
            args = J("io.anserini.search.SearchCollection$Args")()
            args.hits = k
            query = self.query(text)
            first = s.search(query, first_depth, self.sort, True)
            tokens = AnalyzerUtils.analyze(self.analyzer, text)
            context = Context(s, qid, query, None, text, tokens, None, args)
            docs = cascade.run(ScoredDocs.fromTopDocs(first, s), context)
            out.append(([self.ids[d] for d in docs.lucene_docids], np.array(list(docs.scores), dtype=np.float64)))
        return out

    def close(self):
        self.no_stored_fields.getIndexReader().close()
        self.reader.close()


@pytest.fixture(scope="module")
def plain(cranfield_index):
    p = _Lucene(cranfield_index.path)
    yield p
    p.close()


@pytest.fixture(scope="module")
def ours(cranfield_index):
    return Searcher(cranfield_index.path, IndexOptions())


@pytest.fixture(scope="module")
def plain_feedback(anserini_cranfield_index):
    p = _Lucene(anserini_cranfield_index)
    yield p
    p.close()


@pytest.fixture(scope="module")
def ours_feedback(anserini_cranfield_index):
    return Searcher(anserini_cranfield_index, IndexOptions())


@pytest.fixture(scope="module")
def plain_exact(cranfield_exact_index):
    p = _Lucene(cranfield_exact_index.path)
    yield p
    p.close()


@pytest.fixture(scope="module")
def ours_exact(cranfield_exact_index):
    return Searcher(cranfield_exact_index.path, IndexOptions(lengths="exact"))


FAMILIES = [
    "tfidf()",
    "bm25(k1=0.9,b=0.4,accurate=true)",
    "bm25(k1=1.2,b=0.75,accurate=true)",
    "dfr(basic_model=in,after_effect=l,normalization=h2,c=0.1)",
    "dfr(basic_model=g,after_effect=b,normalization=z,z=0.3)",
    "dfr(basic_model=if,after_effect=l,normalization=h1,c=1)",
    "dfr(basic_model=ine,after_effect=b,normalization=h3,mu=800)",
    "dfr(basic_model=in,after_effect=l,normalization=none)",
    "ib(distribution=spl,lambda=df,normalization=h2,c=0.1)",
    "ib(distribution=ll,lambda=ttf,normalization=h1,c=1)",
    "dfi(measure=standardized)",
    "dfi(measure=saturated)",
    "dfi(measure=chisquared)",
    "axiomatic(function=f1exp,s=0.25,k=0.35)",
    "axiomatic(function=f1log,s=0.25)",
    "axiomatic(function=f2exp,s=0.5,k=0.35)",
    "axiomatic(function=f2log,s=0.5)",
    "axiomatic(function=f3exp,s=0.25,k=0.35,query_len=3)",
    "axiomatic(function=f3log,s=0.25,query_len=3)",
]


@pytest.mark.parametrize("spec", FAMILIES)
def test_family_equals_plain_lucene(request, cranfield_topics, spec):
    sim = Similarity.parse(spec)
    # bm25 accurate=true reads exact document lengths: searched on the index built with them
    # (the harness refuses it on an ordinary index, tests/test_accurate_bm25.py).
    exact = sim.lengths == "exact"
    ours = request.getfixturevalue("ours_exact" if exact else "ours")
    plain = request.getfixturevalue("plain_exact" if exact else "plain")
    assert str(sim) == spec  # canonical names are what the tests name
    got = ours.search([t for _, t in cranfield_topics], sim, DEPTH)
    expected = plain.run(_lucene_similarity(spec), cranfield_topics)
    assert sum(len(ids) for ids, _ in got) > 100_000
    assert_same_runs(got, expected)


def _simple_searcher(index_path, sim: Similarity):
    ss = lucene.jclass("io.anserini.search.SimpleSearcher")(str(index_path))
    p = sim.params
    if sim.model == "bm25":
        ss.set_bm25(p["k1"], p["b"])
    else:
        ss.set_qld(p["mu"])
    e = sim.expansion_params
    if sim.expansion == "rm3":
        ss.set_rm3(e["fb_terms"], e["fb_docs"], e["original_query_weight"])
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
    return ss


@pytest.mark.parametrize(
    "spec",
    [
        "bm25+rm3",
        "bm25(k1=1.2,b=0.75)+rm3(fb_terms=20,fb_docs=5,original_query_weight=0.3)",
        "dirichlet+rm3",
        "bm25+rocchio",
        "dirichlet(mu=500)+rocchio(top_fb_terms=20,top_fb_docs=5,alpha=1,beta=0.5)",
        "bm25+rocchio(bottom_fb_terms=5,bottom_fb_docs=20,gamma=0.15)",
    ],
)
def test_expansion_equals_simple_searcher(anserini_cranfield_index, ours_feedback, cranfield_topics, spec):
    ours = ours_feedback
    sim = Similarity.parse(spec)
    ss = _simple_searcher(anserini_cranfield_index, sim)
    expected = []
    for _, text in cranfield_topics:
        hits = ss.search(text, DEPTH)
        expected.append(([h.docid for h in hits], np.array([h.score for h in hits], dtype=np.float64)))
    ss.close()
    got = ours.search([t for _, t in cranfield_topics], sim, DEPTH)
    assert sum(len(ids) for ids, _ in got) > 200_000
    assert_same_runs(got, expected)
    # The expansion changed the run: it is not the first search again.
    plain_run = ours.search([t for _, t in cranfield_topics], sim.base, DEPTH)
    assert sum(a[0] != b[0] for a, b in zip(got, plain_run)) > 100


def _reranker(plain, sim: Similarity):
    J = lucene.jclass
    e = sim.expansion_params
    if sim.expansion == "bm25prf":
        return J("io.anserini.rerank.lib.BM25PrfReranker")(
            plain.analyzer, None, "contents", e["fb_terms"], e["fb_docs"], e["k1"], e["b"], e["new_term_weight"], False
        )
    if sim.expansion == "rm3":
        return J("io.anserini.rerank.lib.Rm3Reranker")(
            plain.analyzer, None, "contents", e["fb_terms"], e["fb_docs"], e["original_query_weight"], False, True
        )
    raise AssertionError(sim)


@pytest.mark.parametrize(
    "spec, base",
    [
        ("bm25+bm25prf", "bm25"),
        (
            "bm25(k1=1.2,b=0.75)+bm25prf(fb_terms=10,fb_docs=20,k1=1.2,b=0.75,new_term_weight=0.5)",
            "bm25(k1=1.2,b=0.75)",
        ),
        ("tfidf+bm25prf", "tfidf()"),
        ("tfidf+rm3", "tfidf()"),
        ("dfr+rm3(fb_terms=20)", "dfr(basic_model=in,after_effect=l,normalization=h2,c=0.1)"),
    ],
)
def test_expansion_equals_anserini_cascade(plain_feedback, ours_feedback, cranfield_topics, spec, base):
    plain, ours = plain_feedback, ours_feedback
    sim = Similarity.parse(spec)
    assert str(sim.base) == str(Similarity.parse(base))
    if sim.base.model == "bm25":
        first = lucene.jclass(SIM + "BM25Similarity")(sim.params["k1"], sim.params["b"])
    else:
        first = _lucene_similarity(str(sim.base))
    expected = plain.cascade_run(first, _reranker(plain, sim), cranfield_topics)
    got = ours.search([t for _, t in cranfield_topics], sim, DEPTH)
    assert sum(len(ids) for ids, _ in got) > 200_000
    assert_same_runs(got, expected)


# ----------------------------------------------------------------------------- indri
def _indri_data(index_path, topics):
    """What Indri's formula reads, taken from the index once for every mu: the doc ids, each
    document's term vector, each topic's analysed tokens."""
    J = lucene.jclass
    reader = J("org.apache.lucene.index.DirectoryReader").open(
        J("org.apache.lucene.store.FSDirectory").open(J("java.io.File")(str(index_path)).toPath())
    )
    try:
        utils = J("io.anserini.index.IndexReaderUtils")
        stored = reader.storedFields()
        ids = [stored.document(i).get("id") for i in range(reader.maxDoc())]
        vectors = []
        for d in ids:
            m = utils.getDocumentVector(reader, d)
            vectors.append({str(e.getKey()): int(e.getValue()) for e in m.entrySet().toArray()})
        analyzer = J("io.anserini.analysis.DefaultEnglishAnalyzer").newDefaultInstance()
        tokens = [list(J("io.anserini.analysis.AnalyzerUtils").analyze(analyzer, text).toArray()) for _, text in topics]
    finally:
        reader.close()
    return ids, vectors, tokens


def _indri_oracle(data, mu: float, k: int = DEPTH):
    """Indri's query likelihood computed here, in float64, from each document's term vector (not
    from Lucene's scorers; ``data`` from :func:`_indri_data`): for every document holding at least
    one query term, the mean over the query's tokens (a repeated term counts each time; terms
    absent from the index are left out) of log((tf + mu * ctf / |C|) / (|d| + mu)), ctf and |C|
    summed from the vectors. |d| is the document's token count as Lucene's one-byte norm stores it
    (SmallFloat), the one index-format fact taken from Lucene. Top k by score, then doc id, as
    Anserini orders."""
    ids, vectors, tokens = data
    small = lucene.jclass("org.apache.lucene.util.SmallFloat")
    ctf: dict[str, int] = {}
    for v in vectors:
        for t, tf in v.items():
            ctf[t] = ctf.get(t, 0) + tf
    total = sum(ctf.values())
    length = np.array([small.byte4ToInt(small.intToByte4(sum(v.values()))) for v in vectors], dtype=np.float64)
    order = np.argsort(np.array(ids, dtype=object), kind="stable")  # ties: ascending doc id
    rank_of = np.empty(len(ids), dtype=np.int64)
    rank_of[order] = np.arange(len(ids))
    out = []
    for toks in tokens:
        toks = [str(t) for t in toks if str(t) in ctf]
        if not toks:
            out.append(([], np.zeros(0)))
            continue
        tf = np.array([[v.get(t, 0) for v in vectors] for t in toks], dtype=np.float64)
        p = np.array([ctf[t] / total for t in toks])[:, None]
        score = np.log((tf + mu * p) / (length[None, :] + mu)).mean(axis=0)
        cand = np.flatnonzero(tf.sum(axis=0) > 0)
        cand = cand[np.lexsort((rank_of[cand], -score[cand]))][:k]
        out.append(([ids[i] for i in cand], _adjust_ties(score[cand])))
    return out


def _adjust_ties(scores: np.ndarray) -> np.ndarray:
    """Anserini's ScoreTiesAdjusterReranker on scores in rank order: round to 4 decimals, then
    lower each score within 1e-4 of its predecessor by 1e-6 per place in its run of near-ties."""
    out = np.round(scores, 4)
    dup = 0
    for i in range(1, len(out)):
        if out[i - 1] - out[i] > 1e-4:
            dup = 0
        else:
            dup += 1
            out[i] -= 1e-6 * dup
    return out


@pytest.fixture(scope="module")
def indri_data(cranfield_index, cranfield_topics):
    return _indri_data(cranfield_index.path, cranfield_topics)


@pytest.mark.parametrize("mu", [1000.0, 2000.0])
def test_indri_equals_its_formula(indri_data, cranfield_topics, ours, mu):
    """indri against Indri's formula computed from the term vectors (and put through Anserini's
    tie adjuster, as every run is), on all 225 topics at depth 1000: the same documents, each
    document's score within 2e-4 of the formula's, and the rank-by-rank scores too. Documents
    whose scores tie within that may swap places (Lucene sums float32 terms; the formula float64)."""
    sim = Similarity.parse(f"indri(mu={mu:g})")
    got = ours.search([t for _, t in cranfield_topics], sim, DEPTH)
    expected = _indri_oracle(indri_data, mu)
    assert sum(len(ids) for ids, _ in got) > 200_000
    for q, ((ids, scores), (ids2, scores2)) in enumerate(zip(got, expected)):
        assert len(ids) == len(ids2), f"topic {q}: {len(ids)} hits, the formula {len(ids2)}"
        oracle = dict(zip(ids2, scores2))
        assert set(ids) == set(ids2) or min(scores2) > max(s for d, s in oracle.items() if d not in ids) - 2e-4
        assert np.all(np.abs(scores2 - scores) <= 2e-4), f"topic {q}: scores differ from the formula"
        mine = np.array([oracle.get(d, np.nan) for d in ids])
        assert np.all(np.abs(mine - scores) <= 2e-4), f"topic {q}: not the formula's scores for the same documents"


def test_indri_takes_no_expansion():
    with pytest.raises(ValueError, match="indri cannot take an expansion"):
        Similarity.parse("indri+rm3")
    assert str(Similarity.parse("indri")) == "indri(mu=2000)"
