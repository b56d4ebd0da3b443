"""The one internal shape of judged rankings: :class:`RankedLabels`, what both the doc-id path
(run + qrels, :func:`harness.metrics.evaluate.rank_labels`) and rank-position judgments
(:mod:`harness.metrics.judgments`) build, and what every kernel over ranked labels reads
(harness.metrics.kernels, harness.metrics.trec_segments).

Label codes in ``labels`` follow trec_eval's ``form_res_rels``: a judged label >= 0, ``-1``
(:data:`NOT_JUDGED`) for a doc not in the qrels, ``-2`` (:data:`POOL_UNJUDGED`) for a doc judged
with a negative label ("in the pool but unjudged").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["RankedLabels", "NOT_JUDGED", "POOL_UNJUDGED"]

NOT_JUDGED, POOL_UNJUDGED = -1, -2


@dataclass
class RankedLabels:
    """Ranked label lists of the evaluated topics, plus every topic's judgments.

    ``labels`` is split into segments ``seg_offsets``; segment s holds topic ``seg_topic[s]``'s
    ranked list (-1: rows to ignore, e.g. a run topic without judgments). A topic has at most
    one segment, or none (a judged topic missing from the run), and the topics of the used
    segments increase along the rows (the kernels rely on rows being in topic order).
    ``pool`` holds all judgment labels of topic t in ``pool[pool_offsets[t]:pool_offsets[t+1]]``,
    in any order; it is where R, the judged non-relevant count and the ideal DCG come from.
    ``num_docs`` is the number of documents in the collection (trec_eval's ``-N``, 0 unless
    given), which only trec_eval's utility reads.
    """

    topics: list[str]
    seg_offsets: np.ndarray
    seg_topic: np.ndarray
    labels: np.ndarray
    pool_offsets: np.ndarray
    pool: np.ndarray
    num_docs: int = 0
    _cache: dict = field(default_factory=dict, repr=False)

    @classmethod
    def contiguous(cls, topics, offsets, labels, pool_offsets, pool) -> RankedLabels:
        """One segment per topic, in topic order."""
        return cls(
            list(topics),
            np.asarray(offsets, dtype=np.int64),
            np.arange(len(topics), dtype=np.int64),
            np.asarray(labels, dtype=np.int64),
            np.asarray(pool_offsets, dtype=np.int64),
            np.asarray(pool, dtype=np.int64),
        )

    # -- per-topic counts ----------------------------------------------------------------
    def _pool_topic(self):
        if "pool_topic" not in self._cache:
            self._cache["pool_topic"] = np.repeat(np.arange(len(self.topics)), np.diff(self.pool_offsets))
        return self._cache["pool_topic"]

    def num_rel(self, rel: int) -> np.ndarray:
        key = ("R", rel)
        if key not in self._cache:
            pt = self._pool_topic()
            self._cache[key] = np.bincount(pt[self.pool >= rel], minlength=len(self.topics))
        return self._cache[key]

    def num_nonrel(self, rel: int) -> np.ndarray:
        pt = self._pool_topic()
        return np.bincount(pt[(self.pool >= 0) & (self.pool < rel)], minlength=len(self.topics))

    def num_ret(self) -> np.ndarray:
        if "ret" not in self._cache:
            ok = self.seg_topic >= 0
            self._cache["ret"] = np.bincount(
                self.seg_topic[ok], weights=np.diff(self.seg_offsets)[ok], minlength=len(self.topics)
            ).astype(np.int64)
        return self._cache["ret"]

    def rows(self, lo: int, hi: int | None = None):
        """Rows whose label is in [lo, hi): (topic, 1-based rank, row index), in row order,
        which is topic order then rank order."""
        key = ("rows", lo, hi)
        if key not in self._cache:
            mask = self.labels >= lo
            if hi is not None:
                mask &= self.labels < hi
            r = np.flatnonzero(mask)
            seg = np.searchsorted(self.seg_offsets, r, side="right") - 1
            topic = self.seg_topic[seg]
            keep = topic >= 0
            self._cache[key] = (topic[keep], (r - self.seg_offsets[seg] + 1)[keep], r[keep])
        return self._cache[key]

    def relevant(self, rel: int):
        """Relevant rows (topic, rank, j) with j = 1-based count of relevant so far."""
        key = ("relj", rel)
        if key not in self._cache:
            topic, rank, _ = self.rows(rel)
            nrr = np.bincount(topic, minlength=len(self.topics))
            first = np.zeros(len(self.topics) + 1, dtype=np.int64)
            np.cumsum(nrr, out=first[1:])
            j = np.arange(len(topic)) - first[topic] + 1
            self._cache[key] = (topic, rank, j, nrr, first)
        return self._cache[key]
