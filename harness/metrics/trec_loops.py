"""trec_eval 9.0.8's measures that the registry has no kernel for, computed topic by topic in
trec_eval's arithmetic order (harness.metrics.trec_eval uses them): relstring, infAP, binG, G,
ndcg with gains by level, ndcg_rel, Rndcg. Each is a function of one topic's ranked labels (-1:
not in the qrels, -2: judged negative, "in the pool but unjudged"), the number of judged
documents at each relevance level >= 0, the relevance level (-l), the measure's parameters and
R; :data:`LOOPS` names them."""

from __future__ import annotations

import math

import numpy as np

from harness.metrics.kernels import RankedLabels

__all__ = ["LOOPS", "topic_lists"]


# trec_eval's loops for the measures the registry has no kernel for, each over one topic's
# ranked labels (-1: not in the qrels, -2: judged negative, "in the pool but unjudged") and the
# count of judged documents at each relevance level >= 0. Arithmetic in the same order as
# trec_eval's, so that every value is the same double.
def topic_lists(rl: RankedLabels, level: int):
    """(ranked labels, counts per level, R) of each topic of ``rl``, in its order."""
    seg_of = np.full(len(rl.topics), -1, dtype=np.int64)
    used = rl.seg_topic >= 0
    seg_of[rl.seg_topic[used]] = np.flatnonzero(used)
    R = rl.num_rel(level)
    for t in range(len(rl.topics)):
        s = seg_of[t]
        ranked = rl.labels[rl.seg_offsets[s] : rl.seg_offsets[s + 1]].tolist() if s >= 0 else []
        pool = rl.pool[rl.pool_offsets[t] : rl.pool_offsets[t + 1]]
        pool = pool[pool >= 0]
        levels = np.bincount(pool).tolist() if len(pool) else []
        yield ranked, levels, int(R[t])


def _div(a: float, b: float) -> float:
    """a / b as C computes it in doubles (no exception: inf, or NaN for 0/0)."""
    if b == 0.0:
        return math.nan if a == 0.0 or a != a else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _gains(levels: list[int], pairs: tuple) -> list[tuple[int, float, int]]:
    """(level, gain, judged documents at it), ordered by gain as trec_eval orders them: with
    qsort and a comparison that is the gains' difference truncated to an int, so gains less
    than 1 apart compare equal (and the comparison is not transitive: 0 = 0.5 = 1 > 0). The
    order is then the sorting algorithm's: glibc's merge sort (:func:`_glibc_msort`)."""
    gains = [[lv, g, 0] for lv, g in pairs]
    for i, n in enumerate(levels):
        for g in gains:
            if g[0] == i:
                g[2] = n
                break
        else:
            gains.append([i, float(i), n])
    return [tuple(g) for g in _glibc_msort(gains, lambda a, b: int(a[1] - b[1]))]


def _glibc_msort(items: list, cmp) -> list:
    """glibc's qsort as trec_eval 9.0.8 was built and tested with it (msort.c: a top-down merge
    sort, the first half of n // 2 items, taking from the first run while cmp <= 0). With a
    comparison that is not a total order, its result is this algorithm's, so it is followed
    step by step. (glibc 2.37 moved qsort to introsort; trec_eval's gain-ordering then differs
    for gains less than 1 apart, which none of its tests use.)"""
    n = len(items)
    if n <= 1:
        return list(items)
    n1 = n // 2
    a, b = _glibc_msort(items[:n1], cmp), _glibc_msort(items[n1:], cmp)
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        if cmp(a[i], b[j]) <= 0:
            out.append(a[i])
            i += 1
        else:
            out.append(b[j])
            j += 1
    return out + a[i:] + b[j:]


def _gain_table(gains) -> dict:
    """Each level's gain: the first entry of ``gains`` with that level, as trec_eval's lookup
    finds it (a label without one gains 0.0)."""
    table: dict = {}
    for lv, g, _ in gains:
        table.setdefault(lv, g)
    return table


class _Ideal:
    """The ideal ranking's gains, from the highest gain level down, level by level."""

    def __init__(self, gains):
        self.gains, self.cur, self.at = gains, len(gains) - 1, 0
        self.gain = gains[self.cur][1] if self.cur >= 0 else 0.0

    def next(self) -> float:
        self.at += 1
        while self.cur >= 0 and self.at > self.gains[self.cur][2]:
            self.at = 1
            self.cur -= 1
            self.gain = self.gains[self.cur][1] if self.cur >= 0 else 0.0
        return self.gain


def _ndcg(ranked, levels, level, pairs, R) -> float:
    gains = _gains(levels, pairs)
    gain_of = _gain_table(gains).get
    ideal = _Ideal(gains)
    dcg = ideal_dcg = 0.0
    i, n = 0, len(ranked)
    while i < n and ideal.gain > 0.0:
        g = gain_of(ranked[i], 0.0)
        if g != 0:
            dcg += g / math.log2(i + 2)
        if ideal.next() > 0.0:
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    while i < n:
        g = gain_of(ranked[i], 0.0)
        if g != 0:
            dcg += g / math.log2(i + 2)
        i += 1
    while ideal.gain > 0.0:
        if ideal.next() > 0.0:
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    return dcg / ideal_dcg if ideal_dcg > 0.0 else 0.0


