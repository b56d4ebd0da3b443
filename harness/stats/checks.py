"""The argument checks the statistics modules share: a choice, a seed, a resample count, a
vector of per-topic scores, a paired difference, a topics x systems score matrix. Errors name the
argument and what was given."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from harness.errors import DataError
from harness.policies import MAX_RESAMPLES

__all__ = ["one_of", "seed", "count", "vector", "diff", "matrix", "probability"]


def one_of(name: str, value: object, allowed: Mapping[str, object]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))} (got {value!r})")
    return value


def seed(value: object) -> int:
    # Unseeded randomness is exactly what the statistics exist to prevent.
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"seed must be a non-negative integer (got {value!r})")
    return int(value)


def count(name: str, value: object, low: int = 1, high: int = MAX_RESAMPLES) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high:,}] (got {value!r})")
    return int(value)


def vector(x: object, source: str) -> np.ndarray:
    try:
        v = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError(source, f"per-topic scores must be numbers (got {type(x).__name__})") from None
    if v.ndim != 1:
        raise DataError(source, f"per-topic scores must be a 1-D array (got shape {v.shape})")
    if v.size == 0:
        raise DataError(source, "no topics: per-topic scores are empty")
    bad = np.flatnonzero(~np.isfinite(v))
    if bad.size:
        raise DataError(source, f"per-topic scores must be finite; position {int(bad[0])} is {float(v[bad[0]])!r}")
    return v


def diff(a: object, b: object, source: str = "paired scores") -> np.ndarray:
    va, vb = vector(a, source), vector(b, source)
    if va.shape != vb.shape:
        raise DataError(
            source, f"runs are paired by topic, so need the same number of topics (got {va.size} and {vb.size})"
        )
    return va - vb


def matrix(scores: object, systems: Sequence[str], source: str = "scores") -> tuple[np.ndarray, tuple[str, ...]]:
    """A topics x systems score matrix (one row per topic, one column per system, at least two of
    each, finite) and its systems' names (distinct strings, one per column)."""
    try:
        x = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError(source, f"scores must be numbers (got {type(scores).__name__})") from None
    if x.ndim != 2:
        raise DataError(source, f"scores must be a topics x systems matrix (got shape {x.shape})")
    if isinstance(systems, str) or not all(isinstance(s, str) for s in systems):
        raise ValueError(f"systems must be a sequence of names, one per column (got {systems!r})")
    names = tuple(systems)
    if len(names) != x.shape[1]:
        raise DataError(source, f"{x.shape[1]} columns of scores but {len(names)} system names; one name per column")
    if len(set(names)) != len(names):
        twice = sorted({s for s in names if names.count(s) > 1})
        raise ValueError(f"system names must be distinct; named twice: {', '.join(map(repr, twice))}")
    if x.shape[1] < 2:
        raise DataError(source, f"comparing systems needs at least 2 systems (got {x.shape[1]})")
    if x.shape[0] < 2:
        raise DataError(source, f"comparing systems needs at least 2 topics (got {x.shape[0]})")
    bad = np.argwhere(~np.isfinite(x))
    if bad.size:
        t, s = (int(i) for i in bad[0])
        raise DataError(source, f"scores must be finite; topic {t} (row), system {names[s]!r} is {float(x[t, s])!r}")
    return x, names


def probability(name: str, value: object) -> float:
    """A number strictly between 0 and 1 (alpha, power, a confidence level)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not 0 < value < 1:
        raise ValueError(f"{name} must be a number in (0, 1) (got {value!r})")
    return float(value)
