"""The lab verb: the course lab's evaluation script on the harness's engine.

Search an index with one similarity; per query, the ranked results (rank, doc id, score) and
P@k, R@k, AP, nDCG@k and RR, then their means. Two kinds of judgments, two conventions, and the
outcome says which one was used:

* rank-position labels (``"QUERY:1,0,1,..."``, the lab's way), scored with the lab's functions
  (:mod:`harness.eval_metrics`): P@k divides by min(k, number of labels); R@k and AP divide by
  the relevant labels in the whole list (or by R given as ``"QUERY:1,0,1; R=5"``); AP sums
  precision at the relevant ranks within the top k; nDCG@k's ideal is the same labels sorted
  (linear gain, log2(rank + 1) discount); RR is 0 without a relevant label in the top k.
* doc-id judgments (``"DOCID:LABEL ..."`` per query, or a qrels file whose topic ids are the
  queries' words joined by ``_``), evaluated exactly as trec_eval evaluates the top k as a run.

Everything given is checked before Java starts; a malformed judgment is a DataError naming the
query and the bad token.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from harness import eval_metrics as em
from harness.errors import DataError
from harness.events import Emit, Note, ignore
from harness.experiment.adhoc import lab_qid
from harness.formats.qrels import Qrels, read_qrels
from harness.formats.run import Run
from harness.metrics import evaluate
from harness.metrics.judgments import RankJudgments, parse_judgment
from harness.policies import EvalPolicy
from harness.specs.similarity import Similarity
from harness.verbs import query as ad_hoc  # its `query`: a name the lab gives its queries

__all__ = [
    "LAB_CONVENTION",
    "TREC_CONVENTION",
    "LabRequest",
    "LabQuery",
    "LabOutcome",
    "lab",
    "check_queries",
    "parse_relevance",
    "parse_doc_relevance",
    "read_lab_qrels",
    "lab_qid",
]

LAB_CONVENTION = (
    "the course lab's (rank-position labels): P@k = relevant in top k / min(k, labels); "
    "R@k and AP divide by the relevant labels in the list (or R=); nDCG@k's ideal = "
    "the same labels sorted; RR = 0 without a relevant label in the top k"
)
TREC_CONVENTION = (
    "trec_eval's (doc-id judgments, the top k as the run): P@k = relevant in top k / k; "
    "R@k and AP divide by the judged relevant docs; nDCG@k's ideal ranks every judged doc"
)


# ------------------------------------------------------------------------------ judgments
def check_queries(queries: list[str]) -> list[str]:
    seen = set()
    for q in queries:
        if not q.strip():
            raise DataError("--queries", "an empty query was given")
        if q in seen:
            raise DataError("--queries", f"query {q!r} is given twice")
        seen.add(q)
    return list(queries)


def parse_relevance(items: list[str], queries: list[str]):
    """``["QUERY:1,0,1[; R=N]", ...]`` -> :class:`harness.metrics.judgments.RankJudgments` keyed
    by query text, each item read by the judgments' parser (harness.metrics.judgments.
    parse_judgment, as a judgments file's line). Every query named must be one of ``queries``,
    each at most once, with at least one label (it was searched)."""
    expected = f"expected 'QUERY:LABELS', e.g. '{queries[0]}:1,0,1,0,0'"
    labels, Rs = {}, {}
    for item in items:
        query, query_labels, R = parse_judgment(item, source="--relevance", expected=expected)
        if query not in queries:
            raise DataError(
                "--relevance",
                f"{item!r} judges query {query!r}, which is not one of --queries: {', '.join(map(repr, queries))}",
            )
        if query in labels:
            raise DataError("--relevance", f"query {query!r} is judged twice")
        if not len(query_labels):
            raise DataError("--relevance", f"query {query!r}: no labels after ':' (expected e.g. 1,0,1)")
        labels[query], Rs[query] = query_labels, R
    return RankJudgments(labels, Rs, "--relevance")


def parse_doc_relevance(items: list[str], queries: list[str]) -> dict[str, dict[str, int]]:
    """One ``"DOCID:LABEL DOCID:LABEL"`` string per query (in order) -> {query: {doc: label}}."""
    if len(items) != len(queries):
        raise DataError(
            "--doc-relevance",
            f"{len(items)} string(s) for {len(queries)} queries: give one "
            "'DOCID:LABEL ...' string per query, in the order of --queries",
        )
    out: dict[str, dict[str, int]] = {}
    for query, item in zip(queries, items):
        judged: dict[str, int] = {}
        for token in item.replace(",", " ").split():
            doc, colon, label = token.rpartition(":")
            try:
                value = int(label)
            except ValueError:
                value = -1
            if not colon or not doc or value < 0:
                raise DataError(
                    "--doc-relevance",
                    f"query {query!r}: bad token {token!r}; expected "
                    "DOCID:LABEL with an integer label >= 0, e.g. sample_docs/vsm_mixed.txt:1",
                )
            if doc in judged:
                raise DataError("--doc-relevance", f"query {query!r}: document {doc!r} is judged twice")
            judged[doc] = value
        if not judged:
            raise DataError("--doc-relevance", f"query {query!r}: no judgments (expected 'DOCID:LABEL ...')")
        out[query] = judged
    return out


def read_lab_qrels(path: str, queries: list[str]) -> dict[str, dict[str, int]]:
    """{query: {doc: label}} from a qrels file whose topic ids are :func:`lab_qid` of the queries."""
    if not Path(path).is_file():
        raise DataError(path, "--qrels: file not found")
    qrels = read_qrels(path)
    have = set(qrels.topics())
    out = {q: qrels.judged(lab_qid(q)) for q in queries if lab_qid(q) in have}
    if not out:
        raise DataError(
            path,
            f"--qrels: no judgments for any of the queries (topic ids expected: "
            f"{', '.join(lab_qid(q) for q in queries)})",
        )
    return out


# ------------------------------------------------------------------------------ metrics
def lab_metrics(labels, k: int, R: int | None) -> dict[str, float]:
    return {
        f"P@{k}": em.precision_at_k(labels, k),
        f"R@{k}": em.recall_at_k(labels, k, R),
        "AP": em.average_precision(labels, k, R),
        f"nDCG@{k}": em.ndcg_at_k(labels, k),
        "RR": em.reciprocal_rank(labels, k),
    }


def trec_metrics(results, judged: dict[str, dict[str, int]], queries: list[str], k: int):
    """Per query {measure: value} (queries without judgments absent) and the means."""
    qid = {q: f"q{i}" for i, q in enumerate(queries, start=1)}
    run = Run.from_ranked({qid[q]: r for q, r in zip(queries, results) if len(r[0])}, source="the lab's ranking")
    qrels = Qrels.from_dict({qid[q]: j for q, j in judged.items()}, source="--doc-relevance")
    names = [f"P@{k}", f"R@{k}", "AP", f"nDCG@{k}", "RR"]
    ev = evaluate(run, qrels, names, EvalPolicy())
    per = {q: {m: ev.per_topic[m][qid[q]] for m in names} for q in queries if qid[q] in ev.topics}
    return per, {m: ev.means[m] for m in names}


# ------------------------------------------------------------------------------ the verb
@dataclass(frozen=True)
class LabRequest:
    index: str
    queries: list[str]
    similarity: Similarity
    k: int = 10
    relevance: list[str] | None = None  # rank-position labels, "QUERY:1,0,1"
    doc_relevance: list[str] | None = None  # doc-id judgments, one string per query
    qrels: str | None = None  # doc-id judgments from a qrels file (topic ids: lab_qid)
    language: str | None = None  # index.language of a text folder; None: the index's own (else en)


@dataclass(frozen=True)
class LabQuery:
    text: str
    docs: list[str]
    scores: list[float]
    metrics: dict[str, float] | None  # None: no judgments for this query


@dataclass(frozen=True)
class LabOutcome:
    index: ad_hoc.OpenIndex
    similarity: Similarity
    k: int
    convention: str | None  # "lab", "trec" or None (no judgments)
    queries: list[LabQuery] = field(default_factory=list)
    means: dict[str, float] | None = None
    judged: int = 0  # queries in the means


def lab(req: LabRequest, *, on: Emit = ignore) -> LabOutcome:
    """Search, then score under the convention the judgments call for. ``on`` receives the
    index's progress and, as Note events, the remarks a user should see (a judged document not in
    the index, labels that do not match the results shown)."""
    queries = check_queries(req.queries)
    if isinstance(req.k, bool) or not isinstance(req.k, int) or req.k < 1:
        raise DataError("--topk", f"must be an integer >= 1 (got {req.k})")
    k = req.k
    rank_judgments = parse_relevance(req.relevance, queries) if req.relevance else None
    doc_judgments = parse_doc_relevance(req.doc_relevance, queries) if req.doc_relevance else None
    if req.qrels:
        doc_judgments = read_lab_qrels(req.qrels, queries)
    index = ad_hoc.open_index(req.index, on=on, language=req.language)
    ranked = ad_hoc.query(index, queries, [req.similarity], k, ids=doc_judgments is not None)
    results = ranked.by_similarity[str(req.similarity)]

    convention, per_trec, means = None, {}, None
    if rank_judgments is not None:
        convention = "lab"
    elif doc_judgments is not None:
        convention = "trec"
        assert ranked.ids is not None  # asked for with the judgments
        for q, judged_docs in doc_judgments.items():
            unknown = [d for d in judged_docs if d not in ranked.ids]
            if unknown:
                on(Note(f"note: query {q!r}: judged document(s) not in the index: {', '.join(unknown)}"))
        per_trec, means = trec_metrics(results, doc_judgments, queries, k)

    out: list[LabQuery] = []
    per_query: list[dict[str, float]] = []
    for q, (docs, scores) in zip(queries, results):
        values = None
        if rank_judgments is not None and q in rank_judgments.labels:
            labels = rank_judgments.labels[q]
            if len(labels) != len(docs):
                on(Note(f"note: query {q!r}: {len(labels)} labels for {len(docs)} results shown"))
            values = lab_metrics(labels, k, rank_judgments.R[q])
            per_query.append(values)
        elif convention == "trec":
            values = per_trec.get(q)
        out.append(LabQuery(q, list(docs), scores.tolist(), values))
    judged = len(per_query) if convention == "lab" else len(per_trec)
    if convention == "lab":
        means = {m: float(np.mean([v[m] for v in per_query])) for m in per_query[0]}
    return LabOutcome(index, req.similarity, k, convention, out, means, judged)
