"""trec_eval 9.0.8's measures built on running sums over each topic's ranks (infAP, binG, G,
ndcg with gains by level, ndcg_rel, Rndcg, yaap, relstring), computed for every topic at once.

trec_eval adds each topic's terms in a loop (``+=`` over its ranks). Here every running sum is
:func:`seg_cumsum`, which adds each topic's terms one after the other from 0.0, and every
elementwise expression is the loop's own, so each value is the same double as the loop's: the
loops, topic by topic, are the tests' oracle (tests/trec_loops.py; tests/test_trec_segments.py
compares every value). Measured on 10M run lines (10,000 topics, all_trec's defaults, 2 cores at
load ~2.5-3.3): G, infAP, ndcg_rel, Rndcg, binG and relstring took 2.35 s topic by topic, 0.23 s
here.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from harness.errors import DataError
from harness.metrics.c_numbers import X86_NAN, c_int_of, c_long, glibc_msort, log2_ranks
from harness.metrics.c_numbers import c_log2 as _c_log2_one
from harness.metrics.ranked import RankedLabels

__all__ = ["VECTORISED", "segment_values", "seg_cumsum", "kernel", "gain_cmp"]

_BUDGET = 1 << 22  # padded cells per block of seg_cumsum (32 MB of float64)
# Counters of judged documents per topic and level 0..highest label (1 GiB of int64): trec_eval
# allocates the same per topic, and with a label of 2**40 refuses every measure ("Can't calculate
# measure"); numpy would ask for terabytes. Beyond this, the measures that need them are refused.
_LEVEL_COUNTERS = 1 << 27


def seg_cumsum(x: np.ndarray, off: np.ndarray) -> np.ndarray:
    """The running sums of ``x`` restarting at each segment ``x[off[t]:off[t + 1]]``, each
    segment's terms added in order from 0.0 (as a C loop does; a global cumsum less the sum
    before the segment would round differently). Segments, by length, are laid out as the rows
    of a zero-padded block whose np.cumsum runs along each row (np.cumsum adds in order; adding
    the padding's 0.0 changes no double)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty(len(x))
    lens = np.diff(off)
    order = np.argsort(lens, kind="stable")
    sl = lens[order]
    i, T = int(np.searchsorted(sl, 1)), len(lens)  # empty segments have nothing to add
    while i < T:
        # the topics i..j-1 (by length) make one block of at most _BUDGET cells (or one topic)
        cells = np.arange(1, T - i + 1) * sl[i:]
        j = i + max(1, int(np.searchsorted(cells, _BUDGET, side="right")))
        ts = order[i:j]
        bl = sl[i:j]
        width = int(bl[-1])
        idx: slice | np.ndarray  # the segments' positions: one slice when they are adjacent
        if len(ts) == 1 or (np.diff(ts) == 1).all():
            idx = slice(int(off[ts[0]]), int(off[ts[-1] + 1]))
        else:
            starts = off[ts]
            first = np.zeros(len(ts), dtype=np.int64)
            np.cumsum(bl[:-1], out=first[1:])
            idx = np.repeat(starts - first, bl) + np.arange(int(bl.sum()))
        if bl[0] == width:  # segments of one length (a run's usual depth): no padding
            out[idx] = np.cumsum(x[idx].reshape(len(ts), width), axis=1).ravel()
        else:
            valid = np.arange(width) < bl[:, None]
            block = np.zeros((len(ts), width))
            block[valid] = x[idx]
            np.cumsum(block, axis=1, out=block)
            out[idx] = block[valid]
        i = j
    return out


def _seg_sum(x: np.ndarray, off: np.ndarray) -> np.ndarray:
    """Each segment's sum, added in order from 0.0 (0.0 for an empty segment; never -0.0: the
    loop's sum starts at 0.0, and 0.0 + -0.0 is 0.0)."""
    cs = seg_cumsum(x, off)
    out = np.zeros(len(off) - 1)
    ne = off[1:] > off[:-1]
    out[ne] = cs[off[1:][ne] - 1] + 0.0
    return out


def _offsets(tid: np.ndarray, T: int) -> np.ndarray:
    off = np.zeros(T + 1, dtype=np.int64)
    np.cumsum(np.bincount(tid, minlength=T), out=off[1:])
    return off


def _div(a, b) -> np.ndarray:
    """a / b elementwise as C divides doubles on x86: inf, and for 0/0 the NaN with its sign
    bit set."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    zero = b == 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        q = a / np.where(zero, 1.0, b)
        special = np.where(a != a, a, np.where(a == 0.0, X86_NAN, np.copysign(np.inf, a) * np.copysign(1.0, b)))
    return np.where(zero, special, q)


class _Rows:
    """Every evaluated topic's ranked labels, in topic order: ``labels`` (flat), ``off`` (T+1),
    and the judged documents per level. The measures read a few rows of each topic (its
    relevant or non-zero-gain ones): :meth:`at` places those, no array of every row's topic and
    rank is built (at 10M rows, those took 0.3 s)."""

    def __init__(self, rl: RankedLabels):
        T = len(rl.topics)
        used = rl.seg_topic >= 0
        seg_len = np.diff(rl.seg_offsets)
        lens = np.zeros(T, dtype=np.int64)
        lens[rl.seg_topic[used]] = seg_len[used]
        if used.all():
            self.labels = rl.labels[int(rl.seg_offsets[0]) : int(rl.seg_offsets[-1])]
        else:
            self.labels = rl.labels[np.repeat(used, seg_len)]
        self.T = T
        self.off = np.zeros(T + 1, dtype=np.int64)
        np.cumsum(lens, out=self.off[1:])
        self.lens = lens
        pool_topic = rl._pool_topic()
        judged = rl.pool >= 0
        width = int(rl.pool.max(initial=-1)) + 1
        if T * width > _LEVEL_COUNTERS:
            raise DataError(
                "qrels",
                f"a relevance label of {width - 1:,}: trec_eval's measures infAP, G, binG, ndcg_rel, Rndcg and "
                f"ndcg with gains count the judged documents of every level from 0 to the highest label, "
                f"{T * width:,} counters for {T:,} topic{'s' if T != 1 else ''} (at most {_LEVEL_COUNTERS:,}); relabel the "
                "judgments (e.g. to 0-4) or leave these measures out",
            )
        counts = np.bincount(pool_topic[judged] * width + rl.pool[judged], minlength=T * width).reshape(T, width)
        # L: the topic's levels 0..its highest judged level (np.bincount of its judged labels)
        nz = counts > 0
        self.L = np.where(nz.any(axis=1), width - np.argmax(nz[:, ::-1], axis=1), 0) if width else np.zeros(T, np.int64)
        self.counts = counts
        self.cache: dict = {}

    def at(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(topic, 0-based rank) of each of the (sorted) ``rows``."""
        tid = np.searchsorted(self.off, rows, side="right") - 1
        return tid, rows - self.off[tid]


def _rows(rl: RankedLabels) -> _Rows:
    if "trec_rows" not in rl._cache:
        rl._cache["trec_rows"] = _Rows(rl)
    return rl._cache["trec_rows"]


def gain_cmp(a, b) -> int:
    """trec_eval's comp_gain: the difference of two entries' gains (their item 1), cast to a
    C int, so gains less than 1 apart compare equal (and the comparison is not transitive:
    0 = 0.5 = 1 > 0)."""
    return c_int_of(a[1] - b[1])


def _gain_order(L: int, pairs: tuple) -> list[tuple[int, float, int]]:
    """trec_eval's gain table for a topic with judged levels 0..L-1: the ``pairs`` (level,
    gain) as given, then each level without one at a gain of itself, in the order trec_eval's
    qsort leaves them (:func:`gain_cmp` is no total order, so the order is glibc's merge sort's,
    and depends on L, not on the counts). Each entry is (level, gain, level whose judged
    documents it counts, -1 for none: a level given twice counts them at its first entry)."""
    entries = [[lv, g, -1] for lv, g in pairs]
    for i in range(L):
        for e in entries:
            if e[0] == i:
                e[2] = i
                break
        else:
            entries.append([i, float(i), i])
    return [(lv, g, c) for lv, g, c in glibc_msort(entries, gain_cmp)]


def _gains(rows: _Rows, pairs: tuple):
    """(the rows whose gain is not 0.0, their gains, the ideal gains flat, their offsets per
    topic, each topic's gain held before the first step). A ranked document gains what the
    first entry of its level in the topic's gain table gives (0.0 without one); the ideal
    ranking takes the table's gains from the highest down, each as many times as its level
    has judged documents, up to and including the first gain that is not positive."""
    key = ("gains", pairs)
    if key in rows.cache:
        return rows.cache[key]
    orders = {L: _gain_order(L, pairs) for L in set(rows.L.tolist())}
    lab = rows.labels
    lo, hi = min(int(lab.min(initial=0)), 0), max(int(lab.max(initial=0)), 0)
    levels = [lv for lv, _ in pairs]
    if len(set(levels)) == len(levels):  # one entry per level: the same lookup for every topic
        lut = np.zeros(hi - lo + 1)  # over the labels' range: no row holds a level outside it
        lut[-lo:] = np.arange(hi + 1, dtype=np.float64)  # a level >= 0 without a pair gains itself
        for lv, g in pairs:
            if lo <= lv <= hi:
                lut[lv - lo] = g
        if not pairs:  # the gains are the levels: the non-zero ones are the labels above 0
            nz = np.flatnonzero(lab > 0)
        else:
            nz = np.flatnonzero((lut != 0.0)[lab.astype(np.int64) - lo])
        g_nz = lut[lab[nz].astype(np.int64) - lo]
    else:
        nz, g_nz = _gains_by_table(rows, orders, lo, hi)
    run_g, run_n, first = [], [], np.zeros(rows.T)
    counts = rows.counts.tolist()
    for t, L in enumerate(rows.L.tolist()):
        order = orders[L]
        f = first[t] = order[-1][1] if order else 0.0
        gs, ns = [], []
        if f > 0.0:
            c_t = counts[t]
            for _, g, c in reversed(order):
                n = c_t[c] if c >= 0 else 0
                if not n:
                    continue
                if g > 0.0:
                    gs.append(g)
                    ns.append(n)
                else:
                    gs.append(g)
                    ns.append(1)
                    break
            else:
                gs.append(0.0)
                ns.append(1)
        run_g.append(gs)
        run_n.append(ns)
    lens = np.array([sum(ns) for ns in run_n], dtype=np.int64)
    ideal = np.repeat(
        np.array([g for gs in run_g for g in gs]), np.array([n for ns in run_n for n in ns], dtype=np.int64)
    )
    ioff = np.zeros(rows.T + 1, dtype=np.int64)
    np.cumsum(lens, out=ioff[1:])
    rows.cache[key] = out = (nz, g_nz, ideal, ioff, first)
    return out


def _gains_by_table(rows: _Rows, orders: dict, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows of non-zero gain, their gains) when a level was given two gains: the one that
    counts is its first in the sorted table, whose order depends on the topic's levels (L), so
    each row looks its gain up in the table of its topic's L (one lookup table per L)."""
    Ls = sorted(orders)
    luts = np.zeros((len(Ls), hi - lo + 1))
    for i, L in enumerate(Ls):
        table: dict = {}
        for lv, g, _ in orders[L]:
            table.setdefault(lv, g)
        for lv, g in table.items():
            if lo <= lv <= hi:
                luts[i, lv - lo] = g
    which = np.searchsorted(np.array(Ls, dtype=np.int64), rows.L)
    gain = luts[np.repeat(which, rows.lens), rows.labels.astype(np.int64) - lo]
    nz = np.flatnonzero(gain != 0.0)
    return nz, gain[nz]


def _ideal_pos(ioff: np.ndarray):
    itid = np.repeat(np.arange(len(ioff) - 1), np.diff(ioff))
    return itid, np.arange(int(ioff[-1])) - ioff[itid]


class _Dcg:
    """The running dcg of every topic, kept at its rows of non-zero gain (``rows``, their
    ``tid`` and ``pos``; ``cs``: the sum after each; ``off``: each topic's share): where the
    gain is 0.0 the sum does not change."""

    def __init__(self, rows: _Rows, pairs: tuple):
        self.rows = rows
        self.nz, g, _, _, _ = _gains(rows, pairs)
        self.tid, self.pos = rows.at(self.nz)
        self.g = g
        self.off = _offsets(self.tid, rows.T)
        self.cs = seg_cumsum(g / log2_ranks(int(rows.lens.max(initial=0)))[self.pos], self.off)

    def final(self) -> np.ndarray:
        return _last_of(self.cs, self.off)

    def before(self, t: np.ndarray, c: np.ndarray) -> np.ndarray:
        """The sum of topic t over its first c ranks."""
        k = np.searchsorted(self.nz, self.rows.off[t] + c) - 1
        if not len(self.cs):
            return np.zeros(len(t))
        return np.where(k >= self.off[t], self.cs[np.clip(k, 0, len(self.cs) - 1)], 0.0)


def _dcg_run(rows: _Rows, pairs: tuple) -> _Dcg:
    key = ("dcg", pairs)
    if key not in rows.cache:
        rows.cache[key] = _Dcg(rows, pairs)
    return rows.cache[key]


def _ideal_dcg(rows: _Rows, pairs: tuple) -> np.ndarray:
    key = ("idcg", pairs)
    if key not in rows.cache:
        _, _, ideal, ioff, _ = _gains(rows, pairs)
        _, ipos = _ideal_pos(ioff)
        rows.cache[key] = seg_cumsum(
            np.where(ideal > 0.0, ideal, 0.0) / log2_ranks(len(ipos) and int(ipos.max()) + 1)[ipos], ioff
        )
    return rows.cache[key]


def _last_of(cs: np.ndarray, off: np.ndarray) -> np.ndarray:
    out = np.zeros(len(off) - 1)
    ne = off[1:] > off[:-1]
    out[ne] = cs[off[1:][ne] - 1]
    return out


def _ndcg(rows, level, pairs, R):
    dcg = _dcg_run(rows, pairs).final()
    ideal_dcg = _last_of(_ideal_dcg(rows, pairs), _gains(rows, pairs)[3])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ideal_dcg > 0.0, dcg / np.where(ideal_dcg > 0.0, ideal_dcg, 1.0), 0.0)


