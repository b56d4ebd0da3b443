"""The topic explorer's data, gathered after an experiment by the run verb (the report only
renders it, ``harness/report/templates/explorer.html.j2``, and never opens the index).

The topic explorer of report.html: for each topic, the query, how many documents are judged,
and the runs' top k side by side (rank, doc id, score, judgment or "unjudged", a snippet with the
query's terms highlighted) with each later run's rank changes against the first run shown.

* **Which runs.** All runs when there are at most :data:`MAX_RUNS`; otherwise two: the compared
  baseline (or the first run) and the run with the best mean of the first compared measure.
* **Which terms are highlighted.** The query's terms as the index's analyzer makes them, and every
  word of the document the analyzer turns into one of them (:mod:`harness.engine.documents`), so
  stems match as Lucene matched them ("models" for "model"; stopwords never).
* **Order.** Topics are sorted by their largest difference among the runs shown: each later run's
  per-topic difference from the first run (run − first) on the first compared measure (the first
  measure without ``compare:``), the one of largest size with its sign (the earlier run on a tie
  of sizes), largest gain first, largest loss last; topics without a value come last, in topic
  order. With two runs that is their one difference; with three, a third run's large losses
  sort (and are kept, below) by their size, where sorting by the first pair's difference alone
  filled the page with +0.0000 rows of two alike runs. The summary table at the top links to
  every topic shown.
* **How many topics.** At most ``report.explorer_topics`` (default 250): beyond it, those with the
  largest difference either way (the first ones in topic order without a difference), and the
  page says so. Every topic of a 2,250-topic run made a 21 MB report.html and took 5 s of a
  7-second `harness run`; per-topic values of every topic stay in per_topic.csv.
* **Keyboard.** Every topic is a ``<details>`` whose summary takes the focus with Tab and opens
  with Enter; links (the table, previous/next) jump between topics. How the page stores and draws
  a topic's results, within its byte budget: :mod:`harness.report.explorer`.
* **Documents.** Only the shown runs' top ``depth`` of the shown topics are read from the index,
  with their analyzer tokens in one Java call.
"""

from __future__ import annotations

from dataclasses import replace

from harness.engine.documents import Documents, TokenIndex, encoded_terms, segments, snippet
from harness.experiment import machine
from harness.experiment.result import ExperimentResult, ExplorerData, Hit, TopicView

__all__ = ["Hit", "TopicView", "ExplorerData", "gather", "attach", "MAX_RUNS", "SNIPPET_CHARS"]

MAX_RUNS = 4
SNIPPET_CHARS = 200


def _shown_runs(result: ExperimentResult, measure: str | None) -> list[str]:
    names = [r.name for r in result.runs]
    if len(names) <= MAX_RUNS:
        return names
    c = result.comparisons
    first = c.baselines[0] if c is not None and c.baselines else names[0]
    if measure is None:
        return [first, next(n for n in names if n != first)]
    means = {n: result.evaluations[n].means[measure] for n in names if n != first}
    return [first, max(means, key=means.__getitem__)]


def _measure(result: ExperimentResult) -> str | None:
    if not result.evaluations:
        return None
    c = result.comparisons
    return c.measures[0] if c is not None else result.config.measure_names[0]


def _move(doc: str, rank: int, other: dict[str, int], k: int) -> tuple[str, str]:
    """(css class, text) of a doc's move against the other run's full ranking."""
    before = other.get(doc)
    if before is None:
        return "up", "new"
    if before == rank:
        return "same", "="
    if before > rank:
        return "up", f"▲{before - rank}" + (f" (was {before})" if before > k else "")
    return "down", f"▼{rank - before}"


