"""normalize, as pyserini.fusion 2.4.0 computes it: each run min-max normalised per topic, over
all the topic's rows before the depth cut (a topic whose scores are all equal gives 1.0), then
summed."""

from __future__ import annotations

import numpy as np

from harness.formats.run import Run
from harness.fusion.norms import normalized
from harness.fusion.rows import TopicRows
from harness.policies import FusionPolicy

__all__ = ["rescore"]


def rescore(run: Run, rows: TopicRows, i: int, n: int, policy: FusionPolicy) -> np.ndarray:
    return normalized(run.scores, rows, "minmax")
