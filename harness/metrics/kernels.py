"""Pure numpy kernels: every measure of every topic at once, from ranked label arrays
(:class:`harness.metrics.ranked.RankedLabels`, the one internal shape both judgment kinds build).

Kernels never loop per document: they pick the few rows that matter (relevant, judged) with
``flatnonzero`` and aggregate them per topic with ``bincount``, whose sums run in rank order,
like trec_eval's loops. Label codes follow trec_eval's ``form_res_rels`` (harness.metrics.ranked):
both negatives are non-relevant; bpref skips them; Judged@k (like ir_measures) counts every doc
that has a qrels entry, -2 included.
"""

from __future__ import annotations

import numpy as np

from harness.metrics import trec_segments
from harness.metrics.c_numbers import X86_NAN
from harness.metrics.ranked import NOT_JUDGED, POOL_UNJUDGED, RankedLabels


def _per_topic(rl: RankedLabels, topic, weights=None):
    return np.bincount(topic, weights=weights, minlength=len(rl.topics)).astype(np.float64)


def _div(num, den):
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(len(den)), where=den > 0)


def _gains(labels, gain):
    labels = labels.astype(np.float64)
    return labels if gain == "linear" else np.exp2(labels) - 1.0


def _dcg(rl, m, threshold, cutoff):
    lo = max(m.rel, 1) if threshold else 1
    topic, rank, row = rl.rows(lo)
    if cutoff is not None:
        keep = rank <= cutoff
        topic, rank, row = topic[keep], rank[keep], row[keep]
    g = _gains(rl.labels[row], m.gain)
    return _per_topic(rl, topic, g / np.log2(rank + 1.0)), _per_topic(rl, topic, g)


def _ideal_dcg(rl, m, threshold, cutoff):
    lo = max(m.rel, 1) if threshold else 1
    key = ("ideal", lo)
    if key not in rl._cache:  # one sort for every cut-off (trec_eval -m all_trec: ten nDCGs)
        pt = rl._pool_topic()
        keep = rl.pool >= lo
        lab, topic = rl.pool[keep], pt[keep]
        order = np.lexsort((-lab, topic))  # per topic, best label first
        lab, topic = lab[order], topic[order]
        counts = np.bincount(topic, minlength=len(rl.topics))
        first = np.zeros(len(rl.topics) + 1, dtype=np.int64)
        np.cumsum(counts, out=first[1:])
        rl._cache[key] = (lab, topic, np.arange(len(lab)) - first[topic] + 1)
    lab, topic, rank = rl._cache[key]
    if cutoff is not None:
        k = rank <= cutoff
        lab, topic, rank = lab[k], topic[k], rank[k]
    return _per_topic(rl, topic, _gains(lab, m.gain) / np.log2(rank + 1.0))


def level_cutoffs(rl: RankedLabels, rel: int, levels) -> np.ndarray:
    """trec_eval's cut-off of each level (rows) for each topic (columns): ``(long)(x * R + 0.9)``,
    R the topic's relevant judged documents; LONG_MIN where the product is beyond a C long or
    NaN (``1e400``, ``nan``), as C's cast on x86-64."""
    R = rl.num_rel(rel).astype(np.float64)
    with np.errstate(invalid="ignore"):
        return np.trunc(np.outer(np.asarray(levels, dtype=np.float64), R) + 0.9).astype(np.int64)


