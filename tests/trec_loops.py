"""The tests' oracle for harness.metrics.trec_segments: trec_eval 9.0.8's measures with running
sums (relstring, infAP, binG, G, ndcg with gains by level, ndcg_rel, Rndcg, yaap), computed
topic by topic in trec_eval's arithmetic order, as its loops read. Each is a function of one
topic's ranked labels (-1: not in the qrels, -2: judged negative, "in the pool but unjudged"),
the number of judged documents at each relevance level >= 0, the relevance level (-l), the
measure's parameters and R; :data:`LOOPS` names them.

The harness computes these measures once, for every topic at once (trec_segments);
tests/test_trec_segments.py checks that each value is the same double as here. This module was
the harness's own implementation before that (harness/metrics/trec_loops.py): it runs in tests
only. It shares with the harness only C's primitives (harness.metrics.c_numbers: casts, log2,
glibc's merge sort) and trec_eval's gain comparison.
"""

from __future__ import annotations

import math

import numpy as np

from harness.metrics.c_numbers import X86_NAN, c_log2, c_long, glibc_msort, log2_ranks
from harness.metrics.ranked import RankedLabels
from harness.metrics.trec_segments import gain_cmp

__all__ = ["LOOPS", "topic_lists", "loop_values", "iprec_as_listed", "rprec_mult_as_listed", "utility"]


def topic_lists(rl: RankedLabels, level: int):
    """(ranked labels as an int64 array, counts per level, R) of each topic of ``rl``, in its
    order."""
    seg_of = np.full(len(rl.topics), -1, dtype=np.int64)
    used = rl.seg_topic >= 0
    seg_of[rl.seg_topic[used]] = np.flatnonzero(used)
    R = rl.num_rel(level)
    empty = np.zeros(0, dtype=np.int64)
    for t in range(len(rl.topics)):
        s = seg_of[t]
        ranked = rl.labels[rl.seg_offsets[s] : rl.seg_offsets[s + 1]] if s >= 0 else empty
        pool = rl.pool[rl.pool_offsets[t] : rl.pool_offsets[t + 1]]
        pool = pool[pool >= 0]
        levels = np.bincount(pool).tolist() if len(pool) else []
        yield ranked, levels, int(R[t])


# Within a topic, each running sum of trec_eval (dcg, the ideal dcg, the sums of G, the total of
# ndcg_rel) is a cumulative sum, which numpy adds in the same order, one element after the other
# (np.cumsum, never np.sum's pairwise sum or Python 3.12's compensated sum()); a term trec_eval
# skips (a zero gain) adds 0.0, which changes no double. log2 of the rank comes from a table of
# math.log2 (the C library's, as trec_eval's). Against loops written element by element, every
# value of 20,000 generated topics was the same double (but where those raised Python's
# ZeroDivisionError and C gives inf or NaN, as trec_eval prints them).
def _last(x: np.ndarray) -> float:
    """The running sum's final value (0.0 when nothing was added), from 0.0 as trec_eval's
    loops start it: 0.0 + -0.0 is 0.0, so such a sum is never -0.0 (G's gain over log2(0),
    -inf, is -0.0: the binary prints 0.0000)."""
    return float(np.cumsum(x)[-1]) + 0.0 if len(x) else 0.0


def _ranked_gains(ranked: np.ndarray, gains) -> np.ndarray:
    """Each ranked document's gain as trec_eval looks it up (0.0 for a label without one)."""
    table = _gain_table(gains)
    if not len(ranked):
        return np.zeros(0)
    lo = min(int(ranked.min()), min(table, default=0))
    hi = max(int(ranked.max()), max(table, default=0))
    lut = np.zeros(hi - lo + 1)
    for lv, g in table.items():
        lut[lv - lo] = g
    return lut[ranked - lo]


def _ideal(gains) -> tuple[np.ndarray, float]:
    """The ideal ranking's gains step by step as trec_eval's loops draw them, up to and
    including the first step whose gain is not positive (the loops stop after it), and the
    gain held before the first step. Level by level from the highest gain down, each level
    as many times as it has judged documents, then 0.0."""
    first = gains[-1][1] if gains else 0.0
    if not first > 0.0:
        return np.zeros(0), first
    steps = np.concatenate([np.repeat([g for _, g, _ in reversed(gains)], [c for _, _, c in reversed(gains)]), [0.0]])
    stop = int(np.argmax(~(steps > 0.0)))
    return steps[: stop + 1], first


