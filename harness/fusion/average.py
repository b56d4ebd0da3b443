"""average, as pyserini.fusion 2.4.0 computes it: every run's scores times ``1 / n`` (then summed:
pyserini multiplies before it sums, which is not always the sum divided by n in float64)."""

from __future__ import annotations

import numpy as np

from harness.formats.run import Run
from harness.fusion.rows import TopicRows
from harness.policies import FusionPolicy

__all__ = ["rescore"]


def rescore(run: Run, rows: TopicRows, i: int, n: int, policy: FusionPolicy) -> np.ndarray:
    return run.scores * (1 / n)
