"""The dispatch table: each fusion method of the registry (harness.policies.FUSION_METHODS: its
name, meaning, options and number of runs) and the module that computes it, one method per
module, as ranx's fusion/ has them.

A method rescores each run whole (``rescore``: the run, its :class:`TopicRows`, the run's index
and the number of runs, the policy); a document's fused score is the sum of its rescored rows
over the runs that return it (harness.fusion.sums), which ``fused`` may finish with the number of
those runs (combmnz multiplies by it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from harness.formats.run import Run
from harness.fusion import average, combmnz, combsum, interpolation, normalize, rrf
from harness.fusion.rows import TopicRows
from harness.policies import FusionPolicy

__all__ = ["Method", "METHODS"]


@dataclass(frozen=True)
class Method:
    rescore: Callable[[Run, TopicRows, int, int, FusionPolicy], np.ndarray]
    fused: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None  # (sums, runs returning each)


METHODS: dict[str, Method] = {
    "rrf": Method(rrf.rescore),
    "interpolation": Method(interpolation.rescore),
    "average": Method(average.rescore),
    "normalize": Method(normalize.rescore),
    "combsum": Method(combsum.rescore),
    "combmnz": Method(combmnz.rescore, combmnz.fused),
}
