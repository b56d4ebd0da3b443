"""Where each row of a run stands in its topic: what the fusion methods and the normalisations
read beside the run's own columns."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harness.formats.run import Run

__all__ = ["TopicRows"]


@dataclass(frozen=True)
class TopicRows:
    """A run's rows by topic: ``topic`` (each row's topic, an index into ``run.topics()``),
    ``position`` (its place in that topic, from 0, in file order) and ``lengths`` (each topic's
    number of rows)."""

    topic: np.ndarray
    position: np.ndarray
    lengths: np.ndarray

    @classmethod
    def of(cls, run: Run) -> TopicRows:
        lengths = np.diff(run.offsets)
        topic = np.repeat(np.arange(len(lengths)), lengths)
        position = np.arange(len(run), dtype=np.int64) - run.offsets[topic]
        return cls(topic, position, lengths)
