"""evaluate(run, qrels, measures, policy) -> Evaluation: trec_eval's numbers, vectorised, and
beside them MS MARCO's official MRR (``MRR@10(msmarco)``, harness.metrics.msmarco) as its script
computes it.

Every policy that changes a number is a field of :class:`EvalPolicy`, echoed in reports, and
its effect is counted in :attr:`Evaluation.audit`.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from harness.errors import DataError
from harness.formats.qrels import Qrels
from harness.formats.run import Run
from harness.formats.tokenizer import worker_threads
from harness.metrics.c_numbers import sum_in_order
from harness.metrics.measures import Measure, parse_measure, parse_measures
from harness.metrics.msmarco import ranked_as_read
from harness.metrics.providers import MSMARCO, kernel, provider
from harness.metrics.ranked import NOT_JUDGED, POOL_UNJUDGED, RankedLabels
from harness.policies import EvalPolicy

__all__ = ["EvalPolicy", "Evaluation", "evaluate", "evaluate_labels", "rank_labels", "in_order", "AUDIT_COLUMNS"]

# What each counter of Evaluation.audit counts, in the order the reports' coverage audit shows them:
# the one definition (report.html's column headings, docs/semantics.md's table: scripts/gen_docs.py).
# Each name says what it counts: "ties_reordered" was a count of topics, not of ties.
AUDIT_COLUMNS = {
    "topics_in_run": "topics of the run, those without results included (a searched topic that matched nothing)",
    "topics_judged": "topics of the qrels (with a judgment, relevant or not)",
    "topics_evaluated": "topics in the means: the run's judged topics with results and, under missing_topics: "
    "zero, the judged topics it has none for",
    "evaluated_without_relevant": "evaluated topics whose judgments hold no relevant document (no label >= 1): "
    "AP, nDCG, P, recall and RR are 0 there, as in trec_eval",
    "judged_missing_from_run": "judged topics the run has no results for (absent from it, or present without any)",
    "judged_missing_scored_zero": "of those, the topics scored 0 and averaged in (missing_topics: zero, trec_eval -c)",
    "judged_missing_dropped": "of those, the topics left out of the means (missing_topics: drop)",
    "run_topics_without_judgments": "topics of the run the qrels do not judge: not evaluated, as in trec_eval",
    "topics_reordered": "topics whose ranking the tie policy changed: sorting by score descending (as "
    "single-precision floats, as trec_eval reads them), then doc id descending, moves at least one of their "
    "documents; a count of topics, not of ties (0 under ties: as-ranked)",
    "docs_in_run": "rows of the run: the documents it returns over all its topics, judged or not",
}


@dataclass
class Evaluation:
    """Per-topic values and means, keyed by canonical measure name (``str(measure)``)."""

    per_topic: dict[str, dict[str, float]]
    means: dict[str, float]
    topics: list[str]
    audit: dict[str, int]  # AUDIT_COLUMNS says what each counter counts
    policy: EvalPolicy
    measures: list[Measure] = field(default_factory=list)

    @property
    def summary(self) -> dict[str, float]:
        """trec_eval's ``all`` values: the sum over topics for the counts ``NumRet``, ``NumRel``
        and ``NumRelRet`` (trec_eval's "summary figure is sum of individual topics, not
        average"), the mean (:attr:`means`) for every other measure."""
        summed = {name for name in self.means if parse_measure(name).info.summary == "sum"}
        return {
            name: float(sum(self.per_topic[name].values())) if name in summed else mean
            for name, mean in self.means.items()
        }


def _as_measures(measures) -> list[Measure]:
    return parse_measures(measures, source="measures")


def evaluate_labels(
    rl: RankedLabels,
    measures,
    policy: EvalPolicy = EvalPolicy(),
    audit: dict | None = None,
    zero: np.ndarray | None = None,
) -> Evaluation:
    """Score an already-built :class:`RankedLabels` (the shape both judgment kinds share).
    Topics flagged in ``zero`` (judged, missing from the run) score 0 on every measure. MS
    MARCO's measures read a run and its qrels (:func:`evaluate`), which rankings alone are not."""
    measures = _as_measures(measures)
    official = [str(m) for m in measures if provider(m.name) is MSMARCO]
    if official:
        raise DataError(
            "measures",
            f"{', '.join(official)} reads a run's rank column and its qrels as MS MARCO's evaluation does; "
            "judgments by rank position have neither (RR@k is trec_eval's reciprocal rank)",
        )
    per_topic, means = {}, {}
    for m in measures:
        vals = kernel(m.name)(rl, m, policy.nDCG_threshold)
        if zero is not None and m.info.on_missing == "zero":
            # trec_eval -c scores a missing topic on an empty ranking: every measure is 0
            # except num_rel, which still counts the topic's judged relevant documents.
            vals[zero] = 0.0
        per_topic[str(m)] = dict(zip(rl.topics, vals.tolist()))
        means[str(m)] = float(vals.sum() / len(vals)) if len(vals) else float("nan")
    return Evaluation(per_topic, means, list(rl.topics), dict(audit or {}), policy, measures)


# --------------------------------------------------------------------------- run ordering
_SLICE_ROWS = 1 << 20


def _slices(offsets: np.ndarray) -> list[tuple[int, int]]:
    """Row ranges of about ``_SLICE_ROWS`` rows cut at topic boundaries (work that never
    crosses a topic can run on them in parallel)."""
    n, step = int(offsets[-1]), _SLICE_ROWS
    cuts = np.unique(np.r_[offsets[np.searchsorted(offsets, np.arange(0, n, step))], n])
    return list(zip(cuts[:-1].tolist(), cuts[1:].tolist()))


def _parallel(fn, items):
    items = list(items)
    threads = worker_threads()
    if threads == 1 or len(items) < 2:
        return [fn(*it) for it in items]
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(lambda it: fn(*it), items))