def _ndcg_rel(rows, level, pairs, R):
    _, _, ideal, ioff, _ = _gains(rows, pairs)
    dcg, idcg = _dcg_run(rows, pairs), _ideal_dcg(rows, pairs)
    itid, _ = _ideal_pos(ioff)
    rel = np.bincount(itid[ideal > 0.0], minlength=rows.T)
    positive = dcg.g > 0.0
    htid, hpos = dcg.tid[positive], dcg.pos[positive]
    steps = np.diff(ioff)[htid]
    if len(idcg):
        at = np.where(steps > 0, idcg[np.clip(ioff[htid] + np.minimum(hpos, steps - 1), 0, len(idcg) - 1)], 0.0)
    else:
        at = np.zeros(len(htid))
    with np.errstate(divide="ignore", invalid="ignore"):
        total = _seg_sum(dcg.cs[positive] / at, _offsets(htid, rows.T))
    final_dcg, final_ideal = dcg.final(), _last_of(idcg, ioff)
    nh = np.bincount(htid, minlength=rows.T)
    with np.errstate(invalid="ignore"):
        total = total + _div((rel - nh).astype(np.float64) * final_dcg, final_ideal)
    return np.where(total > 0.0, _div(total, rel), 0.0)


def _before(cs: np.ndarray, off: np.ndarray, t: np.ndarray, k: np.ndarray) -> np.ndarray:
    """The running sum of topic t before its k-th term (0.0 for k = 0)."""
    if not len(cs):
        return np.zeros(len(t))
    return np.where(k > 0, cs[np.clip(off[t] + k - 1, 0, len(cs) - 1)], 0.0)


