"""rrf, reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009), as pyserini.fusion
2.4.0 computes it: each run adds ``1 / (rrf_k + rank)``, the rank column as written (a run built
in memory has none: its positions 1..n)."""

from __future__ import annotations

import numpy as np

from harness.formats.run import Run
from harness.fusion.rows import TopicRows
from harness.policies import FusionPolicy

__all__ = ["rescore"]


def rescore(run: Run, rows: TopicRows, i: int, n: int, policy: FusionPolicy) -> np.ndarray:
    ranks = run.ranks if run.ranks is not None else rows.position + 1
    bad = np.flatnonzero(policy.rrf_k + ranks < 1)  # 1 / 0, or a negative share
    if len(bad):
        r = int(bad[0])
        raise ValueError(
            f"{run.source}: topic {run.topics()[rows.topic[r]]!r}, document {run.docids[r].decode(errors='replace')!r}: "
            f"rank {int(ranks[r])} with rrf_k {policy.rrf_k}; reciprocal rank fusion needs rank + rrf_k >= 1 "
            "(ranks from 1, or from 0 with rrf_k >= 1)"
        )
    return 1 / (policy.rrf_k + ranks).astype(np.float64)