def _order(run: Run, ties: str):
    """The rows the tie policy moves: ``(dst, src)`` meaning "rank position dst now holds row
    src" (None when nothing moves), and the number of topics whose order changed."""
    if ties == "as-ranked" or len(run) < 2:
        return None, 0
    parts = _parallel(lambda lo, hi: _order_rows(run, lo, hi), _slices(run.offsets))
    dst = np.concatenate([p[0] for p in parts])
    if not len(dst):
        return None, 0
    src = np.concatenate([p[1] for p in parts])
    return (dst, src), sum(p[2] for p in parts)


def _order_rows(run: Run, lo: int, hi: int):
    """:func:`_order` for rows [lo, hi), which hold whole topics: (dst, src, topics moved).

    Scores are compared as trec_eval 9.0.8 holds them: ``float sim = atof(text)``, a float32
    (trec_format.h). Two scores that differ only beyond float32's 24 bits (1.00000002 and
    1.00000001) are a tie there, ordered by doc id; pytrec_eval does the same."""
    with np.errstate(over="ignore"):  # a score beyond float32's range is inf, as C's (float) makes it
        s = run.scores[lo:hi].astype(np.float32)
    n = hi - lo
    offsets = run.offsets[(run.offsets >= lo) & (run.offsets <= hi)] - lo
    empty = np.zeros(0, dtype=np.int64)
    if n < 2:
        return empty, empty, 0
    inner = np.ones(n - 1, dtype=bool)  # row r+1 continues row r's topic
    cuts = offsets[(offsets > 0) & (offsets < n)]
    inner[cuts - 1] = False
    topic_of = lambda rows: np.searchsorted(offsets, rows, side="right") - 1
    dst_parts: list[np.ndarray] = []  # the moves of each part (topics sorted anew, tied groups), joined below
    src_parts: list[np.ndarray] = []
    up = np.flatnonzero((s[1:] > s[:-1]) & inner)
    if len(up):
        # some topics are not in score order: sort them fully (score desc, doc id desc)
        bad = np.unique(topic_of(up + 1))
        lens = offsets[bad + 1] - offsets[bad]
        rows = np.repeat(offsets[bad] - np.cumsum(np.r_[0, lens[:-1]]), lens) + np.arange(lens.sum())
        _, code = np.unique(run.docids[lo + rows], return_inverse=True)
        o = np.lexsort((-code, -s[rows], topic_of(rows)))
        dst_parts.append(rows)
        src_parts.append(rows[o])
        in_bad = np.zeros(len(offsets), dtype=bool)
        in_bad[bad] = True
        inner &= ~in_bad[topic_of(np.arange(1, n))]
    tied = np.flatnonzero((s[1:] == s[:-1]) & inner)  # row t+1 ties with row t
    if len(tied):
        # tie groups: runs of rows linked by ties; each is re-sorted by doc id descending
        member = np.zeros(n, dtype=bool)
        member[tied] = True
        member[tied + 1] = True
        members = np.flatnonzero(member)
        linked = np.zeros(n, dtype=bool)
        linked[tied + 1] = True
        gstart = ~linked[members]
        gid = np.cumsum(gstart) - 1
        gfirst = np.flatnonzero(gstart)
        gend = np.r_[gfirst[1:], len(members)]
        o = np.lexsort((run.docids[lo + members], gid))  # ascending doc id in each group
        g = gid[o]
        target = gfirst[g] + gend[g] - 1 - np.arange(len(members))  # reversed: descending
        dst_parts.append(members[target])
        src_parts.append(members[o])
    if not dst_parts:
        return empty, empty, 0
    dst, src = np.concatenate(dst_parts), np.concatenate(src_parts)
    moved = dst != src
    dst, src = dst[moved], src[moved]
    t = np.sort(topic_of(dst))
    return dst + lo, src + lo, int(np.count_nonzero(np.r_[True, t[1:] != t[:-1]])) if len(t) else 0


