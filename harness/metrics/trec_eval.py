"""trec_eval 9.0.8's computation, for `harness trec_eval` (a drop-in for its command line; the
verb is harness.verbs.trec_eval; its names are harness.metrics.trec_names, its output
harness.metrics.trec_output, its -Z harness.metrics.trec_zscores).

A measure's per-topic values come from its family's provider (harness.metrics.providers): the
same kernels every door uses, or, for a family whose trec_eval measure computes its parameter
list in one loop (iprec_at_recall, Rprec_mult, 11pt_avg, the judgment groups' cut-offs), the
provider's listed kernel. The "all" line follows the family's summary: the mean over the
evaluated topics (over every judged topic with ``-c``), summed in trec_eval's order (topic ids
sorted as strings); counts are summed; ``gm_map`` and ``gm_bpref`` are geometric means floored
at 0.00001; ``num_q`` counts topics; ``relstring`` has per-topic lines only.
"""

from __future__ import annotations

import math

import numpy as np

from harness.metrics import providers
from harness.metrics.c_numbers import c_add, sum_in_order
from harness.metrics.trec_names import Request
from harness.metrics.trec_output import Line
from harness.metrics.trec_zscores import zscore

__all__ = ["compute", "MIN_GEO_MEAN"]

MIN_GEO_MEAN = 0.00001  # trec_eval's floor of a topic's value in a geometric mean


def _values(data, req: Request, level: int) -> list[np.ndarray]:
    """The request's values for each topic of ``data`` (one array per output line)."""
    family = req.trec.family
    assert family is not None  # runid, without a family, is a line of its own (compute)
    provider = providers.provider(family.name)
    listed = provider.listed.get(family.name)
    if listed is not None:
        return listed(data, level if "rel" in family.options else 1, req.params)
    kernel = provider.kernels[family.name]
    return [kernel(data, m, False) for m in req.measures(level)]


# C's arithmetic, quietly: infinite parameters (ndcg.1=1e400, utility.inf) make inf and NaN,
# which trec_eval prints
@np.errstate(divide="ignore", invalid="ignore", over="ignore")
def compute(
    data,
    requests: list[Request],
    *,
    level: int = 1,
    complete: bool = False,
    judged_topics: int = 0,
    num_rel_complete: int = 0,
    runid: str = "",
    zscores: dict | None = None,
) -> tuple[list[str], list[Line]]:
    """(evaluated topics in trec_eval's order, lines). ``data`` is what the requests' provider
    reads (harness.metrics.providers), over the evaluated topics only (``data.topics``;
    qrels: a :class:`harness.metrics.ranked.RankedLabels` without missing-topic segments);
    ``complete`` is ``-c``: means over ``judged_topics`` topics, and num_rel's "all" (a family
    whose missing topics keep their value) is ``num_rel_complete`` (every judgment above 0, as
    trec_eval counts it under -c, whatever -l). ``zscores`` (-Z,
    harness.metrics.trec_zscores.parse_zscores): each topic's values become z-scores before
    they are summed, counts included."""
    ids = list(data.topics)
    order = sorted(range(len(ids)), key=lambda i: ids[i].encode("utf-8"))
    order_arr = np.array(order, dtype=np.int64)
    topics = [ids[i] for i in order]
    n = len(order)
    denominator = judged_topics if complete else n
    lines = []
    for req in requests:
        t = req.trec
        if t.kind == "runid":
            lines.append(Line("runid", "runid", None, runid))
            continue
        if t.kind == "num_q":
            lines.append(Line("num_q", "num_q", None, denominator))
            continue
        family = t.family
        assert family is not None  # only runid has none
        kept = complete and family.on_missing == "keep"  # num_rel under -c
        for name, vals in zip(req.names(), _values(data, req, level)):
            if t.kind == "relstring":
                lines.append(Line(name, "relstring", [vals[i] for i in order], None))
                continue
            arr = np.asarray(vals, dtype=np.float64)[order_arr]
            if zscores is not None:
                seq = [zscore(zscores, qid, name, v) for qid, v in zip(topics, arr.tolist())]
                if family.summary == "sum":  # counts summed as doubles, printed as such
                    total = 0.0
                    for v in seq:
                        total = c_add(total, v)
                    lines.append(Line(name, t.kind, seq if t.per_query else None, num_rel_complete if kept else total))
                    continue
                arr = np.array(seq, dtype=np.float64)
            if family.summary == "sum":
                summary: float | int = num_rel_complete if kept else int(arr.astype(np.int64).sum())
            elif family.summary == "gm":
                total = 0.0
                for v in arr.tolist():
                    total += math.log(v if v > MIN_GEO_MEAN else MIN_GEO_MEAN)  # C's MAX: NaN -> the floor
                if complete:
                    total += (denominator - n) * math.log(MIN_GEO_MEAN)
                summary = math.exp(total / denominator) if denominator else 0.0
            else:
                total = sum_in_order(arr)
                summary = total / denominator if denominator else total
            lines.append(Line(name, t.kind, arr if t.per_query else None, summary))
    return topics, lines