def _div(a: float, b: float) -> float:
    """a / b as C computes it in doubles on x86 (no exception: inf, or for 0/0 the NaN with
    its sign bit set that glibc prints as -nan)."""
    if b == 0.0:
        if a != a:
            return a
        return -math.nan if a == 0.0 else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _gains(levels: list[int], pairs: tuple) -> list[tuple[int, float, int]]:
    """(level, gain, judged documents at it), ordered by gain as trec_eval orders them: with
    qsort and a comparison that is the gains' difference truncated to an int, so gains less
    than 1 apart compare equal (and the comparison is not transitive: 0 = 0.5 = 1 > 0). The
    order is then the sorting algorithm's: glibc's merge sort (:func:`glibc_msort`)."""
    gains = [[lv, g, 0] for lv, g in pairs]
    for i, n in enumerate(levels):
        for g in gains:
            if g[0] == i:
                g[2] = n
                break
        else:
            gains.append([i, float(i), n])
    return [tuple(g) for g in glibc_msort(gains, gain_cmp)]


def _gain_table(gains) -> dict:
    """Each level's gain: the first entry of ``gains`` with that level, as trec_eval's lookup
    finds it (a label without one gains 0.0)."""
    table: dict = {}
    for lv, g, _ in gains:
        table.setdefault(lv, g)
    return table


def _ndcg(ranked, levels, level, pairs, R) -> float:
    gains = _gains(levels, pairs)
    g = _ranked_gains(ranked, gains)
    ideal, _ = _ideal(gains)
    dcg = _last(g / log2_ranks(len(g)))
    ideal_dcg = _last(np.where(ideal > 0.0, ideal, 0.0) / log2_ranks(len(ideal)))
    return dcg / ideal_dcg if ideal_dcg > 0.0 else 0.0