def in_order(run: Run, ties: str = EvalPolicy.ties, depth: int | None = None) -> Run:
    """``run`` with each topic's rows in the order :func:`evaluate` scores them under ``ties``
    (trec_eval's: score descending in float32, then doc id descending), cut to the first
    ``depth`` of each topic when given (trec_eval's ``-M``). Rankings compared document by
    document (harness.metrics.agreement) read this order.

    >>> run = Run.from_ranked({"q": (["a", "c", "b"], [1.0, 2.0, 1.0])})
    >>> in_order(run, depth=2).ranked("q")[0]
    ['c', 'b']
    """
    moves, _ = _order(run, ties)
    rows = np.arange(len(run))
    if moves is not None:
        dst, src = moves
        rows[dst] = src
    offsets = run.offsets
    if depth is not None:
        lens = np.diff(offsets)
        keep = np.arange(len(run)) - np.repeat(offsets[:-1], lens) < depth  # a place's rank in its topic
        rows = rows[keep]
        offsets = np.r_[0, np.cumsum(np.minimum(lens, depth))].astype(np.int64)
    if moves is None and depth is None:
        return run
    return Run(run.topics(), offsets, run.docids[rows], run.scores[rows], run.source)


# --------------------------------------------------------------------------- the join
def _join(run: Run, qrels: Qrels, q_of_run: np.ndarray) -> np.ndarray:
    """Label code of each run row (run order): the qrels label, -1 if not judged, -2 if judged
    negative. ``q_of_run[t]`` is run topic t's qrels topic index, -1 if it has none.

    A hash join on the rows' cached (topic, doc) keys: a bitmap of the qrels keys' top bits
    filters the run rows; the survivors are binary-searched among the qrels sorted by (topic,
    key), so each topic's searches stay in one small, cached stretch; the doc-id bytes
    confirm every match (a hash collision never counts). Row slices run in parallel."""
    nq = len(qrels.topics())
    small = len(qrels.labels) == 0 or (qrels.labels.min() >= -128 and qrels.labels.max() <= 127)
    labels = np.full(len(run), NOT_JUDGED, dtype=np.int8 if small else np.int64)
    if not nq or not len(run):
        return labels
    qkeys, rkeys = qrels.keys(), run.keys()
    bits = max(int(np.ceil(np.log2(len(qkeys) * 8))), 10)
    shift = np.uint64(64 - bits)
    table = np.zeros(1 << bits, dtype=bool)
    table[(qkeys >> shift).view(np.int64)] = True
    # (topic, key) in one uint64: topic index in the high bits, the key's low bits below
    tbits = max(int(nq).bit_length(), 1)
    low = np.uint64((1 << (64 - tbits)) - 1)
    qseg = np.repeat(np.arange(nq, dtype=np.uint64), np.diff(qrels.offsets))
    qk = (qseg << np.uint64(64 - tbits)) | (qkeys & low)
    qorder = np.argsort(qk)
    qsorted = qk[qorder]
    last = len(qsorted) - 1
    topic_high = q_of_run.astype(np.uint64) << np.uint64(64 - tbits)

    def rows(lo, hi):
        cand = np.flatnonzero(table[(rkeys[lo:hi] >> shift).view(np.int64)]) + lo
        # the candidates' topics, from the run's segment offsets
        per_topic = np.diff(np.searchsorted(cand, run.offsets))
        judged = np.repeat(q_of_run >= 0, per_topic)
        cand = cand[judged]
        ck = np.repeat(topic_high, per_topic)[judged] | (rkeys[cand] & low)
        pos = np.searchsorted(qsorted, ck)
        while len(cand):
            keep = (qsorted[np.minimum(pos, last)] == ck) & (pos <= last)
            pos, cand, ck = pos[keep], cand[keep], ck[keep]
            q = qorder[pos]
            hit = run.docids[cand] == qrels.docids[q]  # same topic: it is in the key
            lab = qrels.labels[q[hit]]
            labels[cand[hit]] = np.where(lab < 0, POOL_UNJUDGED, lab)
            miss = ~hit  # a hash collision: try the next entry with that key
            pos, cand, ck = pos[miss] + 1, cand[miss], ck[miss]

    _parallel(rows, _slices(run.offsets))
    return labels


