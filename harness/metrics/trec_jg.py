"""trec_eval 9.0.8's judgment-group measures (``-R qrels_jg``, ``-m qrels_jg``): map_avgjg,
P_avgjg and Rprec_mult_avgjg, the provider of those families (harness.metrics.providers;
`harness trec_eval` prints them).

A qrels_jg file holds one set of qrels per judgment group (jg: a user, say) of a topic. Each
group ranks the run's documents as trec_eval's qrels code does (score as float32 descending,
then doc id descending; -M; -J drops the documents that group did not judge) and the measure
is computed against that group's judgments as map, P and Rprec_mult are, by their kernels
(harness.metrics.kernels) over one ranked list per (topic, group); a topic's value is their sum
over its groups, in group-id order, divided by the number of groups when there are several.
"""

from __future__ import annotations

import numpy as np

from harness.metrics import kernels
from harness.metrics.ranked import NOT_JUDGED, POOL_UNJUDGED, RankedLabels
from harness.metrics.trec_prefs import ranking
from harness.metrics.trec_segments import seg_cumsum

__all__ = ["JG_MEASURES", "GroupsData", "map_avgjg", "p_avgjg", "rprec_mult_avgjg"]

JG_MEASURES = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")


def _labels(ranked: list[str], judged: dict[str, int], judged_only: bool) -> list[int]:
    """The group's label codes of the ranked documents (harness.metrics.ranked), -J dropping
    the documents the group did not judge (or judged negative)."""
    out = []
    for d in ranked:
        rel = judged.get(d)
        if rel is None:
            if not judged_only:
                out.append(NOT_JUDGED)
        elif rel < 0:
            if not judged_only:
                out.append(POOL_UNJUDGED)
        else:
            out.append(rel)
    return out


class GroupsData:
    """A run's topics and their judgment groups, what the judgment-group measures read: one
    ranked list per (topic, group) in ``rl`` (topics in order, each topic's groups in group-id
    order), the ranking trec_eval's qrels code gives the topic (after -M), labelled with that
    group's judgments (``judgments``: harness.formats.prefs.JudgmentGroups; ``judged_only``: -J)."""

    def __init__(self, run, judgments, topics: list[str], max_docs: int | None, judged_only: bool):
        self.topics = list(topics)
        lists, pools, slots, groups = [], [], [], []
        for q in self.topics:
            ranked = ranking(run, q, max_docs, ids_ascending=False)
            by_group = judgments.topics[q]
            for jg in sorted(by_group):
                judged = by_group[jg]
                lists.append(_labels(ranked, judged, judged_only))
                pools.append(list(judged.values()))
                slots.append(q)
            groups.append(len(by_group))
        self.groups = np.array(groups, dtype=np.int64)
        self.group_offsets = np.zeros(len(groups) + 1, dtype=np.int64)
        np.cumsum(self.groups, out=self.group_offsets[1:])
        offsets, pool_offsets = (np.cumsum([0] + [len(x) for x in xs]) for xs in (lists, pools))
        flat = lambda xs: np.array([v for x in xs for v in x], dtype=np.int64)  # noqa: E731
        self.rl = RankedLabels.contiguous(slots, offsets, flat(lists), pool_offsets, flat(pools))

    def average(self, values: np.ndarray) -> np.ndarray:
        """Each topic's values of its groups added in group order from 0.0, divided by the
        number of groups when there are several (trec_eval's sum, then its division)."""
        ends = self.group_offsets[1:] - 1
        total = seg_cumsum(values, self.group_offsets)[ends] + 0.0
        return np.where(self.groups > 1, total / np.maximum(self.groups, 1), total)


def map_avgjg(data: GroupsData, m, nDCG_threshold: bool = False) -> np.ndarray:
    return data.average(kernels.ap(data.rl, m))


def p_avgjg(data: GroupsData, m, nDCG_threshold: bool = False) -> np.ndarray:
    return data.average(kernels.precision(data.rl, m))


def rprec_mult_avgjg(data: GroupsData, rel: int, levels) -> list[np.ndarray]:
    """Rprec_mult_avgjg at each of ``levels``, as listed (trec_eval's loop over them: a level
    beyond a C long leaves the levels before it 0, as Rprec_mult's does)."""
    return [data.average(v) for v in kernels.rprec_mult(data.rl, rel, levels)]
