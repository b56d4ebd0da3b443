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

A model is a Lucene (or Anserini) similarity of the registry (:mod:`harness.specs.models`); its
parameters are numbers, whole numbers, named choices (``normalization=h2``) or flags
(``accurate=true``). Some parameters apply only with a given choice (``c`` with normalization
``h1``/``h2``, ``mu`` with ``h3``, ``z`` with ``z``, ``k`` with an ``exp`` axiomatic function);
only those appear in the text form. A query expansion (``rm3``, ``rocchio``, ``bm25prf``)
follows its similarity after ``+``.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from harness.specs.models import EXPANSIONS, MODEL_NAMES, MODELS, IndexKind, Model, model_hint, resolve_name
from harness.specs.params import ParamSpec, Value, format_value

__all__ = ["Similarity"]


def _resolve(name: str, specs: tuple[ParamSpec, ...], given: dict[str, Value]) -> tuple[tuple[str, Value], ...]:
    """Check ``given`` against the parameters ``specs`` of model or expansion ``name`` and fill
    defaults; the applying values in order."""
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
            if p.name in given and p.when is not None:
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
            ("", MODELS[self.model].params if self.model in MODELS else (), self.values),
            (
                f"{self.expansion}.",
                EXPANSIONS[self.expansion].params if self.expansion in EXPANSIONS else (),
                self.expansion_values,
            ),
        ):  # a hidden parameter is left out of the name, still a setting (bm25 accurate=false)
            values = dict(given)
            values.update((p.name, p.default) for p in specs if p.hidden_default and p.name not in values)
            out.update({prefix + k: v for k, v in values.items()})
        return out

    @property
    def entry(self) -> Model:
        """The model's entry of the registry (harness.specs.models.MODELS)."""
        return MODELS[self.model]

    @property
    def index(self) -> IndexKind:
        """The kind of index the model searches: "text", "vectors" (knn) or "impact"."""
        return MODELS[self.model].index

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
        family, fixed = resolve_name(model)
        if fixed:
            clash = sorted(set(params) & set(fixed))
            if clash:
                raise ValueError(
                    f"{model} is {family} with {', '.join(f'{k}={v}' for k, v in fixed.items())}; "
                    f"{', '.join(clash)} cannot be set (use {family} instead)"
                )
            params = {**params, **fixed}
        model = family
        if model not in MODELS:
            close = difflib.get_close_matches(model, MODEL_NAMES, n=1, cutoff=0.6)
            hint = model_hint(model) or (f"; did you mean {close[0]!r}?" if close else ".")
            raise ValueError(f"unknown similarity {model!r}{hint} Valid: {', '.join(MODEL_NAMES)}")
        specs = MODELS[model].params
        hidden = {p.name: p.default for p in specs if p.hidden_default}
        values = tuple((k, v) for k, v in _resolve(model, specs, params) if not (k in hidden and v == hidden[k]))
        if expansion is None:
            if expansion_params:
                raise ValueError("expansion parameters without an expansion")
            return cls(model, values)
        if expansion not in EXPANSIONS:
            raise ValueError(f"unknown query expansion {expansion!r}; valid: {', '.join(EXPANSIONS)}")
        if why := MODELS[model].no_expansion:
            # knn: the dense searcher would drop the expansion
            raise ValueError(f"{model} cannot take an expansion ({expansion}): {why}")
        especs = EXPANSIONS[expansion].params
        hidden = {p.name: p.default for p in especs if p.hidden_default}
        evalues = tuple(kv for kv in _resolve(expansion, especs, expansion_params or {}) if kv not in hidden.items())
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
