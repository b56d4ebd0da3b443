"""The fused run of several runs: each run rescored whole by its method (methods.py), cut to its
first ``depth`` rows per topic, the rows summed per document (sums.py), each topic ordered by
score, then doc id, and cut to ``k``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from harness.formats.run import Run
from harness.fusion.methods import METHODS
from harness.fusion.order import lexsort_in_topics, topic_order
from harness.fusion.rows import TopicRows
from harness.fusion.sums import summed
from harness.policies import FusionPolicy

__all__ = ["fuse"]


@np.errstate(over="ignore", invalid="ignore")  # scores that overflow: inf, or NaN refused below
def fuse(runs: Sequence[Run], policy: FusionPolicy | None = None) -> Run:
    """The fused run of ``runs`` (at least two) under ``policy``.

    >>> a = Run.from_ranked({"1": (["d1", "d2"], [3.0, 2.0])})
    >>> b = Run.from_ranked({"1": (["d2", "d3"], [9.0, 1.0])})
    >>> fused = fuse([a, b], FusionPolicy("rrf", rrf_k=60))
    >>> fused.ranked("1")[0], [round(s, 6) for s in fused.ranked("1")[1].tolist()]
    (['d2', 'd1', 'd3'], [0.032522, 0.016393, 0.016129])
    """
    policy = policy or FusionPolicy()
    runs = list(runs)
    n = len(runs)
    problem = policy.runs_problem(n)
    if problem is not None:
        key, message = problem
        raise ValueError(message if key == "runs" else f"{key}: {message}")
    method = METHODS[policy.method]
    names = topic_order({t for r in runs for t in r.topics()})
    code = {t: i for i, t in enumerate(names)}
    width = max(r.docids.dtype.itemsize for r in runs)
    topic_parts, doc_parts, value_parts, run_parts = [], [], [], []
    for i, run in enumerate(runs):
        rows = TopicRows.of(run)
        values = method.rescore(run, rows, i, n, policy)
        keep = slice(None) if policy.depth is None else rows.position < policy.depth
        codes = np.array([code[t] for t in run.topics()], dtype=np.int64)
        topic_parts.append(codes[rows.topic[keep]])
        doc_parts.append(run.docids[keep].astype(f"S{width}"))
        value_parts.append(values[keep])
        run_parts.append(np.full(len(value_parts[-1]), i, dtype=np.int64))
    sums = summed(
        np.concatenate(topic_parts),
        np.concatenate(doc_parts),
        np.concatenate(value_parts),
        np.concatenate(run_parts),
        len(names),
    )
    total = sums.total if method.fused is None else method.fused(sums.total, sums.count)
    if np.isnan(total).any():  # inf - inf on the way: infinite scores, or ones near float64's limit
        bad = int(np.flatnonzero(np.isnan(total))[0])
        raise ValueError(
            f"topic {names[sums.topic[bad]]!r}, document {sums.docid[bad].decode(errors='replace')!r}: "
            f"{policy.method} made its fused score NaN, the runs' scores being infinite (`inf` in a run) or "
            "overflowing float64 (their size is near 1.8e308, or a weight or alpha multiplies them that far); "
            "replace infinite scores or rescale the runs' scores"
        )
    # score descending within topic; the stable sort keeps doc ids ascending among equal scores
    out = lexsort_in_topics([-total], sums.topic, len(names), grouped=True)
    g_topic, g_doc, total = sums.topic[out], sums.docid[out], total[out]
    counts = np.bincount(g_topic, minlength=len(names))
    if policy.k is not None:
        first = np.r_[0, np.cumsum(counts)[:-1]]
        keep = (np.arange(len(g_topic)) - first[g_topic]) < policy.k
        g_doc, total, g_topic = g_doc[keep], total[keep], g_topic[keep]
        counts = np.minimum(counts, policy.k)
    present = counts > 0
    offsets = np.zeros(int(present.sum()) + 1, dtype=np.int64)
    np.cumsum(counts[present], out=offsets[1:])
    return Run([t for t, p in zip(names, present) if p], offsets, g_doc, total, "<fused>")