def _ndcg_rel(ranked, levels, level, pairs, R) -> float:
    gains = _gains(levels, pairs)
    g = _ranked_gains(ranked, gains)
    ideal, _ = _ideal(gains)
    dcg = np.cumsum(g / log2_ranks(len(g)))  # after each rank
    ideal_dcg = np.cumsum(np.where(ideal > 0.0, ideal, 0.0) / log2_ranks(len(ideal)))
    rel = int(np.count_nonzero(ideal > 0.0))
    hit = np.flatnonzero(g > 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        # the ideal dcg at each rank: it stops growing after the ideal ranking's last step
        at = ideal_dcg[np.minimum(hit, len(ideal) - 1)] if len(ideal) else np.zeros(len(hit))
        total = _last(dcg[hit] / at)
    final_dcg = float(dcg[-1]) if len(dcg) else 0.0
    final_ideal = float(ideal_dcg[-1]) if len(ideal_dcg) else 0.0
    total += _div(float(rel - len(hit)) * final_dcg, final_ideal)
    return _div(total, rel) if total > 0.0 else 0.0


def _rndcg(ranked, levels, level, pairs, R) -> float:
    if R == 0:
        return 0.0
    gains = _gains(levels, pairs)
    g = _ranked_gains(ranked, gains)
    ideal, first = _ideal(gains)
    n, steps = len(g), len(ideal)
    dcg = np.concatenate([[0.0], np.cumsum(g / log2_ranks(n))])  # before each rank
    ideal_dcg = np.concatenate([[0.0], np.cumsum(np.where(ideal > 0.0, ideal, 0.0) / log2_ranks(steps))])
    # where the ideal gain changes, the ratio of the two sums before that step is added
    change = np.flatnonzero(ideal != np.concatenate([[first], ideal[:-1]]))
    change = change[ideal_dcg[change] > 0.0]
    terms = dcg[np.minimum(change, n)] / ideal_dcg[change]
    if steps < n and ideal_dcg[steps] > 0.0:  # the ideal ranking ended before the run
        terms = np.append(terms, dcg[n] / ideal_dcg[steps])
    return _div(_last(terms), float(len(terms)))


def _g(ranked, levels, level, pairs, R) -> float:
    gains = _gains(levels, pairs)
    g = _ranked_gains(ranked, gains)
    ideal, _ = _ideal(gains)
    n = len(g)
    min_cost = 1.0
    cost = np.full(n, min_cost)
    m = min(n, len(ideal))
    cost[:m] = np.where(ideal[:m] >= min_cost, ideal[:m], min_cost)
    sum_results, sum_cost = np.cumsum(g), np.cumsum(cost)
    hit = np.flatnonzero(g != 0.0)
    at = ((2.0 + sum_cost[hit]) - sum_results[hit]).tolist()
    with np.errstate(divide="ignore", invalid="ignore"):  # C's log2 and division: inf, NaN
        results_g = _last(g[hit] / np.array([c_log2(x) for x in at]))
    sum_ideal = _last(np.where(ideal > 0.0, ideal, 0.0))
    return _div(results_g, sum_ideal) if sum_ideal > 0.0 else 0.0


def _bin_g(ranked, levels, level, pairs, R) -> float:
    hit = np.flatnonzero(ranked >= level)
    if not len(hit):
        return 0.0
    # the k-th relevant document (k from 1) at rank i adds 1 / log2(3 + i - k)
    return _last(1.0 / log2_ranks(int(hit[-1]) + 1)[hit - np.arange(len(hit))]) / R


def _inf_ap(ranked, levels, level, pairs, R) -> float:
    eps = 0.00001  # trec_eval's INFAP_EPSILON
    pooled = ranked != -1
    unjudged = np.cumsum(ranked == -2) - (ranked == -2)  # before each rank
    nonrel = np.cumsum(pooled & (ranked >= 0) & (ranked < level))
    hit = np.flatnonzero(ranked >= level)
    rel = np.arange(1, len(hit) + 1)
    j = hit.astype(np.float64)
    before = (rel - 1 + nonrel[hit] + unjudged[hit]).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (before / j) * ((rel - 1 + eps) / (rel - 1 + nonrel[hit] + 2 * eps))
    terms = np.where(hit == 0, 1.0, terms)
    inf_ap = _last(terms)
    return inf_ap / R if R else inf_ap


def _yaap(ranked, levels, level, params, R) -> float:
    """Robertson's yet another AP: log((1 + s) / (1 + R - s)), s the sum of AP's precisions."""
    hit = np.flatnonzero(ranked >= level)
    s = _last(np.arange(1, len(hit) + 1, dtype=np.float64) / (hit + 1).astype(np.float64))
    return math.log((1.0 + s) / (1.0 + float(R) - s))


def _relstring(ranked, levels, level, params, R) -> str:
    n = max(0, min(c_long(params[0]), len(ranked)))
    return "".join(
        ">" if v > 9 else str(v) if v >= 0 else "-" if v == -1 else "." if v == -2 else "<" for v in ranked[:n].tolist()
    )


LOOPS = {
    "ndcg": _ndcg,
    "G": _g,
    "ndcg_rel": _ndcg_rel,
    "Rndcg": _rndcg,
    "infAP": _inf_ap,
    "binG": _bin_g,
    "relstring": _relstring,
    "yaap": _yaap,
}


# C's arithmetic, quietly: infinite gains (ndcg.1=1e400) make inf and NaN, which trec_eval prints
@np.errstate(divide="ignore", invalid="ignore", over="ignore")
def loop_values(rl: RankedLabels, name: str, level: int, params: tuple) -> np.ndarray:
    """LOOPS[name] for every topic of ``rl`` (relstring: strings, the rest float64)."""
    fn = LOOPS[name]
    values = [fn(ranked, levels, level, params, r) for ranked, levels, r in topic_lists(rl, level)]
    return np.array(values, dtype=object if name == "relstring" else np.float64)


# iprec_at_recall (and 11pt_avg's terms) and Rprec_mult at a list of levels, topic by topic, as
# trec_eval's loops take them: the oracle of harness.metrics.kernels.interpolated_precision and
# rprec_mult, levels out of order and beyond a C long included.
def _cuts(levels, R: np.ndarray) -> np.ndarray:
    """trec_eval's cut-off (long)(x * R + 0.9) of each level (rows) for each topic (columns)."""
    with np.errstate(invalid="ignore"):  # beyond int64, or NaN: LONG_MIN, as C's cast on x86-64
        return np.trunc(np.outer(np.asarray(levels, dtype=np.float64), R.astype(np.float64)) + 0.9).astype(np.int64)


def iprec_as_listed(rl: RankedLabels, level: int, levels) -> list[np.ndarray]:
    """iprec_at_recall's values (one array per level, 11pt_avg's terms) by trec_eval's loop,
    topic by topic: from the last level to the first, a level takes the interpolated precision
    when the relevant documents, counted down from the bottom of the ranking, reach its
    cut-off; a level passed over that way (its cut-off above the next one's), or left at the
    end, takes the precision at the top; levels whose cut-off exceeds the relevant retrieved,
    counted from the last until one does not, stay 0."""
    _, rank, _, nrr, first = rl.relevant(level)
    R, ret = rl.num_rel(level), rl.num_ret()
    cuts_all = _cuts(levels, R)
    out = np.zeros((len(levels), len(rl.topics)))
    for t in range(len(rl.topics)):
        cuts = cuts_all[:, t].tolist()
        n_rr, ranks = int(nrr[t]), rank[first[t] : first[t + 1]].tolist()
        best = float(n_rr) / float(ret[t]) if ret[t] else X86_NAN  # 0/0 without a document retrieved
        cur = len(cuts) - 1
        while cur >= 0 and cuts[cur] > n_rr:
            cur -= 1
        for j in range(n_rr, 0, -1):
            p = float(j) / float(ranks[j - 1])
            if best < p:
                best = p
            while cur >= 0 and cuts[cur] == j:
                out[cur, t] = best
                cur -= 1
        while cur >= 0:
            out[cur, t] = best
            cur -= 1
    return list(out)


def rprec_mult_as_listed(rl: RankedLabels, level: int, levels) -> list[np.ndarray]:
    """Rprec_mult's values by trec_eval's loop, topic by topic: from the last level down,
    those whose cut-off exceeds the retrieved get the relevant retrieved over the cut-off;
    then, ranks counted down from the last while relevant documents remain above, a level
    whose cut-off is the rank takes the precision there; a level passed over stays 0."""
    _, rank, _, nrr, first = rl.relevant(level)
    R, ret = rl.num_rel(level), rl.num_ret()
    cuts_all = _cuts(levels, R)
    out = np.zeros((len(levels), len(rl.topics)))
    for t in range(len(rl.topics)):
        cuts = cuts_all[:, t].tolist()
        n_rr, n_ret, relevant = int(nrr[t]), int(ret[t]), set(rank[first[t] : first[t + 1]].tolist())
        cur = len(cuts) - 1
        while cur >= 0 and cuts[cur] > n_ret:
            out[cur, t] = float(n_rr) / float(cuts[cur])
            cur -= 1
        rel_so_far, i = n_rr, n_ret
        while i > 0 and rel_so_far > 0:
            while cur >= 0 and i == cuts[cur]:
                out[cur, t] = float(rel_so_far) / float(i)
                cur -= 1
            if i in relevant:
                rel_so_far -= 1
            i -= 1
    return list(out)


def utility(rl: RankedLabels, level: int, coefficients: tuple, num_docs: int) -> np.ndarray:
    """trec_eval's utility a * rel_ret + b * nonrel_ret + c * rel_not_ret + d * nonrel_not_ret,
    topic by topic, the counts in C long arithmetic (wrapping at 64 bits)."""
    a, b, c, d = coefficients
    ret, R, nrr = rl.num_ret(), rl.num_rel(level), rl.relevant(level)[3]
    out = np.empty(len(rl.topics))
    for i in range(len(rl.topics)):
        n_ret, n_rel, n_rr = int(ret[i]), int(R[i]), int(nrr[i])
        rest = (num_docs + n_rr - n_ret - n_rel + 2**63) % 2**64 - 2**63
        out[i] = a * n_rr + b * (n_ret - n_rr) + c * (n_rel - n_rr) + d * rest
    return out
