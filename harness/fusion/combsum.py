"""combsum (Fox and Shaw, TREC-2 1993): each run's scores normalised by ``norm``
(harness.fusion.norms) and times its weight (``weights``, one per run; 1 when none), then summed."""

from __future__ import annotations

import numpy as np

from harness.formats.run import Run
from harness.fusion.norms import normalized
from harness.fusion.rows import TopicRows
from harness.policies import FusionPolicy

__all__ = ["rescore"]


def rescore(run: Run, rows: TopicRows, i: int, n: int, policy: FusionPolicy) -> np.ndarray:
    values = normalized(run.scores, rows, policy.norm)
    return values if policy.weights is None else values * policy.weights[i]
