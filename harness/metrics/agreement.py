"""How alike two rankings of the same topics are, document by document: repro_eval 0.5.0's
Kendall's tau union (KTU) and rank-biased overlap (RBO) (Breuer et al., *How to Measure the
Reproducibility of System-oriented IR Experiments*, SIGIR 2020), which ``harness reproduce``
reports for an original run and its reproduction.

Both read each topic's ranking as :func:`harness.metrics.evaluate.in_order` gives it (trec_eval's
order, cut to the depth), so a run file not sorted by score ranks as trec_eval ranks it.

- **KTU** of a topic is Kendall's tau (scipy's tau-b, equal to tau-a here: a ranking holds a
  document once) between the two rankings *rank by rank*: position i of the original and
  position i of the reproduction are a pair, and each document stands for its place in the
  sorted union of both rankings' documents, i.e. the ids are compared as text. This is what
  repro_eval computes and reports as KTU, and what papers quote; it is 1 for identical rankings
  but depends on how the ids sort, so a ranking and its reverse need not give -1
  (docs/reproduce.md shows the case). Rankings of different lengths, which repro_eval refuses
  (scipy raises), are compared on the shorter length; a topic with fewer than two documents
  there has no tau (repro_eval's mean becomes NaN) and is left out of the mean.
- **RBO** of a topic is the finite-depth RBO that repro_eval takes from Clarke et al.'s
  compatibility code, without its normalisation by the ideal ranking: with ``d = 1..depth``,
  ``sum(p**(d-1) * |O[:d] & R[:d]| / d) / sum(p**(d-1))``. A ranking shorter than the depth keeps
  its overlap while ``d`` grows, so two identical rankings of 10 documents score below 1
  (0.6724 at ``p = 0.95``, depth 1000), as in repro_eval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from harness import lazy
from harness.formats.run import Run

stats = lazy.module("scipy.stats")

__all__ = ["RankingAgreement", "agreement", "ktu", "rbo"]


def ktu(original: np.ndarray, reproduced: np.ndarray) -> float:
    """repro_eval's Kendall's tau union of two rankings (arrays of doc ids, rank order): NaN when
    the shorter has fewer than two documents.

    >>> ids = lambda *d: np.array(d, dtype="S")
    >>> ktu(ids("a", "b", "c"), ids("a", "b", "c"))
    1.0
    >>> round(ktu(ids("b", "a", "c"), ids("c", "a", "b")), 4)   # reversed, yet not -1
    0.3333
    """
    n = min(len(original), len(reproduced))
    if n < 2:
        return math.nan
    _, codes = np.unique(np.concatenate([original[:n], reproduced[:n]]), return_inverse=True)
    # rounded as repro_eval rounds it: scipy's tau of two identical rankings can be 1 - 1e-16
    return round(float(stats.kendalltau(codes[:n], codes[n:]).statistic), 14)


def rbo(original: np.ndarray, reproduced: np.ndarray, p: float, depth: int) -> float:
    """repro_eval's rank-biased overlap of two rankings (arrays of doc ids, rank order) to
    ``depth`` with persistence ``p``.

    >>> ids = lambda *d: np.array(d, dtype="S")
    >>> rbo(ids("a", "b"), ids("a", "b"), 0.5, 2)
    1.0
    >>> round(rbo(ids("a", "b"), ids("b", "a"), 0.5, 2), 4)   # (0 + 0.5 * 2/2) / 1.5
    0.3333
    """
    o, r = original[:depth], reproduced[:depth]
    _, io, ir = np.intersect1d(o, r, assume_unique=True, return_indices=True)
    # a document in both rankings is in the overlap from the depth that holds it in both on
    overlap = np.cumsum(np.bincount(np.maximum(io, ir), minlength=depth))
    weights = p ** np.arange(depth, dtype=np.float64)
    return float(np.sum(weights * overlap / np.arange(1, depth + 1)) / np.sum(weights))


@dataclass(frozen=True)
class RankingAgreement:
    """KTU and RBO per topic of two runs, on the topics both rank, in the original's order."""

    topics: tuple[str, ...]
    ktu: np.ndarray  # NaN where a topic has fewer than two documents to pair
    rbo: np.ndarray

    @property
    def mean_ktu(self) -> float:
        """KTU averaged over the topics that have one (NaN when none has)."""
        defined = self.ktu[~np.isnan(self.ktu)]
        return float(defined.mean()) if len(defined) else math.nan

    @property
    def mean_rbo(self) -> float:
        return float(self.rbo.mean()) if len(self.rbo) else math.nan


def _docs(run: Run, t: int) -> np.ndarray:
    return run.docids[run.offsets[t] : run.offsets[t + 1]]


def agreement(original: Run, reproduced: Run, p: float, depth: int) -> RankingAgreement:
    """KTU and RBO of each topic both runs rank. The runs are in the order to compare
    (:func:`harness.metrics.evaluate.in_order`, cut to ``depth``)."""
    topics = [t for t in original.topics() if reproduced.topic_index(t) is not None]
    k, r = np.empty(len(topics)), np.empty(len(topics))
    for i, t in enumerate(topics):
        at_a, at_b = original.topic_index(t), reproduced.topic_index(t)
        assert at_a is not None and at_b is not None  # a topic both runs rank
        a, b = _docs(original, at_a), _docs(reproduced, at_b)
        k[i] = ktu(a, b)
        r[i] = rbo(a, b, p, depth)
    return RankingAgreement(tuple(topics), k, r)
