"""Sweeps: the runs of a config grouped by family (harness.specs.similarity.Similarity.family),
for tuning, comparisons and the report's sweep plots."""

from __future__ import annotations

from collections.abc import Sequence

from harness.specs.similarity import Similarity

__all__ = ["sweeps"]


def sweeps(runs: Sequence[Similarity]) -> list[tuple[str, list[Similarity], list[str]]]:
    """(family, its runs, varying parameters) for every family (model, with its expansion:
    ``bm25``, ``bm25+rm3``) given more than one setting. Expansion parameters are named
    ``rm3.fb_terms``."""
    out = []
    for family in dict.fromkeys(r.family for r in runs):
        group = [r for r in runs if r.family == family]
        if len(group) > 1:
            keys = list(dict.fromkeys(k for r in group for k in r.settings))
            varying = [k for k in keys if len({r.settings.get(k) for r in group}) > 1]
            out.append((family, group, varying))
    return out