def trec_eval_loop_order(c: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which levels trec_eval's loops over a topic's ranks reach, for iprec_at_recall and
    Rprec_mult: ``(tail, reached)`` masks over ``c`` (cut-offs, levels x topics). The loop takes
    the levels from the last: first it passes those whose cut-off exceeds ``start`` (the
    relevant retrieved, or the retrieved: ``tail``); then it walks down the ranks from
    ``start`` and gives a level its value when the rank is the level's cut-off (``reached``).
    A level whose cut-off is below 1, or above the previous level's (levels out of order:
    ``11pt_avg.0.5,0.1``, or a cut-off beyond a C long), is never reached, and neither is any
    level before it. With cut-offs in order, every level but the tail with a cut-off >= 1 is
    reached."""
    K, T = c.shape
    tail = np.zeros((K, T), dtype=bool)
    reached = np.zeros((K, T), dtype=bool)
    passing = np.ones(T, dtype=bool)
    going = np.ones(T, dtype=bool)
    prev = np.asarray(start, dtype=np.int64)
    for k in range(K - 1, -1, -1):
        ck = c[k]
        passing &= ck > start
        tail[k] = passing
        at = ~passing & going & (ck >= 1) & (ck <= prev)
        going &= passing | at
        reached[k] = at
        prev = np.where(at, ck, prev)
    return tail, reached


def interpolated_precision(rl, rel, levels, nan: bool = False):
    """trec_eval 9.0.x iprec_at_recall at each of ``levels``, as listed: for level r, with
    cut-off c = (long)(r * R + 0.9), 0 if c exceeds the relevant retrieved, else the max of
    j / rank_j over relevant retrieved j >= max(c, 1). (Later trec_eval versions use
    lround(r * R); pytrec_eval and 9.0.x use + 0.9.) Levels out of order follow trec_eval's
    loop (:func:`trec_eval_loop_order`): a level it never reaches takes the max over every j.
    ``nan``: a topic without a document retrieved (trec_eval -J, -M 0) takes trec_eval's 0/0,
    X86_NAN, at the levels the loop does not pass (the loop's starting precision)."""
    key = ("iprec", rel, tuple(levels), nan)
    if key not in rl._cache:  # trec_eval's iprec_at_recall and 11pt_avg read the same levels
        rl._cache[key] = _interpolated_precision(rl, rel, levels, nan)
    return list(rl._cache[key])


def _interpolated_precision(rl, rel, levels, nan):
    topic, rank, j, nrr, first = rl.relevant(rel)
    c = level_cutoffs(rl, rel, levels)
    tail, reached = trec_eval_loop_order(c, nrr)
    prec = np.append(j / rank, 0.0)  # sentinel: reduceat needs indices < len
    T = len(rl.topics)
    none = rl.num_ret() == 0
    out = []
    for k in range(len(levels)):
        lo = first[:-1] + np.where(reached[k], c[k], 1) - 1  # a level not reached: from the first
        hi = first[1:]
        valid = ~tail[k] & (lo < hi)
        idx = np.empty(2 * T, dtype=np.int64)
        idx[0::2] = np.where(valid, lo, 0)
        idx[1::2] = np.where(valid, hi, 0)
        if T:
            best = np.maximum.reduceat(prec, np.minimum(idx, len(prec) - 1))[0::2]
        else:
            best = np.zeros(0)
        v = np.where(valid, best, 0.0)
        out.append(np.where(none & ~tail[k], X86_NAN, v) if nan else v)
    return out


def eleven_point_at(rl: RankedLabels, rel: int, levels, nan: bool = False) -> list[np.ndarray]:
    """trec_eval's 11pt_avg over ``levels`` (its parameters, as listed): the interpolated
    precision at each (:func:`interpolated_precision`), added from the last level to the first,
    over the number of levels; one array, in a list as the listed kernels return them."""
    return [sum_levels(interpolated_precision(rl, rel, levels, nan)) / len(levels)]


def sum_levels(values: list[np.ndarray]) -> np.ndarray:
    """The sum of per-level values, from the last level to the first (trec_eval's 11pt_avg
    loop), as its compiled ``+=`` adds them: of two NaNs the one added (c_numbers.c_add)."""
    total = np.zeros(len(values[0]) if values else 0)
    for v in reversed(values):
        total = np.where(v != v, v, total + v)
    return total


def rprec_mult(rl: RankedLabels, rel: int, levels) -> list[np.ndarray]:
    """trec_eval's Rprec_mult at each of ``levels``, as listed: precision at the cut-off c =
    (long)(x * R + 0.9), relevant retrieved / c beyond the retrieved, 0 for c < 1; levels out
    of order follow trec_eval's loop (:func:`trec_eval_loop_order`), a level it never reaches
    is 0."""
    topic, rank, _, nrr, _ = rl.relevant(rel)
    c = level_cutoffs(rl, rel, levels)
    tail, reached = trec_eval_loop_order(c, rl.num_ret())
    out = []
    for k in range(len(levels)):
        ck = c[k]
        hits = np.bincount(topic[rank <= ck[topic]], minlength=len(rl.topics)).astype(np.float64)
        use = tail[k] | reached[k]
        out.append(np.where(use, hits / np.where(use, ck, 1), 0.0))
    return out


# ------------------------------------------------------------------------------ the kernels
# One function per measure family, each (RankedLabels, m, nDCG_threshold) -> float64 values
# (m: a harness.metrics.measures.Measure, read for its cutoff, rel and gain)
# per topic in ``rl.topics`` order; the registry (harness.metrics.measures.MEASURES) names each
# family's kernel. The expressions are trec_eval's loops, vectorised; their order of operations is
# kept as it is so that every value stays bit-identical.


def num_ret(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    return rl.num_ret().astype(np.float64)


def num_rel(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    return rl.num_rel(m.rel).astype(np.float64)


def num_rel_ret(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    return rl.relevant(m.rel)[3].astype(np.float64)


def ndcg(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    if m.params:  # trec_eval's ndcg with gains by level: its gain table, sorted as it sorts it
        return trec_segments.segment_values(rl, "ndcg", m.rel, m.params)
    dcg_, _ = _dcg(rl, m, nDCG_threshold, m.cutoff)
    return _div(dcg_, _ideal_dcg(rl, m, nDCG_threshold, m.cutoff))


def dcg(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    return _dcg(rl, m, nDCG_threshold, m.cutoff)[0]


def cg(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    return _dcg(rl, m, nDCG_threshold, m.cutoff)[1]


def judged(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    """ir_measures' Judged@k: any qrels entry, / min(k, n); Judged (no k): the whole list."""
    k = np.inf if m.cutoff is None else m.cutoff
    total = 0.0
    for lo, hi in ((0, None), (POOL_UNJUDGED, NOT_JUDGED)):
        topic, rank, _ = rl.rows(lo, hi)
        total = total + _per_topic(rl, topic[rank <= k])
    return _div(total, np.minimum(rl.num_ret(), k))


def iprec(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    return interpolated_precision(rl, m.rel, [m.cutoff])[0]


def eleven_point(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    return eleven_point_at(rl, m.rel, m.params or m.info.trec_defaults)[0]


def ap(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    topic, rank, j, _, _ = rl.relevant(m.rel)
    keep = slice(None) if m.cutoff is None else rank <= m.cutoff
    return _div(_per_topic(rl, topic[keep], (j / rank)[keep]), rl.num_rel(m.rel))


def rr(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    _, rank, _, nrr, first = rl.relevant(m.rel)
    has = nrr > 0
    r1 = np.zeros(len(rl.topics), dtype=np.int64)
    r1[has] = rank[first[:-1][has]]
    if m.cutoff is not None:
        has &= r1 <= m.cutoff
    return _div(has.astype(np.float64), np.where(has, r1, 0))


def rprec(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    topic, rank, _, _, _ = rl.relevant(m.rel)
    R = rl.num_rel(m.rel)
    return _div(_per_topic(rl, topic[rank <= R[topic]]), R)


def bpref(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    topic, rank, _, _, _ = rl.relevant(m.rel)
    R = rl.num_rel(m.rel)
    T = len(rl.topics)
    nonrel_topic, nonrel_rank, _ = rl.rows(0, m.rel)
    # judged non-relevant docs above each relevant doc, counted per topic
    nn_first = np.searchsorted(nonrel_topic, np.arange(T))  # sorted by topic
    key_nonrel = nonrel_topic * (1 << 40) + nonrel_rank
    above = np.searchsorted(key_nonrel, topic * (1 << 40) + rank) - nn_first[topic]
    N = rl.num_nonrel(m.rel)
    denom = np.minimum(N, R)[topic].astype(np.float64)
    term = np.where(above > 0, 1.0 - np.minimum(above, R[topic]) / np.where(denom > 0, denom, 1.0), 1.0)
    return _div(_per_topic(rl, topic, term), R)


def hits_at(rl: RankedLabels, m) -> np.ndarray:
    """Relevant documents in the top k of each topic."""
    topic, rank, _, _, _ = rl.relevant(m.rel)
    return _per_topic(rl, topic[rank <= m.cutoff])


def precision(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    return hits_at(rl, m) / m.cutoff


def recall(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    return _div(hits_at(rl, m), rl.num_rel(m.rel))


def success(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    return (hits_at(rl, m) > 0).astype(np.float64)


def f1(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    hits = hits_at(rl, m)
    p, r = hits / m.cutoff, _div(hits, rl.num_rel(m.rel))
    return _div(2.0 * p * r, p + r)


# trec_eval's set measures: the whole returned list as one set (ir_measures' SetP, SetR, SetF,
# SetAP). Each is 0 where its denominator is.
def _set_counts(rl: RankedLabels, m):
    return rl.num_ret().astype(np.int64), rl.num_rel(m.rel).astype(np.int64), rl.relevant(m.rel)[3].astype(np.int64)


def set_precision(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    ret, _, rel_ret = _set_counts(rl, m)
    return np.where(ret > 0, rel_ret / np.maximum(ret, 1), 0.0)


def set_recall(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    _, R, rel_ret = _set_counts(rl, m)
    return np.where(R > 0, rel_ret / np.maximum(R, 1), 0.0)


def set_f(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    """trec_eval's set_F: (beta + 1) P R / (beta P + R) over the set, beta the measure's (1.0:
    the harmonic mean), or trec_eval's parameter when given (set_F.0.5; any number atof reads),
    0 when nothing relevant is returned."""
    beta = m.params[0] if m.params else m.beta
    ret, R, rel_ret = _set_counts(rl, m)
    P = rel_ret / np.maximum(ret, 1)
    Rc = rel_ret / np.maximum(R, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (beta + 1.0) * P * Rc / (beta * P + Rc)
    return np.where(rel_ret > 0, v, 0.0)


def set_ap(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    """trec_eval's set_map: set precision x set recall."""
    ret, R, rel_ret = _set_counts(rl, m)
    f = np.float64
    ok = (ret > 0) & (R > 0)
    return np.where(ok, rel_ret.astype(f) * rel_ret.astype(f) / np.maximum(ret.astype(f) * R.astype(f), 1.0), 0.0)


# trec_eval's measures that only `harness trec_eval` computes (harness.metrics.families: not offered)
def relative_precision(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    """trec_eval's relative_P@k: relevant in the top k / min(k, R), 0 without a relevant judged."""
    R = rl.num_rel(m.rel).astype(np.int64)
    return np.where(R > 0, hits_at(rl, m) / np.minimum(m.cutoff, np.maximum(R, 1)), 0.0)


def set_relative_precision(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    """trec_eval's set_relative_P: relevant retrieved / min(retrieved, R)."""
    ret, R, rel_ret = _set_counts(rl, m)
    return np.where((ret > 0) & (R > 0), rel_ret / np.maximum(np.minimum(ret, R), 1), 0.0)


def num_nonrel_judged_ret(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    topic, _, _ = rl.rows(0, m.rel)
    return _per_topic(rl, topic)


def utility(rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    """trec_eval's utility: a rel_ret + b nonrel_ret + c rel_not_ret + d nonrel_not_ret, the
    coefficients its parameters, the counts in C long arithmetic (the collection's size,
    ``rl.num_docs``, less the rest: int64 arrays wrap as a C long does)."""
    a, b, c, d = m.params or m.info.trec_defaults
    ret, R, rel_ret = _set_counts(rl, m)
    rest = np.int64(rl.num_docs) + rel_ret - ret - R
    f = np.float64
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0 is NaN, as in C
        return a * rel_ret.astype(f) + b * (ret - rel_ret).astype(f) + c * (R - rel_ret).astype(f) + d * rest.astype(f)