def evaluate(run: Run, qrels: Qrels, measures, policy: EvalPolicy = EvalPolicy()) -> Evaluation:
    """Score ``run`` against ``qrels``; see :class:`EvalPolicy` for every choice made.

    ``measures`` are :class:`Measure` s or their text (``"nDCG@10"``). Values equal trec_eval
    9.0.x (pytrec_eval) per topic; means are over the evaluated topics (trec_eval's "all").
    """
    measures = _as_measures(measures)
    official = [m for m in measures if provider(m.name) is MSMARCO]
    rl, audit, zero = rank_labels(run, qrels, policy)
    ranked = [m for m in measures if m not in official]
    if ranked:
        ev = evaluate_labels(rl, ranked, policy, audit, zero)
    else:  # MS MARCO's measures alone: the audit and the evaluated topics still count
        ev = Evaluation({}, {}, list(rl.topics), dict(audit), policy, [])
    return _with_official(ev, run, qrels, measures, official) if official else ev


def _with_official(ev: Evaluation, run: Run, qrels: Qrels, measures: list, official: list) -> Evaluation:
    """``ev`` with MS MARCO's measures added (harness.metrics.msmarco: the rankings as its script
    reads them, whatever the policy), in the order of ``measures``. Each mean is the script's:
    the values summed one after the other in the run's topic order (np.sum's pairwise sum could
    differ in the last bit), divided by the qrels' topics. Their topics are the qrels': under
    missing_topics=drop, the judged topics the run lacks join ``topics`` for them alone."""
    q_of_run = np.array([-1 if qrels.topic_index(t) is None else qrels.topic_index(t) for t in run.topics()], np.int64)
    data = ranked_as_read(run, qrels, _join(run, qrels, q_of_run), max(m.cutoff for m in official))
    values = {str(m): kernel(m.name)(data, m, False) for m in official}
    per_topic = {
        str(m): dict(zip(data.topics, values[str(m)].tolist())) if m in official else ev.per_topic[str(m)]
        for m in measures
    }
    means = {
        str(m): sum_in_order(values[str(m)]) / len(data.topics) if m in official else ev.means[str(m)] for m in measures
    }
    known = set(ev.topics)
    topics = ev.topics + [t for t in data.topics if t not in known]
    return Evaluation(per_topic, means, topics, ev.audit, ev.policy, list(measures))


