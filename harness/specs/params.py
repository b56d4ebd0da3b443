"""Parameters as values: a :class:`ParamSpec` says what one parameter of a model or a query
expansion is (its kind, default, range or choices, and the choice it applies with), checks a
value against Java's types as Lucene will see it, and writes a value as the canonical texts write
it (``1000.0`` -> ``1000``, ``True`` -> ``true``).

    >>> mu = ParamSpec("mu", 1000.0, 0.0, low_open=True, doc="Dirichlet prior")
    >>> mu.allowed(), mu.check(0), mu.check(500) is None
    ('(0, inf]', 'must be in (0, inf] (got 0)', True)
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Literal

__all__ = ["Value", "ParamKind", "ParamSpec", "format_number", "format_value", "JAVA_FLOAT_MAX", "JAVA_INT_MAX"]

Value = float | int | str | bool
# a Java float, a Java int, one of named choices (a Java String), a flag (a Java boolean)
ParamKind = Literal["number", "int", "choice", "bool"]

JAVA_FLOAT_MAX = 3.4028234663852886e38  # Java's Float.MAX_VALUE; larger rounds to infinity
JAVA_INT_MAX = 2**31 - 1


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
    kind: ParamKind = "number"
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
            return dict(self.defaults).get(str(values.get(self.when[0])), self.default)
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
