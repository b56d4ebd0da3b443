"""interpolation, as pyserini.fusion 2.4.0 computes it: the first run's scores times ``alpha``,
the second's times ``1 - alpha`` (exactly two runs)."""

from __future__ import annotations

import numpy as np

from harness.formats.run import Run
from harness.fusion.rows import TopicRows
from harness.policies import FusionPolicy

__all__ = ["rescore"]


def rescore(run: Run, rows: TopicRows, i: int, n: int, policy: FusionPolicy) -> np.ndarray:
    return run.scores * (policy.alpha if i == 0 else 1 - policy.alpha)