def rank_labels(
    run: Run, qrels: Qrels, policy: EvalPolicy = EvalPolicy(), *, max_docs: int | None = None, judged_only: bool = False
) -> tuple[RankedLabels, dict, np.ndarray]:
    """The ranked label lists :func:`evaluate` scores: ``(labels, audit, zero)``, ``zero``
    flagging the judged topics the run lacks (scored 0 under ``missing_topics="zero"``; they
    come last). trec_eval's ``-M max_docs`` keeps each topic's first ``max_docs`` documents
    after ordering, then ``-J`` (``judged_only``) removes the documents without a judgment
    (not in the qrels, or judged negative) and closes up the ranks."""
    qtopics = qrels.topics()
    run_topics = run.topics()
    q_of_run = np.array(
        [qrels.topic_index(t) if qrels.topic_index(t) is not None else -1 for t in run_topics], dtype=np.int64
    )
    lens = np.diff(run.offsets)
    answered = (q_of_run >= 0) & (lens > 0)
    # evaluated topics: answered ones in run order, then (zero policy) the missing ones
    eval_names = [t for t, a in zip(run_topics, answered.tolist()) if a]
    answered_q = set(q_of_run[answered].tolist())
    missing = [i for i in range(len(qtopics)) if i not in answered_q]
    if policy.missing_topics == "zero":
        eval_names += [qtopics[i] for i in missing]
    eval_q = np.array([qrels.topic_index(t) for t in eval_names], dtype=np.int64)

    moves, reordered = _order(run, policy.ties)
    labels = _join(run, qrels, np.where(answered, q_of_run, -1))
    if moves is not None:
        dst, src = moves
        labels[dst] = labels[src]  # fancy-index read copies first
    seg_topic = np.full(len(run_topics), -1, dtype=np.int64)
    seg_topic[np.flatnonzero(answered)] = np.arange(int(answered.sum()))

    qlens = np.diff(qrels.offsets)[eval_q] if len(eval_q) else np.zeros(0, dtype=np.int64)
    pool_offsets = np.zeros(len(eval_q) + 1, dtype=np.int64)
    np.cumsum(qlens, out=pool_offsets[1:])
    starts = qrels.offsets[eval_q] if len(eval_q) else np.zeros(0, dtype=np.int64)
    pool_rows = np.repeat(starts - pool_offsets[:-1], qlens) + np.arange(int(qlens.sum()))
    rl = RankedLabels(eval_names, run.offsets, seg_topic, labels, pool_offsets, qrels.labels[pool_rows])

    has_rel = np.zeros(len(qtopics), dtype=bool)
    qseg = np.repeat(np.arange(len(qtopics)), np.diff(qrels.offsets))
    has_rel[qseg[qrels.labels >= 1]] = True
    audit = {
        "topics_in_run": len(run_topics),
        "topics_judged": len(qtopics),
        "topics_evaluated": len(eval_names),
        "evaluated_without_relevant": int((~has_rel[eval_q]).sum()) if len(eval_q) else 0,
        "judged_missing_from_run": len(missing),
        "judged_missing_scored_zero": len(missing) if policy.missing_topics == "zero" else 0,
        "judged_missing_dropped": len(missing) if policy.missing_topics == "drop" else 0,
        "run_topics_without_judgments": int((q_of_run < 0).sum()),
        "topics_reordered": reordered,
        "docs_in_run": len(run),
    }
    zero = np.zeros(len(eval_names), dtype=bool)
    zero[int(answered.sum()) :] = True  # the missing topics come last
    if max_docs is not None or judged_only:
        rl = _cut(rl, max_docs, judged_only)
    return rl, audit, zero


def _cut(rl: RankedLabels, max_docs: int | None, judged_only: bool) -> RankedLabels:
    """``rl`` with each segment cut to its first ``max_docs`` rows, then (``judged_only``)
    without its rows of negative label; segments may become empty and stay."""
    lens = np.diff(rl.seg_offsets)
    keep = np.ones(len(rl.labels), dtype=bool)
    if max_docs is not None:
        pos = np.arange(len(rl.labels)) - np.repeat(rl.seg_offsets[:-1], lens)
        keep &= pos < max_docs
    if judged_only:
        keep &= rl.labels >= 0
    csum = np.zeros(len(keep) + 1, dtype=np.int64)
    np.cumsum(keep, out=csum[1:])
    offsets = csum[rl.seg_offsets]
    return RankedLabels(rl.topics, offsets, rl.seg_topic, rl.labels[keep], rl.pool_offsets, rl.pool)
