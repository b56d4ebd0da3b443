"""Score matrices for the many-system statistics' tests (tests/test_stats_*.py): Cranfield's real
per-topic scores (no JVM needed), read from the golden cranfield-sweep report (BM25 and six
Dirichlet runs on its 225 topics) and from tests/data/cranfield-five (BM25 k1 0.6, 0.9, 1.2,
Dirichlet, JM; tests/data/README.md), and seeded synthetic matrices shaped like IR scores."""

from __future__ import annotations

import csv

import numpy as np

from .conftest import REPO

PER_TOPIC = REPO / "tests" / "golden" / "cranfield-sweep" / "cranfield-sweep" / "per_topic.csv"
FIVE = REPO / "tests" / "data" / "cranfield-five" / "per_topic.csv"
CRANFIELD_MEASURES = ("AP", "nDCG@10", "P@10", "RR")


def cranfield(measure: str, runs: tuple[str, ...] | None = None, path=PER_TOPIC) -> tuple[np.ndarray, tuple[str, ...]]:
    """The topics x runs matrix of ``measure`` on Cranfield (rows in topic-id order) and the runs'
    names (all but the tuned run, in file order, unless ``runs`` names some), from the sweep's
    per_topic.csv or ``path`` (:data:`FIVE`)."""
    table: dict[str, dict[str, float]] = {}
    with path.open(newline="") as f:
        for row in csv.DictReader(f):
            table.setdefault(row["run"], {})[row["qid"]] = float(row[measure])
    names = runs or tuple(r for r in table if "tuned" not in r)
    topics = sorted(table[names[0]], key=int)
    return np.array([[table[r][t] for r in names] for t in topics]), tuple(names)


def synthetic(topics: int, systems: int, seed: int, *, effect: float = 0.02, discrete: bool = False) -> np.ndarray:
    """Scores in [0, 1]: a topic difficulty shared by every system, a system effect of about
    ``effect`` per step, noise; ``discrete`` rounds to tenths, like P@10 (ties and zeros)."""
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(2, 3, size=(topics, 1))
    shift = effect * np.arange(systems)[None, :]
    x = np.clip(difficulty + shift + rng.normal(0, 0.08, (topics, systems)), 0, 1)
    return np.round(x, 1) if discrete else x
