"""One rule for pairing runs topic by topic, used by every comparison (the command line, the
Python API and configs).

Topics are paired in one canonical order, trec_eval's (topic ids sorted as strings), whatever
order run files, tables or topic files list them in: the seeded resamples (bootstrap CIs,
randomization and bootstrap tests, cross-validation folds) depend on the order, so every door
must give the same p-values on the same scores.

``strict`` (the default) needs every run scored on the same topics for every measure and raises
one error naming the runs and the topics that differ; ``common`` compares on the topics every
run is scored on and counts the others.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from harness.errors import DataError
from harness.policies import ALIGNMENTS, one_of

__all__ = ["Aligned", "align", "canonical_topics"]


@dataclass(frozen=True)
class Aligned:
    """Per-topic scores paired for the tests: ``scores[run][measure]`` follows ``topics``."""

    topics: tuple[str, ...]
    scores: dict[str, dict[str, np.ndarray]]
    dropped: tuple[str, ...]  # topics some run or measure lacks (align="common"), canonical order


def canonical_topics(topics) -> list[str]:
    """Topic ids in trec_eval's order: sorted as strings (code points; equal to UTF-8 byte order)."""
    return sorted(topics)


def _examples(ids) -> str:
    ids = canonical_topics(ids)
    shown = ", ".join(map(repr, ids[:5]))
    return shown + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")


def align(
    per_topic: Mapping[str, Mapping[str, Mapping[str, float]]],
    measures: Sequence[str],
    mode: str = "strict",
    *,
    where: str = "runs",
    hint: str = "",
) -> Aligned:
    """Pair ``per_topic[run][measure][topic]`` by topic under ``mode`` (a key of ALIGNMENTS).

    ``where`` names the input in errors; ``hint`` is how the caller's user asks for the other
    mode (``--align common``, ``align="common"``, ``compare.align: common``)."""
    one_of("align", mode, ALIGNMENTS)
    names = list(per_topic)
    if not names:
        raise DataError(where, "no runs to compare")
    sets = {}
    for name in names:
        for m in measures:
            if m not in per_topic[name]:
                raise DataError(where, f"run {name!r} has no scores for {m!r}")
            sets[name, m] = set(per_topic[name][m])
    first = (names[0], measures[0])
    if mode == "strict":
        want = sets[first]
        for (name, m), got in sets.items():
            if got != want:
                only_first, only_this = want - got, got - want
                parts = [
                    f"{len(s)} topic(s) only {n!r} has ({_examples(s)})"
                    for n, s in ((names[0], only_first), (name, only_this))
                    if s
                ]
                raise DataError(
                    where,
                    f"{m}: run {name!r} and run {names[0]!r} are scored on different topics: "
                    + "; ".join(parts)
                    + "; paired tests need every run scored on the same topics"
                    + (f" ({hint})" if hint else ""),
                )
        topics = canonical_topics(want)
        dropped: list[str] = []
    else:
        common = set.intersection(*sets.values())
        every = set.union(*sets.values())
        if not common:
            raise DataError(where, "no topic is scored for every run and measure: nothing to compare")
        topics = canonical_topics(common)
        dropped = canonical_topics(every - common)
    scores = {
        name: {m: np.array([per_topic[name][m][q] for q in topics], dtype=np.float64) for m in measures}
        for name in names
    }
    return Aligned(tuple(topics), scores, tuple(dropped))
