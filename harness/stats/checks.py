"""The argument checks the statistics modules share: a choice, a seed, a resample count, a
vector of per-topic scores, a paired difference. Errors name the argument and what was given."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from harness.errors import DataError
from harness.policies import MAX_RESAMPLES

__all__ = ["one_of", "seed", "count", "vector", "diff"]


def one_of(name: str, value: object, allowed: Mapping[str, str]) -> str:
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
