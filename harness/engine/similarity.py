"""Similarity specs: frozen values with one canonical text form that parses back to itself.

The text form names run files, report rows and cache keys::

    >>> s = Similarity.parse("bm25(k1=0.9,b=0.4)")
    >>> str(s), s.params["k1"]
    ('bm25(k1=0.9,b=0.4)', 0.9)
    >>> str(Similarity.of("dirichlet", {})), str(Similarity.of("jm", {"lambda": 0.7}))
    ('dirichlet(mu=1000)', 'jm(lambda=0.7)')
    >>> str(Similarity.of("dfr", {"basic_model": "g", "normalization": "h3"}))
    'dfr(basic_model=g,after_effect=l,normalization=h3,mu=800)'
    >>> str(Similarity.parse("bm25 + rm3(fb_terms=20)"))
    'bm25(k1=0.9,b=0.4)+rm3(fb_terms=20,fb_docs=10,original_query_weight=0.5)'
    >>> str(Similarity.parse("inl2(c=0.5)"))            # Anserini's preset, in its family's words
    'dfr(basic_model=in,after_effect=l,normalization=h2,c=0.5)'
    >>> str(Similarity.parse("qld(mu=500)"))            # Anserini's -qld, Pyserini's set_qld
    'dirichlet(mu=500)'

A model is a Lucene (or Anserini) similarity; its parameters are numbers, whole numbers, named
choices (``normalization=h2``) or flags (``accurate=true``). Some parameters apply only with a
given choice (``c`` with normalization ``h1``/``h2``, ``mu`` with ``h3``, ``z`` with ``z``,
``k`` with an ``exp`` axiomatic function); only those appear in the text form. A query
expansion (``rm3``, ``rocchio``, ``bm25prf``) follows its similarity after ``+``.

Lucene's conventions are kept as they are: for Jelinek-Mercer, ``lambda`` is the weight of the
*collection* model (Lucene's ``LMJelinekMercerSimilarity(lambda)``: score uses
``(1-lambda)*P(t|d) + lambda*P(t|C)``), so a larger lambda smooths more.
"""

from __future__ import annotations

import difflib
import math
import re
import struct
from dataclasses import dataclass, field

__all__ = [
    "Similarity",
    "MODELS",
    "EXPANSIONS",
    "PRESETS",
    "ALIASES",
    "NO_EXPANSION",
    "SOURCES",
    "canonical_model",
    "model_hint",
    "ParamSpec",
    "format_number",
    "format_value",
    "JAVA_FLOAT_MAX",
    "JAVA_INT_MAX",
]

Value = float | int | str | bool