def _rndcg(rows, level, pairs, R):
    _, _, ideal, ioff, first = _gains(rows, pairs)
    dcg, idcg = _dcg_run(rows, pairs), _ideal_dcg(rows, pairs)
    itid, ipos = _ideal_pos(ioff)
    prev = np.empty(len(ideal))
    prev[1:] = ideal[:-1]
    prev[ipos == 0] = first[itid[ipos == 0]]
    ch = np.flatnonzero(ideal != prev)
    ct, ck = itid[ch], ipos[ch]
    ib = _before(idcg, ioff, ct, ck)
    keep = ib > 0.0
    ct, ck, ib = ct[keep], ck[keep], ib[keep]
    terms = dcg.before(ct, np.minimum(ck, rows.lens[ct])) / ib
    total = _seg_sum(terms, _offsets(ct, rows.T))
    count = np.bincount(ct, minlength=rows.T).astype(np.float64)
    T = np.arange(rows.T)
    steps = np.diff(ioff)
    ib_end = _before(idcg, ioff, T, steps)
    extra = (steps < rows.lens) & (ib_end > 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        last = dcg.final() / np.where(extra, ib_end, 1.0)
    total = np.where(extra, total + last, total)  # the ideal ranking ended before the run: its term last
    count += extra
    return np.where(R == 0, 0.0, _div(total, count))


def _g(rows, level, pairs, R):
    hit, g, ideal, ioff, _ = _gains(rows, pairs)
    htid, hpos = rows.at(hit)
    hoff = _offsets(htid, rows.T)
    # the sum of the gains at each hit: the running sum of the non-zero ones (a 0.0 added changes nothing)
    at = (2.0 + _cost_sums(rows, ideal, ioff, hit, htid, hpos)) - seg_cumsum(g, hoff)
    with np.errstate(divide="ignore", invalid="ignore"):
        results_g = _seg_sum(g / _c_log2(at), hoff)
    sum_ideal = _seg_sum(np.where(ideal > 0.0, ideal, 0.0), ioff)
    return np.where(sum_ideal > 0.0, _div(results_g, sum_ideal), 0.0)


def _cost_sums(rows, ideal, ioff, hit, htid, hpos) -> np.ndarray:
    """G's running sum of costs at the rows ``hit``: each rank costs the ideal gain at that
    rank (at least 1.0), 1.0 past the ideal ranking. Past it the sum grows by 1.0 a rank:
    added at once, which is the same double while the sums are whole numbers below 2**52
    (integer gains); otherwise rank by rank over every row (2-3x slower at 10M rows)."""
    steps = np.diff(ioff)
    m = np.minimum(rows.lens, steps)
    ic = seg_cumsum(np.where(ideal >= 1.0, ideal, 1.0), ioff)
    base = np.where(m > 0, ic[np.clip(ioff[:-1] + m - 1, 0, max(len(ic) - 1, 0))] if len(ic) else 0.0, 0.0)
    if not ((base == np.floor(base)) & (base < 2.0**52)).all():
        cost = np.ones(len(rows.labels))
        tid, pos = rows.at(np.arange(len(rows.labels)))
        inside = pos < m[tid]
        c = ideal[(ioff[tid] + pos)[inside]]
        cost[inside] = np.where(c >= 1.0, c, 1.0)
        return seg_cumsum(cost, rows.off)[hit]
    p, mt = hpos, m[htid]
    early = p < mt
    out = base[htid] + (p - mt + 1)
    out[early] = ic[ioff[htid[early]] + p[early]]
    return out


_LOG2_INT = np.zeros(0)


def _c_log2(x: np.ndarray) -> np.ndarray:
    """c_numbers.c_log2 (math.log2, the C library's) of each value: from a table of
    math.log2 at the whole numbers (G's arguments with gains that are whole numbers), by
    math.log2 itself for the rest (0.2 s per million values)."""
    global _LOG2_INT
    whole = (x == np.floor(x)) & (x >= 1.0) & (x < 1 << 24)
    top = int(x[whole].max(initial=0))
    if top >= len(_LOG2_INT):
        _LOG2_INT = np.array([-math.inf] + [math.log2(i) for i in range(1, max(top + 1, 2 * len(_LOG2_INT), 1024))])
    out = np.empty(len(x))
    out[whole] = _LOG2_INT[x[whole].astype(np.int64)]
    rest = np.flatnonzero(~whole)
    out[rest] = [_c_log2_one(v) for v in x[rest].tolist()]
    return out


def _hits(rows: _Rows, level: int):
    hit = np.flatnonzero(rows.labels >= level)
    htid, hpos = rows.at(hit)
    hoff = _offsets(htid, rows.T)
    k = np.arange(len(hit)) - hoff[htid]  # 0-based, among the topic's relevant
    return hit, htid, hpos, hoff, k


def _bin_g(rows, level, pairs, R):
    hit, htid, hpos, hoff, k = _hits(rows, level)
    s = _seg_sum(1.0 / log2_ranks(int(rows.lens.max(initial=0)))[hpos - k], hoff)
    return np.where(hoff[1:] > hoff[:-1], s / np.maximum(R, 1), 0.0)


def _count_before(where: np.ndarray, rows: _Rows, at: np.ndarray, tid: np.ndarray) -> np.ndarray:
    """How many of the rows ``where`` (sorted) lie in the topic ``tid`` of each row ``at``,
    before it."""
    return np.searchsorted(where, at) - np.searchsorted(where, rows.off[tid])


def _inf_ap(rows, level, pairs, R):
    eps = 0.00001  # trec_eval's INFAP_EPSILON
    ranked = rows.labels
    hit, htid, pos, hoff, k = _hits(rows, level)
    unjudged = _count_before(np.flatnonzero(ranked == -2), rows, hit, htid)
    nonrel = _count_before(np.flatnonzero((ranked >= 0) & (ranked < level)), rows, hit, htid)
    rel = k + 1
    j = pos.astype(np.float64)
    before = (rel - 1 + nonrel + unjudged).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (before / j) * ((rel - 1 + eps) / (rel - 1 + nonrel + 2 * eps))
    terms = np.where(pos == 0, 1.0, terms)
    inf_ap = _seg_sum(terms, hoff)
    return np.where(R > 0, inf_ap / np.maximum(R, 1), inf_ap)


def _yaap(rows, level, pairs, R):
    _, _, hpos, hoff, k = _hits(rows, level)
    s = _seg_sum((k + 1).astype(np.float64) / (hpos + 1).astype(np.float64), hoff)
    return np.array([math.log((1.0 + v) / (1.0 + float(r) - v)) for v, r in zip(s.tolist(), R.tolist())])


_CHARS = np.frombuffer(b"<.-0123456789>", dtype=np.uint8)  # labels < -2, -2, -1, 0..9, > 9


def _relstring(rows, level, params, R):
    text = _CHARS[np.clip(rows.labels, -3, 10) + 3].tobytes().decode("ascii")
    n = min(max(0, c_long(params[0])), 1 << 62)
    lo = rows.off[:-1]
    hi = np.minimum(rows.off[1:], lo + n).tolist()
    lo = lo.tolist()
    return np.array([text[a:b] for a, b in zip(lo, hi)], dtype=object)


VECTORISED = {
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
def segment_values(rl: RankedLabels, name: str, level: int, params: tuple) -> np.ndarray:
    """The measure ``name`` of :data:`VECTORISED` for every topic of ``rl`` at relevance level
    ``level``, with trec_eval's parameters ``params`` (gains by level, or relstring's length):
    float64 values (relstring: strings)."""
    rows = _rows(rl)
    R = rl.num_rel(level).astype(np.int64)
    return VECTORISED[name](rows, level, params, R)


def _kernel_values(name: str, rl: RankedLabels, m, nDCG_threshold: bool = False) -> np.ndarray:
    return segment_values(rl, name, m.rel, m.params or m.info.trec_defaults)


def kernel(name: str):
    """The kernel (rl, measure, nDCG_threshold) -> values of :data:`VECTORISED`'s ``name``, at
    the measure's relevance level, with its trec_eval parameters (its family's when it has
    none: gains = labels, relstring's 10 documents)."""
    return partial(_kernel_values, name)
