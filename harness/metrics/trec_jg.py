"""trec_eval 9.0.8's judgment-group measures (``-R qrels_jg``, ``-m qrels_jg``): map_avgjg,
P_avgjg and Rprec_mult_avgjg, topic by topic in its arithmetic order: the provider of those
families (harness.metrics.providers; `harness trec_eval` prints them).

A qrels_jg file holds one set of qrels per judgment group (jg: a user, say) of a topic. Each
group ranks the run's documents as trec_eval's qrels code does (score as float32 descending,
then doc id descending; -M; -J drops the documents that group did not judge) and the measure
is computed against that group's judgments as map, P and Rprec_mult are; a topic's value is
their sum over its groups, in group-id order, divided by the number of groups when there are
several.
"""

from __future__ import annotations

import numpy as np

from harness.metrics.ranked import NOT_JUDGED, POOL_UNJUDGED
from harness.metrics.trec_prefs import ranking

__all__ = ["JG_MEASURES", "jg_values", "GroupsData", "map_avgjg", "listed"]

JG_MEASURES = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
_NONPOOL, _UNJUDGED = NOT_JUDGED, POOL_UNJUDGED


def _labels(ranked: list[str], judged: dict[str, int], judged_only: bool) -> list[int]:
    out = []
    for d in ranked:
        rel = judged.get(d)
        if rel is None:
            if not judged_only:
                out.append(_NONPOOL)
        elif rel < 0:
            if not judged_only:
                out.append(_UNJUDGED)
        else:
            out.append(rel)
    return out


def jg_values(name: str, params: tuple, ranked: list[str], groups: dict, level: int, judged_only: bool) -> list:
    """The values of ``name`` (one per parameter for P_avgjg and Rprec_mult_avgjg) for one
    topic: ``ranked`` its doc ids in trec_eval's order (after -M), ``groups`` {jg: {docno: rel}}."""
    n_params = len(params) if name != "map_avgjg" else 1
    values = [0.0] * n_params
    for jg in sorted(groups):
        judged = groups[jg]
        labels = np.array(_labels(ranked, judged, judged_only), dtype=np.int64)
        rel = labels >= level
        num_ret = len(labels)
        num_rel = sum(1 for r in judged.values() if r >= 0 and r >= level)
        num_rel_ret = int(np.count_nonzero(rel))
        if name == "map_avgjg":
            hits = np.flatnonzero(rel)
            if len(hits):
                prec = np.arange(1, len(hits) + 1, dtype=np.float64) / (hits + 1).astype(np.float64)
                values[0] += float(np.cumsum(prec)[-1]) / num_rel
            continue
        top = np.concatenate([[0], np.cumsum(rel)])  # relevant documents in the first i
        for k, p in enumerate(params):
            if name == "P_avgjg":
                values[k] += float(top[min(p, num_ret)]) / float(p)
                continue
            cut = int(p * num_rel + 0.9)  # C's (long)(x * R + 0.9)
            if cut > num_ret:
                values[k] += float(num_rel_ret) / float(cut)
            elif cut > 0 and top[cut] > 0:
                values[k] += float(top[cut]) / float(cut)
    if len(groups) > 1:
        values = [v / len(groups) for v in values]
    return values


class GroupsData:
    """A run's topics ranked as trec_eval's qrels code ranks them (after -M) and their judgment
    groups, what the judgment-group measures read (``judgments``:
    harness.formats.prefs.JudgmentGroups; ``judged_only``: -J)."""

    def __init__(self, run, judgments, topics: list[str], max_docs: int | None, judged_only: bool):
        self.topics, self.judgments, self.judged_only = list(topics), judgments, judged_only
        self.ranked = {q: ranking(run, q, max_docs, ids_ascending=False) for q in self.topics}

    def values(self, name: str, params: tuple, level: int) -> list[np.ndarray]:
        per_topic = [
            jg_values(name, params, self.ranked[q], self.judgments.topics[q], level, self.judged_only)
            for q in self.topics
        ]
        return [np.array(col, dtype=np.float64) for col in zip(*per_topic)]


def map_avgjg(data: GroupsData, m, nDCG_threshold: bool = False) -> np.ndarray:
    return data.values("map_avgjg", (), m.rel)[0]


def listed(name: str):
    """P_avgjg's or Rprec_mult_avgjg's kernel over a list of cut-offs: (data, rel, cut-offs) ->
    one array per cut-off."""

    def values(data: GroupsData, rel: int, cuts) -> list[np.ndarray]:
        return data.values(name, tuple(cuts), rel)

    return values
