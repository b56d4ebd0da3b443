"""The model vocabulary: every model and query expansion a run may name, once. Each entry holds its
parameters (:class:`~harness.specs.params.ParamSpec`, in canonical order), the formula it computes,
and what the Java side builds for it (:class:`JavaCall`: the factory of
``harness/engine/java/Similarities.java`` or the reranker method of ``BatchSearcher.java``, with
its arguments in order); beside them, Anserini's shortcuts (presets) and its and Pyserini's names
(aliases). The config's loader and JSON Schema, the reference of docs/config.md, the lab's
flags, ``harness.similarities()`` and the engine's search all read this table.

    >>> MODELS["dirichlet"].java
    JavaCall(method='dirichlet', args=('mu',), switch=None)
    >>> resolve_name("qld"), resolve_name("f2log")
    (('dirichlet', {}), ('axiomatic', {'function': 'f2log'}))

Lucene's conventions are kept as they are: for Jelinek-Mercer, ``lambda`` is the weight of the
*collection* model (Lucene's ``LMJelinekMercerSimilarity(lambda)``: score uses
``(1-lambda)*P(t|d) + lambda*P(t|C)``), so a larger lambda smooths more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from harness.specs.params import ParamSpec, Value, format_number

__all__ = [
    "IndexKind",
    "JavaCall",
    "Model",
    "Expansion",
    "MODELS",
    "EXPANSIONS",
    "PRESETS",
    "ALIASES",
    "MODEL_NAMES",
    "RERANK_CUTOFF",
    "resolve_name",
    "model_params",
    "model_hint",
]


@dataclass(frozen=True)
class JavaCall:
    """What the Java side builds: ``method`` (a static factory of ``harness.Similarities`` for a
    model, a method of ``harness.BatchSearcher`` returning Anserini's reranker for an expansion)
    called with ``args`` in order. An argument names a parameter, or several of which at most one
    applies (a normalisation's ``c``, ``mu`` or ``z``): its value, or where none applies the
    first one's default, which the Java side ignores then. ``switch``: (a flag parameter, the
    method built instead when it is true)."""

    method: str
    args: tuple[str | tuple[str, ...], ...] = ()
    switch: tuple[str, str] | None = None

    def method_for(self, values: dict[str, Value]) -> str:
        """The method built for a setting (``accurateBm25`` for bm25 with ``accurate=true``)."""
        return self.switch[1] if self.switch is not None and values.get(self.switch[0]) is True else self.method

    def arguments(self, specs: tuple[ParamSpec, ...], values: dict[str, Value]) -> list[Value]:
        """The arguments of a setting, in order; ``values``: the setting's parameters (those its
        canonical text leaves out, a hidden default, are their specs' defaults).

        >>> dfr = MODELS["dfr"]
        >>> dfr.java.arguments(dfr.params, {"basic_model": "in", "after_effect": "l", "normalization": "h3", "mu": 500.0})
        ['in', 'l', 'h3', 500.0]
        """
        by_name = {s.name: s for s in specs}
        out: list[Value] = []
        for arg in self.args:
            names = (arg,) if isinstance(arg, str) else arg
            given = next((values[n] for n in names if n in values), None)
            out.append(given if given is not None else by_name[names[0]].default_for(values))
        return out


# The index a model searches: "text" (analysed terms, Lucene's inverted index: every Lucene
# similarity), "vectors" (a vectors collection's HNSW or flat index: harness.engine.dense) or
# "impact" (the term weights of an impact collection, or any Anserini index: harness.engine.impact).
class IndexKind(Enum):
    """The index a model searches; its value is the word docs and messages use."""

    TEXT = "text"
    VECTORS = "vectors"
    IMPACT = "impact"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Model:
    """A model a run names: its parameters in canonical order, the formula's source (docs/
    semantics.md's table, the reference), what Java builds for it (None: a model the engine
    searches without a Lucene similarity, by its own searcher), the index it searches, why its
    runs take no query expansion (empty: they take one), and whether its queries are Lucene's
    IndriAndQuery (one clause per query token, a field of its own)."""

    name: str
    params: tuple[ParamSpec, ...]
    source: str
    java: JavaCall | None
    index: IndexKind = IndexKind.TEXT
    no_expansion: str = ""
    indri_query: bool = False


@dataclass(frozen=True)
class Expansion:
    """A query expansion: Anserini's reranker of the first search's hits. ``feedback``: the hits
    of the first search it reads (Anserini's rerankcutoff, or None: the run's depth, as
    SimpleSearcher's Rocchio)."""

    name: str
    params: tuple[ParamSpec, ...]
    source: str
    java: JavaCall
    feedback: int | None


# Rerankers feed back from Anserini's first-stage cut-off (SearchCollection.Args.rerankcutoff).
RERANK_CUTOFF = 50

_NORMS = ("h1", "h2", "h3", "z", "none")
_NORM_PARAM = ("c", "mu", "z")  # the normalisation's parameter, as Similarities.normalization takes it


def _normalisation(c_default_h2: float, where: str) -> tuple[ParamSpec, ...]:
    return (
        ParamSpec(
            "normalization",
            "h2",
            kind="choice",
            choices=_NORMS,
            doc=f"{where} length normalisation: Lucene NormalizationH1(c), H2(c), H3(mu), Z(z) or NoNormalization",
        ),
        ParamSpec(
            "c",
            c_default_h2,
            0.0,
            math.inf,
            low_open=True,
            high_open=True,
            when=("normalization", ("h1", "h2")),
            defaults=(("h1", 1.0), ("h2", c_default_h2)),
            doc=f"c of H1 (default 1, Lucene's) or H2 (default {format_number(c_default_h2)}, Anserini's)",
        ),
        ParamSpec(
            "mu",
            800.0,
            0.0,
            math.inf,
            low_open=True,
            high_open=True,
            when=("normalization", ("h3",)),
            doc="mu of NormalizationH3 (Dirichlet prior)",
        ),
        ParamSpec(
            "z",
            0.3,
            0.0,
            0.5,
            low_open=True,
            high_open=True,
            when=("normalization", ("z",)),
            doc="z of NormalizationZ (Pareto-Zipf)",
        ),
    )


_AXIOMATIC = ("f1exp", "f1log", "f2exp", "f2log", "f3exp", "f3log")

# Each model in canonical order. Defaults follow Anserini where it has a flag for the setting
# (BM25 k1=0.9, b=0.4; Dirichlet mu=1000; InL2 and SPL with H2 c=0.1; F2EXP/F2LOG s=0.5),
# Lucene's otherwise (JM lambda=0.1 as Lucene's documentation suggests).
_MODELS = (
    Model(
        "bm25",
        (
            ParamSpec(
                "k1", 0.9, 0.0, math.inf, high_open=True, doc="term-frequency saturation (Lucene BM25Similarity k1)"
            ),
            ParamSpec("b", 0.4, 0.0, 1.0, doc="length normalisation (Lucene BM25Similarity b)"),
            ParamSpec(
                "accurate",
                False,
                kind="bool",
                hidden_default=True,
                doc="true: Anserini's AccurateBM25Similarity (exact document lengths instead of Lucene's "
                "one-byte length norms; Anserini's -bm25.accurate). It needs an index that stores exact "
                "lengths (IndexCollection -bm25.accurate): a config with a collection builds one beside "
                "the ordinary index and searches these runs on it",
            ),
        ),
        "Lucene BM25Similarity(k1, b); with accurate=true Anserini's AccurateBM25Similarity(k1, b)",
        JavaCall("bm25", ("k1", "b"), switch=("accurate", "accurateBm25")),
    ),
    Model(
        "dirichlet",
        (
            ParamSpec(
                "mu",
                1000.0,
                0.0,
                math.inf,
                low_open=True,
                high_open=True,
                doc="Dirichlet prior (Lucene LMDirichletSimilarity mu)",
            ),
        ),
        "Lucene LMDirichletSimilarity(mu) (Anserini's -qld)",
        JavaCall("dirichlet", ("mu",)),
    ),
    Model(
        "indri",
        (
            ParamSpec(
                "mu",
                2000.0,
                0.0,
                math.inf,
                low_open=True,
                high_open=True,
                doc="Dirichlet prior (Lucene IndriDirichletSimilarity mu; Lucene's default 2000)",
            ),
        ),
        "Lucene IndriDirichletSimilarity(IndriCollectionModel, mu) under Lucene's IndriAndQuery, one clause per "
        "query token: the mean over the tokens of log((tf + mu * ctf/|C|) / (|d| + mu)), absent terms included "
        "(Indri's #combine)",
        JavaCall("indri", ("mu",)),
        # under a plain BooleanQuery Indri's log-probabilities (negative) would rank documents
        # matching fewer terms first
        no_expansion="Anserini's rerankers search a plain BooleanQuery, not Lucene's IndriAndQuery; expand "
        "dirichlet or bm25 instead",
        indri_query=True,
    ),
    Model(
        "jm",
        (
            ParamSpec(
                "lambda",
                0.1,
                0.0,
                1.0,
                low_open=True,
                doc="weight of the collection model (Lucene LMJelinekMercerSimilarity lambda)",
            ),
        ),
        "Lucene LMJelinekMercerSimilarity(lambda) (Anserini's -qljm)",
        JavaCall("jelinekMercer", ("lambda",)),
    ),
    Model(
        "tfidf",
        (),
        "Lucene ClassicSimilarity() (the vector space model: tf = sqrt(freq), idf = 1 + ln((N+1)/(df+1)), "
        "norm = 1/sqrt(length))",
        JavaCall("tfidf"),
    ),
    Model(
        "dfr",
        (
            ParamSpec(
                "basic_model",
                "in",
                kind="choice",
                choices=("g", "if", "in", "ine"),
                doc="Lucene BasicModelG, BasicModelIF, BasicModelIn, BasicModelIne",
            ),
            ParamSpec(
                "after_effect",
                "l",
                kind="choice",
                choices=("b", "l"),
                doc="Lucene AfterEffectB or AfterEffectL (Lucene 8 removed the 'no after-effect' option)",
            ),
            *_normalisation(0.1, "second"),
        ),
        "Lucene DFRSimilarity(BasicModel, AfterEffect, Normalization); the defaults are Anserini's -inl2",
        JavaCall("dfr", ("basic_model", "after_effect", "normalization", _NORM_PARAM)),
    ),
    Model(
        "ib",
        (
            ParamSpec(
                "distribution",
                "spl",
                kind="choice",
                choices=("ll", "spl"),
                doc="Lucene DistributionLL or DistributionSPL",
            ),
            ParamSpec("lambda", "df", kind="choice", choices=("df", "ttf"), doc="Lucene LambdaDF or LambdaTTF"),
            *_normalisation(0.1, "the"),
        ),
        "Lucene IBSimilarity(Distribution, Lambda, Normalization); the defaults are Anserini's -spl",
        JavaCall("ib", ("distribution", "lambda", "normalization", _NORM_PARAM)),
    ),
    Model(
        "dfi",
        (
            ParamSpec(
                "measure",
                "standardized",
                kind="choice",
                choices=("standardized", "saturated", "chisquared"),
                doc="independence measure: Lucene IndependenceStandardized, IndependenceSaturated, "
                "IndependenceChiSquared (Lucene has no default; the harness's is standardized)",
            ),
        ),
        "Lucene DFISimilarity(Independence)",
        JavaCall("dfi", ("measure",)),
    ),
    Model(
        "axiomatic",
        (
            ParamSpec(
                "function",
                "f2exp",
                kind="choice",
                choices=_AXIOMATIC,
                doc="Lucene AxiomaticF1EXP, F1LOG, F2EXP, F2LOG, F3EXP, F3LOG",
            ),
            ParamSpec(
                "s",
                0.5,
                0.0,
                1.0,
                defaults=(("f1exp", 0.25), ("f1log", 0.25), ("f3exp", 0.25), ("f3log", 0.25)),
                when=("function", _AXIOMATIC),
                doc="s: 0.5 for F2EXP/F2LOG (Anserini's -f2exp.s/-f2log.s), else Lucene's 0.25",
            ),
            ParamSpec(
                "k",
                0.35,
                0.0,
                1.0,
                when=("function", ("f1exp", "f2exp", "f3exp")),
                doc="k of the EXP functions (Lucene's default 0.35)",
            ),
            ParamSpec(
                "query_len",
                1,
                1,
                math.inf,
                high_open=True,
                kind="int",
                when=("function", ("f3exp", "f3log")),
                doc="queryLen of F3EXP/F3LOG (Lucene's constructor argument; 1 as Lucene's Axiomatic())",
            ),
        ),
        "Lucene AxiomaticF1EXP/F1LOG/F2EXP/F2LOG/F3EXP/F3LOG; the default is Anserini's -f2exp",
        JavaCall("axiomatic", ("function", "s", "k", "query_len")),
    ),
    # Not a Lucene similarity: nearest neighbours of a query vector in a dense index (engine.dense).
    Model(
        "knn",
        (ParamSpec("efSearch", 100, 1, 1 << 20, kind="int", doc="HNSW candidates (Anserini's -efSearch)"),),
        "Lucene KnnFloatVectorQuery(vector, q, efSearch) on a vectors index, as Anserini's SearchHnswDenseVectors",
        None,
        index=IndexKind.VECTORS,
        no_expansion="a vectors index holds no terms for the rerankers to read, and a knn search takes no query text",
    ),
    # Learned sparse retrieval over the user's term weights (an impact collection; engine.impact).
    Model(
        "impact",
        (),
        "Anserini's ImpactSimilarity on an impact index (SearchCollection -impact -pretokenized, "
        "SimpleImpactSearcher): the sum over the query's terms of the document's weight times the query's weight",
        None,
        index=IndexKind.IMPACT,
        no_expansion="the harness's impact index stores no document vectors for the rerankers to read",
    ),
)
MODELS: dict[str, Model] = {m.name: m for m in _MODELS}

_FILTER_DOC = (
    "true (Anserini's default): only feedback terms matching [a-z0-9]+, which drops every term of a "
    "language outside ASCII; false: every term (-rm3.noTermFilter)"
)
# Query expansions: Anserini's rerankers, with Anserini's parameter defaults (SearchCollection.Args);
# each reranker reads the feedback documents' terms and searches a BooleanQuery.
_EXPANSIONS = (
    Expansion(
        "rm3",
        (
            ParamSpec("fb_terms", 10, 1, math.inf, high_open=True, kind="int", doc="expansion terms (-rm3.fbTerms)"),
            ParamSpec(
                "fb_docs",
                10,
                1,
                50,
                kind="int",
                doc="feedback documents (-rm3.fbDocs), from the top 50 of the first search (Anserini's rerankcutoff)",
            ),
            ParamSpec(
                "original_query_weight", 0.5, 0.0, 1.0, doc="weight of the original query (-rm3.originalQueryWeight)"
            ),
            ParamSpec("filter_terms", True, kind="bool", hidden_default=True, doc=_FILTER_DOC),
        ),
        "Anserini Rm3Reranker over the top 50 of the first search, as SimpleSearcher.set_rm3",
        JavaCall("rm3", ("fb_terms", "fb_docs", "original_query_weight", "filter_terms")),
        RERANK_CUTOFF,
    ),
    Expansion(
        "rocchio",
        (
            ParamSpec("top_fb_terms", 10, 1, math.inf, high_open=True, kind="int", doc="terms from the top documents"),
            ParamSpec(
                "top_fb_docs", 10, 1, math.inf, high_open=True, kind="int", doc="top (relevant) feedback documents"
            ),
            ParamSpec(
                "bottom_fb_terms", 10, 1, math.inf, high_open=True, kind="int", doc="terms from the bottom documents"
            ),
            ParamSpec(
                "bottom_fb_docs",
                10,
                1,
                math.inf,
                high_open=True,
                kind="int",
                doc="bottom (non-relevant) feedback documents: the last ones of the first search, which "
                "returns `depth` hits as SimpleSearcher's does",
            ),
            ParamSpec("alpha", 1.0, 0.0, math.inf, high_open=True, doc="weight of the query vector"),
            ParamSpec("beta", 0.75, 0.0, math.inf, high_open=True, doc="weight of the top documents' mean vector"),
            ParamSpec(
                "gamma",
                0.0,
                0.0,
                math.inf,
                high_open=True,
                doc="weight of the bottom documents' mean vector; > 0 turns on Anserini's -rocchio.useNegative "
                "(0, the default, is Anserini's default: no negative feedback)",
            ),
        ),
        "Anserini RocchioReranker over the first search's top `depth`, as SimpleSearcher.set_rocchio",
        JavaCall(
            "rocchio",
            ("top_fb_terms", "top_fb_docs", "bottom_fb_terms", "bottom_fb_docs", "alpha", "beta", "gamma"),
        ),
        # SimpleSearcher's first search for Rocchio returns `depth` hits (for RM3, 50): the bottom
        # feedback documents are the last of those
        None,
    ),
    Expansion(
        "bm25prf",
        (
            ParamSpec(
                "fb_terms", 20, 1, math.inf, high_open=True, kind="int", doc="expansion terms (-bm25prf.fbTerms)"
            ),
            ParamSpec(
                "fb_docs",
                10,
                1,
                50,
                kind="int",
                doc="feedback documents (-bm25prf.fbDocs), from the top 50 of the first search",
            ),
            ParamSpec("k1", 0.9, 0.0, math.inf, high_open=True, doc="k1 of the second search's BM25PrfSimilarity"),
            ParamSpec("b", 0.4, 0.0, 1.0, doc="b of the second search's BM25PrfSimilarity"),
            ParamSpec("new_term_weight", 0.2, 0.0, math.inf, high_open=True, doc="weight of the expansion terms"),
        ),
        "Anserini BM25PrfReranker over the top 50, as SearchCollection -bm25prf (its second "
        "search always scores with BM25PrfSimilarity)",
        JavaCall("bm25prf", ("fb_terms", "fb_docs", "k1", "b", "new_term_weight")),
        RERANK_CUTOFF,
    ),
)
EXPANSIONS: dict[str, Expansion] = {e.name: e for e in _EXPANSIONS}

# Anserini's shortcuts: a name for a setting of a family (its fixed choices; the rest stay free).
PRESETS: dict[str, tuple[str, dict[str, Value]]] = {
    "inl2": ("dfr", {"basic_model": "in", "after_effect": "l", "normalization": "h2"}),
    "spl": ("ib", {"distribution": "spl", "lambda": "df", "normalization": "h2"}),
    "f2exp": ("axiomatic", {"function": "f2exp"}),
    "f2log": ("axiomatic", {"function": "f2log"}),
}

# Anserini's and Pyserini's names of a model where each names exactly one model here (SearchCollection's
# -qld and -qljm flags, pyserini's LuceneSearcher.set_qld): read as that model, whose canonical name
# alone names run files, run names and cache keys (`qld: {mu: 500}` is dirichlet(mu=500)). Their other
# model flags are the harness's names already: -bm25, -inl2, -spl, -f2exp, -f2log, -rm3, -rocchio, -bm25prf.
ALIASES: dict[str, str] = {"qld": "dirichlet", "qljm": "jm"}

# Every name a run may give its model: the models, Anserini's shortcuts, the aliases.
MODEL_NAMES: tuple[str, ...] = (*MODELS, *PRESETS, *ALIASES)

# Their names of what the harness does not have, which a "did you mean" would mislead on.
_NOT_HERE: dict[str, str] = {
    "axiom": "Anserini's -axiom is its axiomatic reranking (a query expansion), which the harness does not "
    "have; Lucene's axiomatic similarities are `axiomatic` (Anserini's -f2exp and -f2log: `f2exp`, `f2log`)",
    "sdm": "Anserini's -sdm is a query generator (sequential dependence model), not a similarity; the harness "
    "searches bags of words",
}


def resolve_name(name: str) -> tuple[str, dict[str, Value]]:
    """What a model name stands for: (its model, the choices it fixes). A preset is its family
    with its choices (``f2log`` -> axiomatic with function f2log), an alias its model (``qld`` ->
    dirichlet); any other name is itself, fixing nothing (an unknown one too: the caller says so)."""
    if name in PRESETS:
        family, fixed = PRESETS[name]
        return family, dict(fixed)
    return ALIASES.get(name, name), {}


def model_params(name: str) -> tuple[str, dict[str, Value], tuple[ParamSpec, ...], tuple[ParamSpec, ...]]:
    """What a model name of a run stands for (one of :data:`MODEL_NAMES`), as the config's loader
    and its JSON Schema both read it: (model, the choices a preset fixes, the parameters left to
    set, the model's parameters that a preset's choices leave out). A preset takes only what
    applies with its choices, as Anserini's flag does (``-f2log.s``; Lucene's AxiomaticF2LOG(s)
    has no k, and queryLen is F3's).

    >>> [s.name for s in model_params("f2log")[2]], [s.name for s in model_params("f2log")[3]]
    (['s'], ['k', 'query_len'])
    >>> model_params("qld")[0], [s.name for s in model_params("inl2")[2]]
    ('dirichlet', ['c'])
    """
    family, fixed = resolve_name(name)
    free = [s for s in MODELS[family].params if s.name not in fixed]
    # a parameter whose governing choice the preset fixes applies only when that choice allows it
    applies = [s for s in free if s.when is None or s.when[0] not in fixed or s.applies(fixed)]
    return family, fixed, tuple(applies), tuple(s for s in free if s not in applies)


def model_hint(word: str) -> str | None:
    """What to say of an unknown model name written as Anserini or Pyserini would write it: a flag
    with its dashes (``-qld``), or a name the harness has no model for (``axiom``); None otherwise.

    >>> model_hint("-qld")
    "; did you mean 'qld' (Anserini's -qld: dirichlet)?"
    """
    bare = word.lstrip("-")
    if bare in _NOT_HERE:
        return f": {_NOT_HERE[bare]}."
    if bare != word and bare in MODEL_NAMES:
        meaning = f": {ALIASES[bare]}" if bare in ALIASES else ""
        return f"; did you mean {bare!r} (Anserini's -{bare}{meaning})?"
    return None