def gather(result: ExperimentResult, depth: int, max_topics: int = 250) -> ExplorerData:
    """The explorer's data; opens the index to read the shown documents."""
    measure = _measure(result)
    shown = _shown_runs(result, measure)
    runs = {r.name: r.run for r in result.runs}
    qrels = result.qrels  # as the runs were evaluated with them: not read again
    judged_topics = set(qrels.topics()) if qrels is not None else set()

    # differences: each later shown run minus the first, on the measure; a topic's key is the
    # largest of them by size, with its sign (the earlier run's on a tie of sizes)
    values: dict[str, dict[str, float]] = {}
    each: dict[str, dict[str, float]] = {}  # topic -> later run -> its difference
    if measure is not None:
        for name in shown:
            values[name] = result.evaluations[name].per_topic[measure]
        first = values[shown[0]]
        for name in shown[1:]:
            for q, v in values[name].items():
                if q in first:
                    each.setdefault(q, {})[name] = v - first[q]
    largest = {q: max(d, key=lambda n: abs(d[n])) for q, d in each.items()}  # max keeps the first of equals
    diffs = {q: each[q][n] for q, n in largest.items()}
    order = sorted(
        range(len(result.topics)),
        key=lambda i: (result.topics[i][0] not in diffs, -diffs.get(result.topics[i][0], 0.0), i),
    )
    n_topics = len(order)
    if n_topics > max_topics:  # the largest differences (either way), or the first topics
        if diffs:
            chosen = set(
                sorted(
                    order,
                    key=lambda i: (
                        result.topics[i][0] not in diffs,
                        -abs(diffs.get(result.topics[i][0], 0.0)),
                        i,
                    ),
                )[:max_topics]
            )
            order = [i for i in order if i in chosen]
        else:
            order = order[:max_topics]

    ranked: dict[str, dict[str, tuple[list[str], list[float]]]] = {}
    for name in shown:
        run = runs[name]
        ranked[name] = {}
        for i in order:
            qid = result.topics[i][0]
            if run.topic_index(qid) is not None:  # the first shown run in full: the moves against it
                hit_docs, hit_scores = run.ranked(qid, None if name == shown[0] and len(shown) >= 2 else depth)
                ranked[name][qid] = (hit_docs, hit_scores.tolist())

    wanted = list(
        dict.fromkeys(
            d for i in order for name in shown for d in ranked[name].get(result.topics[i][0], ([], []))[0][:depth]
        )
    )
    docs_store = Documents(result.index.path, result.index.options)
    try:  # three Java calls: the queries' terms, the stored texts, the texts' tokens of those terms
        queries = [result.topics[i][1] for i in order]
        terms = {result.topics[i][0]: encoded_terms(e) for i, e in zip(order, docs_store.encoded_tokens_many(queries))}
        texts: dict[str, str | None] = dict(zip(wanted, docs_store.texts(wanted)))
        stored = {d: t for d, t in texts.items() if t is not None}  # the documents with a stored text
        keep: dict[str, set[str]] = {d: set() for d in stored}
        for i in order:
            qid = result.topics[i][0]
            for name in shown:
                for d in ranked[name].get(qid, ([], []))[0][:depth]:
                    if d in keep:
                        keep[d] |= terms[qid]
        encoded = docs_store.encoded_tokens_many(list(stored.values()), keep=[keep[d] for d in stored])
    finally:
        docs_store.close()
    tokens = {d: TokenIndex(e) for d, e in zip(stored, encoded)}

    views = []
    for i in order:
        qid, text = result.topics[i]
        judged = qrels.judged(qid) if qrels is not None and qid in judged_topics else {}
        full_rank = {}
        if len(shown) >= 2:
            docs0 = ranked[shown[0]].get(qid, ([], []))[0]
            full_rank = {doc: r for r, doc in enumerate(docs0, start=1)}
        hits = {}
        # a document's snippet depends on the topic alone: made once for the runs that share it
        # (Cranfield x10, 250 topics of four runs: gathering took 0.87-0.93 s of CPU, 0.46-0.49 s)
        made: dict[str, tuple] = {}
        for col, name in enumerate(shown):
            docs, scores = ranked[name].get(qid, ([], []))
            row = []
            for r, (doc, score) in enumerate(zip(docs[:depth], scores[:depth]), start=1):
                if doc not in made:
                    body = texts.get(doc)
                    if body is None:
                        made[doc] = (None, False, False)
                    else:
                        spans = tokens[doc].match(terms[qid])
                        s, e = snippet(body, spans, SNIPPET_CHARS)
                        made[doc] = (tuple(segments(body, spans, s, e)), s > 0, e < len(body))
                pieces, before, after = made[doc]
                move = _move(doc, r, full_rank, depth) if col >= 1 else None
                row.append(Hit(r, doc, score, judged.get(doc), move, pieces, before, after))
            hits[name] = tuple(row)
        views.append(
            TopicView(
                qid,
                text,
                len(judged),
                sum(1 for v in judged.values() if v > 0),
                diffs.get(qid),
                tuple(sorted(terms[qid])),
                {n: values[n][qid] for n in shown if measure and qid in values.get(n, {})},
                hits,
                each.get(qid, {}),
                largest.get(qid),
            )
        )
    only_relevant = qrels is not None and qrels.labels.size > 0 and bool((qrels.labels > 0).all())
    return ExplorerData(depth, measure, tuple(shown), len(runs), n_topics, bool(diffs), tuple(views), only_relevant)


def attach(result: ExperimentResult) -> ExperimentResult:
    """What the report shows from Lucene, gathered before rendering: the explorer's data (when
    ``report.explorer_depth`` > 0), the versions of Java, Lucene, Anserini and the libraries, and
    the machine (harness.experiment.machine)."""
    cfg = result.config
    if cfg.explorer_depth > 0:
        result = replace(result, explorer=gather(result, cfg.explorer_depth, cfg.explorer_topics))
    return machine.gather(result)