def format_number(x: float) -> str:
    """Shortest text for a parameter value: 1000.0 -> '1000', 0.40 -> '0.4'."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def format_value(v: Value) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    return format_number(v)


JAVA_FLOAT_MAX = 3.4028234663852886e38  # Java's Float.MAX_VALUE; larger rounds to infinity
JAVA_INT_MAX = 2**31 - 1


@dataclass(frozen=True)
class ParamSpec:
    """One parameter. ``kind``: "number" (float), "int", "choice" or "bool". ``when`` =
    (other parameter, its values) under which this one applies; ``defaults`` overrides
    ``default`` per value of that other parameter. ``hidden_default``: left out of the text
    form when it has its default (so that adding an option keeps old names)."""

    name: str
    default: Value
    low: float = -math.inf  # bounds of numbers
    high: float = math.inf
    low_open: bool = False  # True: low itself is not allowed
    high_open: bool = False
    doc: str = ""
    kind: str = "number"
    choices: tuple[str, ...] = ()
    when: tuple[str, tuple[str, ...]] | None = None
    defaults: tuple[tuple[str, Value], ...] = ()
    hidden_default: bool = False

    def allowed(self) -> str:
        if self.kind == "choice":
            return " | ".join(self.choices)
        if self.kind == "bool":
            return "true | false"
        lo = "(" if self.low_open else "["
        hi = ")" if self.high_open else "]"
        high = "inf" if math.isinf(self.high) else format_number(self.high)
        low = "-inf" if math.isinf(self.low) else format_number(self.low)
        return f"{'whole number in ' if self.kind == 'int' else ''}{lo}{low}, {high}{hi}"

    def default_for(self, values: dict[str, Value]) -> Value:
        if self.when and self.defaults:
            return dict(self.defaults).get(values.get(self.when[0]), self.default)
        return self.default

    def applies(self, values: dict[str, Value]) -> bool:
        return self.when is None or values.get(self.when[0]) in self.when[1]

    def check(self, value: Value) -> str | None:
        """None when ``value`` is allowed, else the reason."""
        if self.kind == "choice":
            if isinstance(value, str) and value.lower() in self.choices:
                return None
            return f"must be one of {', '.join(self.choices)} (got {value!r})"
        if self.kind == "bool":
            return None if isinstance(value, bool) else f"must be true or false (got {value!r})"
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"must be a number in {self.allowed()} (got {value!r})"
        v = float(value)
        if self.kind == "int" and not (math.isfinite(v) and v.is_integer()):
            return f"must be a {self.allowed()} (got {format_number(v) if math.isfinite(v) else v})"
        if (
            math.isnan(v)
            or v < self.low
            or v > self.high
            or (self.low_open and v == self.low)
            or (self.high_open and v == self.high)
        ):
            return f"must be {'a' if self.kind == 'int' else 'in'} {self.allowed()} (got {format_number(v)})"
        if self.kind == "int":  # Anserini takes these as Java ints (fbTerms, queryLen, efSearch)
            return (
                None
                if v <= JAVA_INT_MAX
                else f"must be at most {JAVA_INT_MAX:,}, the largest Java int (got {format_number(v)})"
            )
        # Lucene's similarities take Java floats: the value Lucene sees must be legal too.
        f = float(struct.unpack("f", struct.pack("f", v))[0]) if abs(v) <= JAVA_FLOAT_MAX else math.inf
        if math.isinf(f):
            return f"must be at most {JAVA_FLOAT_MAX:.8g}, the largest Java float (got {format_number(v)})"
        if (self.low_open and f == self.low) or f < self.low or f > self.high:
            return f"becomes {format_number(f)} as a Java float, outside {self.allowed()} (got {format_number(v)})"
        return None

    def coerce(self, value: Value) -> Value:
        if self.kind == "choice":
            return str(value).lower()
        if self.kind == "bool":
            return bool(value)
        if self.kind == "int":
            return int(value)
        return float(value)


_POS = {"low": 0.0, "low_open": True, "high_open": True}  # (0, inf)
_NORMS = ("h1", "h2", "h3", "z", "none")


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
        ParamSpec("mu", 800.0, when=("normalization", ("h3",)), doc="mu of NormalizationH3 (Dirichlet prior)", **_POS),
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

# name -> its parameters in canonical order. Defaults follow Anserini where it has a flag for
# the setting (BM25 k1=0.9, b=0.4; Dirichlet mu=1000; InL2 and SPL with H2 c=0.1; F2EXP/F2LOG
# s=0.5), Lucene's otherwise (JM lambda=0.1 as Lucene's documentation suggests).
MODELS: dict[str, tuple[ParamSpec, ...]] = {
    "bm25": (
        ParamSpec("k1", 0.9, 0.0, math.inf, high_open=True, doc="term-frequency saturation (Lucene BM25Similarity k1)"),
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
    "dirichlet": (
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
    "indri": (
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
    "jm": (
        ParamSpec(
            "lambda",
            0.1,
            0.0,
            1.0,
            low_open=True,
            doc="weight of the collection model (Lucene LMJelinekMercerSimilarity lambda)",
        ),
    ),
    "tfidf": (),
    "dfr": (
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
    "ib": (
        ParamSpec(
            "distribution", "spl", kind="choice", choices=("ll", "spl"), doc="Lucene DistributionLL or DistributionSPL"
        ),
        ParamSpec("lambda", "df", kind="choice", choices=("df", "ttf"), doc="Lucene LambdaDF or LambdaTTF"),
        *_normalisation(0.1, "the"),
    ),
    "dfi": (
        ParamSpec(
            "measure",
            "standardized",
            kind="choice",
            choices=("standardized", "saturated", "chisquared"),
            doc="independence measure: Lucene IndependenceStandardized, IndependenceSaturated, "
            "IndependenceChiSquared (Lucene has no default; the harness's is standardized)",
        ),
    ),
    "axiomatic": (
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
    # Not a Lucene similarity: nearest neighbours of a query vector in a dense index (engine.dense).
    "knn": (ParamSpec("efSearch", 100, 1, 1 << 20, kind="int", doc="HNSW candidates (Anserini's -efSearch)"),),
    # Learned sparse retrieval over the user's term weights (an impact collection; engine.impact).
    "impact": (),
}

# The formula source of each family (docs/semantics.md's retrieval-semantics table and `harness.similarity`).
SOURCES: dict[str, str] = {
    "bm25": "Lucene BM25Similarity(k1, b); with accurate=true Anserini's AccurateBM25Similarity(k1, b)",
    "dirichlet": "Lucene LMDirichletSimilarity(mu) (Anserini's -qld)",
    "jm": "Lucene LMJelinekMercerSimilarity(lambda) (Anserini's -qljm)",
    "indri": "Lucene IndriDirichletSimilarity(IndriCollectionModel, mu) under Lucene's IndriAndQuery, one clause per "
    "query token: the mean over the tokens of log((tf + mu * ctf/|C|) / (|d| + mu)), absent terms included "
    "(Indri's #combine)",
    "tfidf": "Lucene ClassicSimilarity() (the vector space model: tf = sqrt(freq), idf = 1 + ln((N+1)/(df+1)), "
    "norm = 1/sqrt(length))",
    "dfr": "Lucene DFRSimilarity(BasicModel, AfterEffect, Normalization); the defaults are Anserini's -inl2",
    "ib": "Lucene IBSimilarity(Distribution, Lambda, Normalization); the defaults are Anserini's -spl",
    "dfi": "Lucene DFISimilarity(Independence)",
    "axiomatic": "Lucene AxiomaticF1EXP/F1LOG/F2EXP/F2LOG/F3EXP/F3LOG; the default is Anserini's -f2exp",
    "knn": "Lucene KnnFloatVectorQuery(vector, q, efSearch) on a vectors index, as Anserini's SearchHnswDenseVectors",
    "impact": "Anserini's ImpactSimilarity on an impact index (SearchCollection -impact -pretokenized, "
    "SimpleImpactSearcher): the sum over the query's terms of the document's weight times the query's weight",
}

# Anserini's shortcuts: a name for a setting of a family (its fixed choices; the rest stay free).
PRESETS: dict[str, tuple[str, dict[str, Value]]] = {
    "inl2": ("dfr", {"basic_model": "in", "after_effect": "l", "normalization": "h2"}),
    "spl": ("ib", {"distribution": "spl", "lambda": "df", "normalization": "h2"}),
    "f2exp": ("axiomatic", {"function": "f2exp"}),
    "f2log": ("axiomatic", {"function": "f2log"}),
}

# Anserini's and Pyserini's names of a model where each names exactly one model here (SearchCollection's
# -qld and -qljm flags, pyserini's LuceneSearcher.set_qld): read as that model, whose canonical name
# alone names run files, labels and cache keys (`qld: {mu: 500}` is dirichlet(mu=500)). Their other
# model flags are the harness's names already: -bm25, -inl2, -spl, -f2exp, -f2log, -rm3, -rocchio, -bm25prf.
ALIASES: dict[str, str] = {"qld": "dirichlet", "qljm": "jm"}

# Their names of what the harness does not have, which a "did you mean" would mislead on.
_NOT_HERE: dict[str, str] = {
    "axiom": "Anserini's -axiom is its axiomatic reranking (a query expansion), which the harness does not "
    "have; Lucene's axiomatic similarities are `axiomatic` (Anserini's -f2exp and -f2log: `f2exp`, `f2log`)",
    "sdm": "Anserini's -sdm is a query generator (sequential dependence model), not a similarity; the harness "
    "searches bags of words",
}


def canonical_model(name: str) -> str:
    """The model (or preset) ``name`` stands for: itself, or what an alias names (``qld`` -> ``dirichlet``)."""
    return ALIASES.get(name, name)


def model_hint(word: str) -> str | None:
    """What to say of an unknown model name written as Anserini or Pyserini would write it: a flag
    with its dashes (``-qld``), or a name the harness has no model for (``axiom``); None otherwise.

    >>> model_hint("-qld")
    "; did you mean 'qld' (Anserini's -qld: dirichlet)?"
    """
    bare = word.lstrip("-")
    if bare in _NOT_HERE:
        return f": {_NOT_HERE[bare]}."
    if bare != word and (bare in MODELS or bare in PRESETS or bare in ALIASES):
        meaning = f": {ALIASES[bare]}" if bare in ALIASES else ""
        return f"; did you mean {bare!r} (Anserini's -{bare}{meaning})?"
    return None


_FILTER_DOC = (
    "true (Anserini's default): only feedback terms matching [a-z0-9]+, which drops every term of a "
    "language outside ASCII; false: every term (-rm3.noTermFilter)"
)
# Query expansions: Anserini's rerankers, with Anserini's parameter defaults (SearchCollection.Args).
EXPANSIONS: dict[str, tuple[ParamSpec, ...]] = {
    "rm3": (
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
    "rocchio": (
        ParamSpec("top_fb_terms", 10, 1, math.inf, high_open=True, kind="int", doc="terms from the top documents"),
        ParamSpec("top_fb_docs", 10, 1, math.inf, high_open=True, kind="int", doc="top (relevant) feedback documents"),
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
    "bm25prf": (
        ParamSpec("fb_terms", 20, 1, math.inf, high_open=True, kind="int", doc="expansion terms (-bm25prf.fbTerms)"),
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
}
SOURCES.update(
    {
        "rm3": "Anserini Rm3Reranker over the top 50 of the first search, as SimpleSearcher.set_rm3",
        "rocchio": "Anserini RocchioReranker over the first search's top `depth`, as SimpleSearcher.set_rocchio",
        "bm25prf": "Anserini BM25PrfReranker over the top 50, as SearchCollection -bm25prf (its second "
        "search always scores with BM25PrfSimilarity)",
    }
)

# The models whose runs take no query expansion, and why (Similarity.of refuses one; the JSON
# Schema offers none): each reranker reads the feedback documents' terms and searches a BooleanQuery.
NO_EXPANSION: dict[str, str] = {
    "indri": "Anserini's rerankers search a plain BooleanQuery, not Lucene's IndriAndQuery; expand "
    "dirichlet or bm25 instead",
    "knn": "a vectors index holds no terms for the rerankers to read, and a knn search takes no query text",
    "impact": "the harness's impact index stores no document vectors for the rerankers to read",
}

# Rerankers feed back from Anserini's first-stage cut-off (SearchCollection.Args.rerankcutoff).
RERANK_CUTOFF = 50


def _resolve(name: str, registry: dict, given: dict[str, Value]) -> tuple[tuple[str, Value], ...]:
    """Check ``given`` against ``registry[name]`` and fill defaults; the applying values in order."""
    specs = registry[name]
    names = {p.name for p in specs}
    unknown = sorted(set(given) - names)
    if unknown:
        valid = ", ".join(p.name for p in specs) or "none"
        raise ValueError(f"{name} has no parameter {', '.join(unknown)}; valid: {valid}")
    values: dict[str, Value] = {}
    for p in specs:  # choices first: they decide which numbers apply and their defaults
        if p.kind == "choice":
            v = given.get(p.name, p.default)
            if why := p.check(v):
                raise ValueError(f"{name} {p.name} {why}")
            values[p.name] = p.coerce(v)
    out = []
    for p in specs:
        if not p.applies(values):
            if p.name in given:
                gov = p.when[0]
                raise ValueError(
                    f"{name} {p.name} applies only with {gov} {' or '.join(p.when[1])} (got {gov}={values[gov]})"
                )
            continue
        v = values[p.name] if p.kind == "choice" else given.get(p.name, p.default_for(values))
        if why := p.check(v):
            raise ValueError(f"{name} {p.name} {why}")
        out.append((p.name, p.coerce(v)))
    return tuple(out)


_CALL = re.compile(r"^\s*([a-z0-9_]+)\s*(?:\((.*)\))?\s*$", re.S)


def _parse_call(text: str, whole: str) -> tuple[str, dict[str, Value]]:
    m = _CALL.match(text)
    if not m:
        raise ValueError(
            f"cannot parse similarity {whole!r}; expected e.g. bm25(k1=0.9,b=0.4) or bm25+rm3(fb_terms=10)"
        )
    params: dict[str, Value] = {}
    for part in filter(None, (m.group(2) or "").split(",")):
        key, sep, val = part.partition("=")
        val = val.strip()
        if not sep or not key.strip() or not val:
            raise ValueError(f"cannot parse {part.strip()!r} in {whole!r}; expected name=value")
        if val.lower() in ("true", "false"):
            params[key.strip()] = val.lower() == "true"
            continue
        try:
            params[key.strip()] = float(val)
        except ValueError:
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", val):
                raise ValueError(f"cannot parse {part.strip()!r} in {whole!r}; expected name=value") from None
            params[key.strip()] = val
    return m.group(1), params


@dataclass(frozen=True)
class Similarity:
    """A similarity and, optionally, a query expansion: ``model(values)[+expansion(values)]``."""

    model: str
    values: tuple[tuple[str, Value], ...] = field(default=())
    expansion: str | None = None
    expansion_values: tuple[tuple[str, Value], ...] = field(default=())

    @property
    def params(self) -> dict[str, Value]:
        return dict(self.values)

    @property
    def expansion_params(self) -> dict[str, Value]:
        return dict(self.expansion_values)

    @property
    def family(self) -> str:
        """What the report groups by: the model, with its expansion (``bm25+rm3``)."""
        return self.model + (f"+{self.expansion}" if self.expansion else "")

    @property
    def settings(self) -> dict[str, Value]:
        """Every parameter, expansion ones prefixed (``rm3.fb_terms``): what a sweep varies."""
        out: dict[str, Value] = {}
        for prefix, specs, given in (
            ("", MODELS.get(self.model, ()), self.values),
            (f"{self.expansion}.", EXPANSIONS.get(self.expansion or "", ()), self.expansion_values),
        ):  # a hidden parameter is left out of the name, still a setting (bm25 accurate=false)
            values = dict(given)
            values.update((p.name, p.default) for p in specs if p.hidden_default and p.name not in values)
            out.update({prefix + k: v for k, v in values.items()})
        return out

    @property
    def lengths(self) -> str:
        """The document lengths the similarity reads (harness.engine.index.IndexOptions.lengths):
        "exact" for Anserini's accurate BM25, "lucene" (one-byte norms) for every other."""
        return "exact" if self.model == "bm25" and self.params.get("accurate") else "lucene"

    @property
    def base(self) -> Similarity:
        """The similarity without its expansion (the first search of an expansion run)."""
        return Similarity(self.model, self.values)

    @classmethod
    def of(
        cls,
        model: str,
        params: dict[str, Value],
        expansion: str | None = None,
        expansion_params: dict[str, Value] | None = None,
    ) -> Similarity:
        """Build from a model name (or one of Anserini's presets) and (possibly partial)
        parameters; defaults fill the rest. Raises ValueError naming what is wrong."""
        params = dict(params)
        model = canonical_model(model)
        if model in PRESETS:
            family, fixed = PRESETS[model]
            clash = sorted(set(params) & set(fixed))
            if clash:
                raise ValueError(
                    f"{model} is {family} with {', '.join(f'{k}={v}' for k, v in fixed.items())}; "
                    f"{', '.join(clash)} cannot be set (use {family} instead)"
                )
            model, params = family, {**params, **fixed}
        if model not in MODELS:
            names = [*MODELS, *PRESETS, *ALIASES]
            close = difflib.get_close_matches(model, names, n=1, cutoff=0.6)
            hint = model_hint(model) or (f"; did you mean {close[0]!r}?" if close else ".")
            raise ValueError(f"unknown similarity {model!r}{hint} Valid: {', '.join(names)}")
        values = _resolve(model, MODELS, params)
        hidden = {p.name: p.default for p in MODELS[model] if p.hidden_default}
        values = tuple((k, v) for k, v in values if not (k in hidden and v == hidden[k]))
        if expansion is None:
            if expansion_params:
                raise ValueError("expansion parameters without an expansion")
            return cls(model, values)
        if expansion not in EXPANSIONS:
            raise ValueError(f"unknown query expansion {expansion!r}; valid: {', '.join(EXPANSIONS)}")
        if model in NO_EXPANSION:
            # indri: under a plain BooleanQuery Indri's log-probabilities (negative) would rank
            # documents matching fewer terms first; knn: the dense searcher would drop the expansion
            raise ValueError(f"{model} cannot take an expansion ({expansion}): {NO_EXPANSION[model]}")
        hidden = {p.name: p.default for p in EXPANSIONS[expansion] if p.hidden_default}
        evalues = tuple(
            kv for kv in _resolve(expansion, EXPANSIONS, expansion_params or {}) if kv not in hidden.items()
        )
        return cls(model, values, expansion, evalues)

    @classmethod
    def parse(cls, text: str) -> Similarity:
        parts = text.split("+")
        if len(parts) > 2:
            raise ValueError(f"cannot parse similarity {text!r}: at most one expansion (model+expansion)")
        model, params = _parse_call(parts[0], text)
        if len(parts) == 1:
            return cls.of(model, params)
        expansion, eparams = _parse_call(parts[1], text)
        return cls.of(model, params, expansion, eparams)

    def __str__(self) -> str:
        inner = ",".join(f"{k}={format_value(v)}" for k, v in self.values)
        text = f"{self.model}({inner})"
        if self.expansion:
            inner = ",".join(f"{k}={format_value(v)}" for k, v in self.expansion_values)
            text += f"+{self.expansion}({inner})"
        return text
