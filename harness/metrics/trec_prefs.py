"""trec_eval 9.0.8's preference measures (``-R prefs`` or ``-R qrels_prefs``, ``-m all_prefs``),
topic by topic, in its arithmetic order: the provider of those families (harness.metrics.providers;
`harness trec_eval` prints them).

For one topic: the run's documents sorted by score (float32) descending, then doc id
*ascending* (trec_eval's preference code breaks ties the other way round from its qrels code),
cut at -M. Each judged document gets a position: the retrieved ones 0.. in rank order, the
others after them in doc-id order. Per judgment group (jg), its preferences A > B are counted
as fulfilled or not, both retrieved ("ret"), one retrieved ("imp"), neither ("notoccur"): a
group with one sub-group (jsg) as classes of equal ``rel_level``, a group with several as the
transitive closure of its sub-groups' preferences (a contradiction in it is an error, where
trec_eval aborts). A count matrix over all groups feeds the ``pair`` measures. The measures
are ratios of those counts; see :data:`PREFS_MEASURES` and docs/cli.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from harness.errors import DataError

__all__ = ["PREFS_MEASURES", "TopicPrefs", "topic_prefs", "prefs_value", "ranking", "PrefsData", "kernel"]

PREFS_MEASURES = (
    "prefs_num_prefs_poss prefs_num_prefs_ful prefs_num_prefs_ful_ret prefs_simp prefs_pair prefs_avgjg "
    "prefs_avgjg_Rnonrel prefs_simp_ret prefs_pair_ret prefs_avgjg_ret prefs_avgjg_Rnonrel_ret prefs_simp_imp "
    "prefs_pair_imp prefs_avgjg_imp"
).split()


@dataclass
class Group:
    """One judgment group's counts (trec_eval's JG) and what the Rnonrel measures re-count."""

    name: str
    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    notoccur: int = 0
    rel: int = 0
    rel_ret: int = 0
    nonrel: int = 0
    nonrel_ret: int = 0
    ecs: list = field(default_factory=list)  # [(rel_level, ranks ascending)] by level descending
    last_ec: int = 0  # where its last class starts in the topic's pool (TopicPrefs.pool)
    pa: np.ndarray | None = None  # several sub-groups: the closure, diagonal 0
    rel_array: np.ndarray | None = None  # several sub-groups: each position's level (-1: none)


@dataclass
class TopicPrefs:
    """One topic's preference counts: its groups, the count matrix, the judged documents
    (``judged``) and how many of them were retrieved (``judged_ret``)."""

    qid: str
    groups: list
    counts: np.ndarray
    judged: int
    judged_ret: int
    docnos: list  # position -> doc id
    # the classes' positions of every one-sub-group group, one after the other, as trec_eval
    # lays them out: prefs_avgjg_Rnonrel reads on past a group's last class into the next group
    pool: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    pair_sums: tuple | None = None  # _pairs, computed once


def _positions(ranked: list[str], prefs) -> tuple[dict[str, int], int, list[str]]:
    judged = {p.docno for p in prefs}
    pos: dict[str, int] = {}
    for d in ranked:
        if d in judged:
            pos[d] = len(pos)
    judged_ret = len(pos)
    for d in sorted(judged):
        if d not in pos:
            pos[d] = len(pos)
    docnos = [""] * len(pos)
    for d, i in pos.items():
        docnos[i] = d
    return pos, judged_ret, docnos


def topic_prefs(qid: str, ranked: list[str], prefs, source: str) -> TopicPrefs:
    """The counts of one topic: ``ranked`` its doc ids in trec_eval's order (after -M),
    ``prefs`` its Pref lines."""
    pos, njr, docnos = _positions(ranked, prefs)
    nj = len(pos)
    rows = sorted((p.jg, p.jsg, -p.rel_level, pos[p.docno]) for p in prefs)
    counts = np.zeros((nj, nj), dtype=np.int32)
    groups: list[Group] = []
    pool: list[np.ndarray] = []
    start = 0
    while start < len(rows):
        end = start
        while end < len(rows) and rows[end][0] == rows[start][0]:
            end += 1
        part = rows[start:end]
        g = Group(part[0][0])
        if len({r[1] for r in part}) > 1:
            _pa_group(g, part, nj, njr, counts, qid, docnos, source)
        else:
            _ec_group(g, part, njr, counts)
            g.last_ec = sum(len(p) for p in pool) + sum(len(a) for _, a in g.ecs[:-1])
            pool += [a for _, a in g.ecs]
        groups.append(g)
        start = end
    flat = np.concatenate(pool) if pool else np.zeros(0, dtype=np.int64)
    return TopicPrefs(qid, groups, counts, nj, njr, docnos, flat)


def _ec_group(g: Group, part, njr: int, counts: np.ndarray) -> None:
    for _, _, neg, rank in part:
        if not g.ecs or g.ecs[-1][0] != -neg:
            g.ecs.append((-neg, []))
        g.ecs[-1][1].append(rank)
    g.ecs = [(lv, np.array(r, dtype=np.int64)) for lv, r in g.ecs]
    for i, (lv, a) in enumerate(g.ecs):
        ret = int(np.count_nonzero(a < njr))
        if lv > 0.0:
            g.rel_ret += ret
            g.rel += len(a)
        else:
            g.nonrel_ret += ret
            g.nonrel += len(a)
        a_ret = a[a < njr]
        for _, b in g.ecs[i + 1 :]:
            counts[np.ix_(a, b)] += 1
            # a pair (a, b) is fulfilled when a ranks before b; both retrieved: ret, one: imp
            b_ret = b[b < njr]
            below = np.searchsorted(b_ret, a_ret)  # b retrieved before each retrieved a
            g.poss_ret += int(below.sum())
            g.ful_ret += len(a_ret) * len(b_ret) - int(below.sum())
            g.ful_imp += len(a_ret) * (len(b) - len(b_ret))
            g.poss_imp += (len(a) - len(a_ret)) * len(b_ret)
            g.notoccur += (len(a) - len(a_ret)) * (len(b) - len(b_ret))
    g.poss_ret += g.ful_ret
    g.poss_imp += g.ful_imp


def _pa_group(g: Group, part, nj: int, njr: int, counts: np.ndarray, qid, docnos, source) -> None:
    pa = np.zeros((nj, nj), dtype=bool)
    rel = np.full(nj, -1.0)
    for i, (_, jsg, neg, rank) in enumerate(part):
        level = -neg
        if (rel[rank] > 0.0 and level == 0.0) or (rel[rank] == 0.0 and level > 0.0):
            raise DataError(
                source,
                f"topic {qid!r}, judgment group {g.name!r}: document {docnos[rank]!r} has rel_level 0 "
                "(non-relevant) in one sub-group and above 0 in another; trec_eval stops on this too",
            )
        rel[rank] = level
        lower = [r[3] for r in part[i + 1 :] if r[1] == jsg and -r[2] != level]
        pa[rank, lower] = True
    closure = pa | np.eye(nj, dtype=bool)
    while True:
        nxt = (closure.astype(np.float32) @ closure.astype(np.float32)) > 0
        if (nxt == closure).all():
            break
        closure = nxt
    np.fill_diagonal(closure, False)
    both = closure & closure.T
    if both.any():
        i, j = (int(x) for x in np.argwhere(both)[0])
        raise DataError(
            source,
            f"topic {qid!r}, judgment group {g.name!r}: its sub-groups prefer {docnos[i]!r} to "
            f"{docnos[j]!r} and {docnos[j]!r} to {docnos[i]!r} (directly or through other documents); "
            "a judgment group must be consistent (put disagreeing users in different groups); "
            "trec_eval aborts on this",
        )
    g.pa, g.rel_array = closure, rel
    g.rel_ret = int(np.count_nonzero(rel[:njr] > 0.0))
    g.nonrel_ret = int(np.count_nonzero(rel[:njr] == 0.0))
    g.rel = g.rel_ret + int(np.count_nonzero(rel[njr:] > 0.0))
    g.nonrel = g.nonrel_ret + int(np.count_nonzero(rel[njr:] == 0.0))
    top = closure[:njr]
    g.poss_ret = int(np.count_nonzero(np.tril(top[:, :njr], -1)))
    g.ful_ret = int(np.count_nonzero(np.triu(top[:, :njr], 1)))
    g.ful_imp = int(np.count_nonzero(top[:, njr:]))
    g.poss_imp = int(np.count_nonzero(closure[njr:, :njr]))
    g.notoccur = int(np.count_nonzero(closure[njr:, njr:]))
    counts += closure
    g.poss_ret += g.ful_ret
    g.poss_imp += g.ful_imp


# ------------------------------------------------------------------------------ the measures
def _div(a: float, b: float) -> float:
    """a / b in C doubles: 0/0 is the x86 NaN (sign bit set)."""
    if b == 0.0:
        return -math.nan if a == 0.0 else math.copysign(math.inf, a)
    return a / b


def _avg_over_groups(tp: TopicPrefs, parts) -> float:
    total = 0.0
    for g in tp.groups:
        ful, poss = parts(g)
        if poss:
            total += ful / poss
    return total / len(tp.groups) if total > 0.0 else 0.0


def _pairs(tp: TopicPrefs) -> tuple[float, float, int, int, int]:
    """For the pair measures: the sums of each pair's fulfilled share, over the pairs both
    retrieved (s1) and then those with one retrieved (s12), added in trec_eval's loop order
    (row by row), and the number of pairs with a preference in each of the three regions."""
    if tp.pair_sums is None:
        c, njr = tp.counts.astype(np.int64), tp.judged_ret
        ratios, n = [], []
        for cij, cji, upper in ((c[:njr, :njr], c[:njr, :njr].T, True), (c[:njr, njr:], c[njr:, :njr].T, False)):
            mask = (cij > 0) | (cji > 0)
            if upper:
                mask = np.triu(mask, 1)
            n.append(int(np.count_nonzero(mask)))
            ratios.append(cij[mask] / (cij[mask] + cji[mask]))
        tail = c[njr:, njr:]
        n.append(int(np.count_nonzero(np.triu((tail > 0) | (tail.T > 0), 1))))
        run = np.cumsum(np.concatenate(ratios))
        s1 = float(run[n[0] - 1]) if n[0] else 0.0
        s12 = float(run[-1]) if len(run) else 0.0
        tp.pair_sums = (s1, s12, *n)
    return tp.pair_sums


def _pair(tp: TopicPrefs, regions: int) -> float:
    s1, s12, n1, n2, n3 = _pairs(tp)
    total, pairs = (s1, n1) if regions == 1 else (s12, n1 + n2 + (n3 if regions == 3 else 0))
    return total / pairs if pairs else 0.0


def _rnonrel(tp: TopicPrefs, g: Group, ret_only: bool) -> tuple[int, int]:
    """(fulfilled, possible) of prefs_avgjg_Rnonrel (``ret_only``: _ret) for one group."""
    njr = tp.judged_ret
    R, N = (g.rel_ret, g.nonrel_ret) if ret_only else (g.rel, g.nonrel)
    if R >= N:
        if ret_only:
            return g.ful_ret + g.rel_ret * (R - N), g.poss_ret + g.rel * (R - N)
        ful = g.ful_ret + g.ful_imp + g.rel_ret * (R - N)
        return ful, g.poss_ret + g.poss_imp + g.notoccur + g.rel * (R - N)
    if g.pa is None:
        return _rnonrel_ec(tp, g, R, ret_only)
    # several sub-groups: the non-relevant documents after the first num_rel of them are left out
    limit = njr if ret_only else tp.judged
    assert g.rel_array is not None  # set with g.pa: several sub-groups
    zero = g.rel_array == 0.0
    seen, first = 0, limit
    for i in range(limit):
        if zero[i]:
            seen += 1
            if seen == g.rel + 1:
                first = i
                break
    keep = ~(zero & (np.arange(tp.judged) >= first))
    a = g.pa & keep[:, None] & keep[None, :]
    ful = int(np.count_nonzero(np.triu(a[:njr, :njr], 1)))
    poss = int(np.count_nonzero(np.tril(a[:njr, :njr], -1)))
    if not ret_only:
        ful += int(np.count_nonzero(a[:njr, njr:]))
        poss += int(np.count_nonzero(a[njr:, :]))
    return ful, poss + ful


def _rnonrel_ec(tp: TopicPrefs, g: Group, R: int, ret_only: bool) -> tuple[int, int]:
    njr = tp.judged_ret
    # the first R of the last class: with negative levels (a class below 0.0) it may have
    # fewer, and trec_eval reads on into the next group's positions
    last = tp.pool[g.last_ec :]
    if ret_only:
        n = 0
        while n < R and (n >= len(last) or last[n] < njr):
            if n >= len(last):
                raise _past_the_class(tp, g)
            n += 1
        nonrel = last[:n]
        ecs = [a[a < njr] for _, a in g.ecs]  # sorted: trec_eval's loops stop at the first unretrieved
    else:
        if R > len(last):
            raise _past_the_class(tp, g)
        nonrel = last[:R]
        ecs = [a for _, a in g.ecs]
    ful = poss = 0

    def count(a, b):
        nonlocal ful, poss
        r1, r2 = a[:, None], b[None, :]
        hit = (r1 < r2) if ret_only else (r1 < r2) & (r1 < njr)
        k = int(np.count_nonzero(hit))
        ful += k
        poss += len(a) * len(b) - k

    for i, a in enumerate(ecs):
        for b in ecs[i + 1 : len(ecs) - 1]:
            count(a, b)
    for a in ecs:
        count(a, nonrel)
    return ful, poss + ful


def _past_the_class(tp: TopicPrefs, g: Group) -> DataError:
    return DataError(
        "-m prefs_avgjg_Rnonrel",
        f"topic {tp.qid!r}, judgment group {g.name!r}: its lowest rel_level class has fewer documents "
        "than the group has relevant ones (negative rel_levels make a class below 0.0), and trec_eval "
        "9.0.8 then reads past the topic's judgments in memory; the harness does not guess that value "
        "(give non-relevant documents rel_level 0, as the prefs format asks)",
    )


def prefs_value(tp: TopicPrefs, name: str) -> float:
    """The measure ``name`` (one of :data:`PREFS_MEASURES`) for one topic."""
    gs = tp.groups
    if name == "prefs_num_prefs_poss":
        return float(sum(g.poss_ret + g.poss_imp + g.notoccur for g in gs))
    if name == "prefs_num_prefs_ful":
        return float(sum(g.ful_ret + g.ful_imp for g in gs))
    if name == "prefs_num_prefs_ful_ret":
        return float(sum(g.ful_ret for g in gs))
    if name in ("prefs_simp", "prefs_simp_ret", "prefs_simp_imp"):
        ful = sum(g.ful_ret + (0 if name == "prefs_simp_ret" else g.ful_imp) for g in gs)
        poss = sum(
            g.poss_ret + (0 if name == "prefs_simp_ret" else g.poss_imp) + (g.notoccur if name == "prefs_simp" else 0)
            for g in gs
        )
        return ful / poss if poss else 0.0
    if name == "prefs_avgjg":
        return _avg_over_groups(tp, lambda g: (g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp + g.notoccur))
    if name == "prefs_avgjg_ret":
        return _avg_over_groups(tp, lambda g: (g.ful_ret, g.poss_ret))
    if name == "prefs_avgjg_imp":
        return _avg_over_groups(tp, lambda g: (g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp))
    if name in ("prefs_pair", "prefs_pair_ret", "prefs_pair_imp"):
        return _pair(tp, {"prefs_pair": 3, "prefs_pair_ret": 1, "prefs_pair_imp": 2}[name])
    if name in ("prefs_avgjg_Rnonrel", "prefs_avgjg_Rnonrel_ret"):
        total = 0.0
        for g in gs:
            ful, poss = _rnonrel(tp, g, name.endswith("_ret"))
            total += _div(float(ful), float(poss))
        return total / len(gs) if total > 0.0 else 0.0
    raise AssertionError(name)


# ------------------------------------------------------------------------------ over a run
def ranking(run, qid: str, max_docs: int | None, ids_ascending: bool) -> list[str]:
    """The topic's doc ids as trec_eval ranks them: score as float32 descending, then doc id
    ascending (its preference code) or descending (its qrels code); the first ``max_docs``."""
    docs, scores = run.ranked(qid)
    with np.errstate(over="ignore"):  # a score beyond float32's range is inf, as C's (float) makes it
        sims = scores.astype(np.float32).tolist()
    order = sorted(range(len(docs)), key=lambda i: docs[i], reverse=not ids_ascending)
    order.sort(key=lambda i: -sims[i])  # stable: the doc-id order stays among equal scores
    if max_docs is not None:
        order = order[:max_docs]
    return [docs[i] for i in order]


class PrefsData:
    """A run's topics and their preference judgments, what the preference measures read: each
    topic's counts (:func:`topic_prefs`) computed once, when a measure first asks
    (``judgments``: harness.formats.prefs.PrefsJudgments)."""

    def __init__(self, run, judgments, topics: list[str], max_docs: int | None):
        self.run, self.judgments, self.topics, self.max_docs = run, judgments, list(topics), max_docs
        self._counts: dict[str, TopicPrefs] = {}

    def counts(self, qid: str) -> TopicPrefs:
        if qid not in self._counts:
            ranked = ranking(self.run, qid, self.max_docs, ids_ascending=True)
            self._counts[qid] = topic_prefs(qid, ranked, self.judgments.topics[qid], self.judgments.source)
        return self._counts[qid]


def kernel(data: PrefsData, m, nDCG_threshold: bool = False) -> np.ndarray:
    """The preference measure ``m`` (a family of :data:`PREFS_MEASURES`) of every topic of ``data``."""
    return np.array([prefs_value(data.counts(q), m.name) for q in data.topics], dtype=np.float64)
