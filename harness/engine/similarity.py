"""Similarity specs: frozen values with one canonical text form that parses back to itself.

The text form names run files, report rows and cache keys::

    >>> s = Similarity.parse("bm25(k1=0.9,b=0.4)")
    >>> str(s), s.params["k1"]
    ('bm25(k1=0.9,b=0.4)', 0.9)
    >>> str(Similarity.of("dirichlet", {})), str(Similarity.of("jm", {"lambda": 0.7}))
    ('dirichlet(mu=1000)', 'jm(lambda=0.7)')

Lucene's conventions are kept as they are: for Jelinek-Mercer, ``lambda`` is the weight of the
*collection* model (Lucene's ``LMJelinekMercerSimilarity(lambda)``: score uses
``(1-lambda)*P(t|d) + lambda*P(t|C)``), so a larger lambda smooths more.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

__all__ = ["Similarity", "MODELS", "ParamSpec", "format_number"]


@dataclass(frozen=True)
class ParamSpec:
    name: str
    default: float
    low: float  # bound on the value
    high: float
    low_open: bool = False  # True: low itself is not allowed
    high_open: bool = False
    doc: str = ""

    def allowed(self) -> str:
        lo = "(" if self.low_open else "["
        hi = ")" if self.high_open else "]"
        high = "inf" if math.isinf(self.high) else format_number(self.high)
        return f"{lo}{format_number(self.low)}, {high}{hi}"

    def check(self, value: float) -> str | None:
        """None when ``value`` is allowed, else the reason."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"must be a number in {self.allowed()} (got {value!r})"
        v = float(value)
        if (
            math.isnan(v)
            or v < self.low
            or v > self.high
            or (self.low_open and v == self.low)
            or (self.high_open and v == self.high)
        ):
            return f"must be in {self.allowed()} (got {format_number(v)})"
        return None


# name -> its parameters in canonical order. Defaults follow Anserini (BM25 k1=0.9, b=0.4;
# Dirichlet mu=1000) and Lucene's usual JM setting (lambda=0.1).
MODELS: dict[str, tuple[ParamSpec, ...]] = {
    "bm25": (
        ParamSpec("k1", 0.9, 0.0, math.inf, high_open=True, doc="term-frequency saturation (Lucene BM25Similarity k1)"),
        ParamSpec("b", 0.4, 0.0, 1.0, doc="length normalisation (Lucene BM25Similarity b)"),
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
}


def format_number(x: float) -> str:
    """Shortest text for a parameter value: 1000.0 -> '1000', 0.40 -> '0.4'."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


_SPEC = re.compile(r"^\s*([a-z0-9_]+)\s*(?:\((.*)\))?\s*$")


@dataclass(frozen=True)
class Similarity:
    model: str
    values: tuple[tuple[str, float], ...] = field(default=())

    @property
    def params(self) -> dict[str, float]:
        return dict(self.values)

    @classmethod
    def of(cls, model: str, params: dict[str, float]) -> Similarity:
        """Build from a model name and (possibly partial) parameters; defaults fill the rest."""
        if model not in MODELS:
            raise ValueError(f"unknown similarity {model!r}; valid: {', '.join(MODELS)}")
        specs = MODELS[model]
        names = {p.name for p in specs}
        unknown = sorted(set(params) - names)
        if unknown:
            raise ValueError(
                f"{model} has no parameter {', '.join(unknown)}; valid: {', '.join(p.name for p in specs)}"
            )
        values = []
        for p in specs:
            v = params.get(p.name, p.default)
            why = p.check(v)
            if why:
                raise ValueError(f"{model} {p.name} {why}")
            values.append((p.name, float(v)))
        return cls(model, tuple(values))

    @classmethod
    def parse(cls, text: str) -> Similarity:
        m = _SPEC.match(text)
        if not m:
            raise ValueError(f"cannot parse similarity {text!r}; expected e.g. bm25(k1=0.9,b=0.4)")
        params: dict[str, float] = {}
        for part in filter(None, (m.group(2) or "").split(",")):
            key, sep, val = part.partition("=")
            try:
                params[key.strip()] = float(val)
            except ValueError:
                raise ValueError(f"cannot parse {part.strip()!r} in {text!r}; expected name=number") from None
            if not sep:
                raise ValueError(f"cannot parse {part.strip()!r} in {text!r}; expected name=number")
        return cls.of(m.group(1), params)

    def __str__(self) -> str:
        inner = ",".join(f"{k}={format_number(v)}" for k, v in self.values)
        return f"{self.model}({inner})"