def _ndcg_rel(ranked, levels, level, pairs, R) -> float:
    gains = _gains(levels, pairs)
    gain_of = _gain_table(gains).get
    ideal = _Ideal(gains)
    dcg = ideal_dcg = total = 0.0
    rel_ret = rel = 0
    i, n = 0, len(ranked)
    while i < n and ideal.gain > 0.0:
        g = gain_of(ranked[i], 0.0)
        if g != 0:
            dcg += g / math.log2(i + 2)
        if ideal.next() > 0.0:
            rel += 1
            ideal_dcg += ideal.gain / math.log2(i + 2)
        if g > 0:
            total += _div(dcg, ideal_dcg)
            rel_ret += 1
        i += 1
    while i < n:
        g = gain_of(ranked[i], 0.0)
        if g != 0:
            dcg += g / math.log2(i + 2)
        if g > 0:
            total += _div(dcg, ideal_dcg)
            rel_ret += 1
        i += 1
    while ideal.gain > 0.0:
        if ideal.next() > 0.0:
            rel += 1
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    total += _div(float(rel - rel_ret) * dcg, ideal_dcg)
    return _div(total, rel) if total > 0.0 else 0.0


def _rndcg(ranked, levels, level, pairs, R) -> float:
    if R == 0:
        return 0.0
    gains = _gains(levels, pairs)
    gain_of = _gain_table(gains).get
    ideal = _Ideal(gains)
    old = ideal.gain
    dcg = ideal_dcg = total = 0.0
    changes = 0
    i, n = 0, len(ranked)
    while i < n and ideal.gain > 0.0:
        g = gain_of(ranked[i], 0.0)
        ideal.next()
        if old != ideal.gain:
            if ideal_dcg > 0.0:
                total += dcg / ideal_dcg
                changes += 1
            old = ideal.gain
        if g != 0:
            dcg += g / math.log2(i + 2)
        if ideal.gain > 0.0:
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    if i < n:
        while i < n:
            g = gain_of(ranked[i], 0.0)
            if g != 0:
                dcg += g / math.log2(i + 2)
            i += 1
        if ideal_dcg > 0.0:
            total += dcg / ideal_dcg
            changes += 1
    while ideal.gain > 0.0:
        ideal.next()
        if old != ideal.gain:
            if ideal_dcg > 0.0:
                total += dcg / ideal_dcg
                changes += 1
            old = ideal.gain
        if ideal.gain > 0.0:
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    return _div(total, changes)


def _g(ranked, levels, level, pairs, R) -> float:
    gains = _gains(levels, pairs)
    gain_of = _gain_table(gains).get
    ideal = _Ideal(gains)
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    min_cost = 1.0
    i, n = 0, len(ranked)
    while i < n and ideal.gain > 0.0:
        g = gain_of(ranked[i], 0.0)
        sum_results += g
        ideal.next()
        if ideal.gain > 0.0:
            sum_ideal += ideal.gain
        sum_cost += ideal.gain if ideal.gain >= min_cost else min_cost
        if g != 0:
            results_g += g / math.log2(2 + sum_cost - sum_results)
        i += 1
    while i < n:
        g = gain_of(ranked[i], 0.0)
        sum_results += g
        sum_cost += min_cost
        if g != 0:
            results_g += g / math.log2(2 + sum_cost - sum_results)
        i += 1
    while ideal.gain > 0.0:
        ideal.next()
        if ideal.gain > 0.0:
            sum_ideal += ideal.gain
        i += 1
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0


def _bin_g(ranked, levels, level, pairs, R) -> float:
    total, rel = 0.0, 0
    for i, label in enumerate(ranked):
        if label >= level:
            rel += 1
            total += 1.0 / math.log2(3 + i - rel)
    return total / R if rel else 0.0


def _inf_ap(ranked, levels, level, pairs, R) -> float:
    eps = 0.00001  # trec_eval's INFAP_EPSILON
    inf_ap, rel, nonrel, unjudged = 0.0, 0, 0, 0
    for j, label in enumerate(ranked):
        if label == -1:  # not in the pool
            continue
        if label == -2:  # in the pool, unjudged
            unjudged += 1
            continue
        if label < level:
            nonrel += 1
            continue
        rel += 1
        if j == 0:
            inf_ap += 1.0
        else:
            fj = float(j)
            inf_ap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel + unjudged) / fj) * (
                (rel - 1 + eps) / (rel - 1 + nonrel + 2 * eps)
            )
    return inf_ap / R if R else inf_ap


def _relstring(ranked, levels, level, params, R) -> str:
    n = max(0, min(int(params[0]), len(ranked)))
    return "".join(
        ">" if v > 9 else str(v) if v >= 0 else "-" if v == -1 else "." if v == -2 else "<" for v in ranked[:n]
    )


LOOPS = {
    "ndcg": _ndcg,
    "G": _g,
    "ndcg_rel": _ndcg_rel,
    "Rndcg": _rndcg,
    "infAP": _inf_ap,
    "binG": _bin_g,
    "relstring": _relstring,
}
