"""What the judging page shows, prepared once before the server starts: topics, the pool of each
topic, every pooled document's text and analyzer tokens, and the runs to evaluate.

All Java work (index, search, stored documents, analysis) happens here, on the main thread; the
server afterwards only reads these values and the qrels file, so it never touches the JVM.

**The pool and its order.** A topic's pool is the union of each run's top ``depth`` documents. It
is shown in the order of a keyed hash, ``sha256("harness-judge\\0" + qid + "\\0" + docid)``: the
order depends on nothing but the topic and the document, so it tells the judge neither which run
found a document nor at which rank, and it is the same on every reload and restart.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from harness.engine.documents import Documents, Token
from harness.formats.qrels import Qrels
from harness.metrics import EvalPolicy, evaluate

__all__ = ["Topic", "JudgeSession", "pool_order", "pools", "fill", "metrics"]

POOL_KEY = "harness-judge"


def pool_order(qid: str, docs) -> list[str]:
    """``docs`` (deduplicated) in the keyed-hash order described above.

    >>> pool_order("1", ["b", "a", "b"]) == sorted({"a", "b"}, key=lambda d: hashlib.sha256(
    ...     f"harness-judge\\0" f"1\\0{d}".encode()).hexdigest())
    True
    """
    key = lambda d: hashlib.sha256(f"{POOL_KEY}\0{qid}\0{d}".encode("utf-8", "surrogateescape")).hexdigest()
    return sorted(dict.fromkeys(docs), key=key)


@dataclass(frozen=True)
class Topic:
    qid: str
    text: str
    terms: tuple[str, ...]  # the query's analyzed terms
    pool: tuple[str, ...]  # doc ids in pool order


@dataclass
class JudgeSession:
    name: str
    topics: list[Topic]
    runs: dict  # run name -> harness.formats.run.Run (evaluated against the judgments)
    measures: tuple[str, ...]
    depth: int
    texts: dict[str, str] = field(default_factory=dict)  # doc id -> text shown
    tokens: dict[str, list[Token]] = field(default_factory=dict)  # doc id -> analyzer tokens
    note: str = ""  # how the runs were made, shown on the page

    def topic(self, i: int) -> Topic:
        return self.topics[i]


def pools(topics, runs: dict, depth: int) -> list[list[str]]:
    out = []
    for qid, _ in topics:
        docs = []
        for run in runs.values():
            if run.topic_index(qid) is not None:
                docs += run.ranked(qid)[0][:depth]
        out.append(pool_order(qid, docs))
    return out


def fill(session: JudgeSession, topics, pools, index_path, options) -> JudgeSession:
    """Each topic's analyzed terms and pool, and every pooled document's text and tokens."""
    docs = Documents(index_path, options)
    try:
        for (qid, text), pool in zip(topics, pools):
            session.topics.append(Topic(qid, text, tuple(docs.analyze(text)), tuple(pool)))
            for d in pool:
                if d not in session.texts:
                    body = docs.text(d)
                    session.texts[d] = "(not in the index)" if body is None else body
                    if body is None:
                        session.tokens[d] = []
        stored = [d for d in session.texts if d not in session.tokens]
        session.tokens.update(zip(stored, docs.tokens_many([session.texts[d] for d in stored])))
    finally:
        docs.close()
    return session


def metrics(session: JudgeSession, judgments: dict[str, dict[str, int]]):
    """Each run evaluated against the judgments so far, exactly as ``harness evaluate`` (and
    trec_eval -c) would with the qrels file: over the topics with at least one judgment, a
    judged topic a run did not answer scoring 0. Returns (judged topic ids, {run: means},
    {run: {measure: {qid: value}}})."""
    shown = {t.qid for t in session.topics}
    judged = {q: j for q, j in judgments.items() if q in shown and j}
    if not judged:
        return [], {}, {}
    qrels = Qrels.from_dict(judged, source="the judgments")
    means, per_topic = {}, {}
    for name, run in session.runs.items():
        ev = evaluate(run, qrels, list(session.measures), EvalPolicy())
        means[name] = dict(ev.means)
        per_topic[name] = {m: dict(ev.per_topic[m]) for m in session.measures}
    return [t.qid for t in session.topics if t.qid in judged], means, per_topic
