"""The fused run's orders: topics as pyserini orders them, and stable sorts within topics."""

from __future__ import annotations

import re

import numpy as np

__all__ = ["topic_order", "lexsort_in_topics"]

_INTEGER = re.compile(r"[+-]?\d+")

_LONG_TOPICS = 64  # rows per topic from which sorting topic by topic beats one sort of all rows


def topic_order(topics: set[str]) -> list[str]:
    """Numeric order when every id is an integer (pyserini's order: pandas reads them as
    integers), ids equal as numbers ordered as text; else string order."""
    if all(_INTEGER.fullmatch(t) for t in topics):
        return sorted(topics, key=lambda t: (int(t), t))
    return sorted(topics)


def lexsort_in_topics(keys: list[np.ndarray], topics: np.ndarray, n_topics: int, grouped: bool = False) -> np.ndarray:
    """``np.lexsort((*keys, topics))``: the stable order by topic code, then by the keys (the
    last one first), computed topic by topic when topics hold many rows. ``grouped``: the
    topic codes are already ascending.

    Two 1M-line runs (1,000 topics): one lexsort of (run, doc id words, topic) over the 2M rows
    took 3.2 s on the loaded 2-core machine, the topics first (a radix sort of 16-bit codes)
    and then each topic's 2,000 rows 0.70 s; scores within topics 0.94 s against 0.16 s. Many
    short topics make the Python loop the cost, so below 64 rows per topic it is one lexsort
    (the topic codes as 16-bit integers where they fit: numpy radix-sorts those)."""
    n = len(topics)
    codes = topics.astype(np.uint16) if n_topics <= 1 << 16 else topics
    if n < _LONG_TOPICS * max(n_topics, 1):
        return np.lexsort((*keys, codes))
    o = np.arange(n) if grouped else np.argsort(codes, kind="stable")
    sorted_codes = codes[o]
    keys = [k[o] for k in keys] if not grouped else keys
    bounds = np.r_[0, np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1, n].tolist()
    out = np.empty(n, dtype=np.int64)
    for s, e in zip(bounds[:-1], bounds[1:]):
        part = [k[s:e] for k in keys]
        local = np.argsort(part[0], kind="stable") if len(part) == 1 else np.lexsort(part)
        out[s:e] = o[s:e][local]
    return out
