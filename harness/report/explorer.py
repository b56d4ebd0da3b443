"""The topic explorer of report.html: for each topic, the query, how many documents are judged,
and the runs' top k side by side (rank, doc id, score, judgment or "unjudged", a snippet with the
query's terms highlighted) with the rank changes between the first two runs shown.

* **Which runs.** All runs when there are at most :data:`MAX_RUNS`; otherwise two: the compared
  baseline (or the first run) and the run with the best mean of the first compared measure.
* **Which terms are highlighted.** The query's terms as the index's analyzer makes them, and every
  word of the document the analyzer turns into one of them (:mod:`harness.engine.documents`), so
  stems match as Lucene matched them ("models" for "model"; stopwords never).
* **Order.** Topics are sorted by the per-topic difference (second run − first) of the first
  compared measure (the first measure without ``compare:``), largest gain first; topics without a
  value come last, in topic order. The summary table at the top links to every topic shown.
* **How many topics.** At most ``report.explorer_topics`` (default 250): beyond it, those with the
  largest difference either way (the first ones in topic order without a difference), and the
  page says so. Every topic of a 2,250-topic run made a 21 MB report.html and took 5 s of a
  7-second `harness run`; per-topic values of every topic stay in per_topic.csv.
* **Keyboard.** No script: every topic is a ``<details>`` whose summary takes the focus with Tab
  and opens with Enter; links (the table, previous/next) jump between topics.
* **Escaping.** Every text from the data (query, doc id, document text, run name) goes through
  ``html.escape``; highlights are ``<mark>`` elements placed around escaped pieces.
"""

from __future__ import annotations

import html

from harness.experiment import ExperimentResult

__all__ = ["render_explorer", "MAX_RUNS", "SNIPPET_CHARS"]

MAX_RUNS = 4
SNIPPET_CHARS = 200


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _shown_runs(result: ExperimentResult, measure: str | None) -> list[str]:
    names = [r.name for r in result.runs]
    if len(names) <= MAX_RUNS:
        return names
    c = result.comparisons
    first = c.baselines[0] if c is not None and c.baselines else names[0]
    if measure is None:
        return [first, next(n for n in names if n != first)]
    means = {n: result.evaluations[n].means[measure] for n in names if n != first}
    return [first, max(means, key=means.get)]


def _measure(result: ExperimentResult) -> str | None:
    if not result.evaluations:
        return None
    c = result.comparisons
    return c.measures[0] if c is not None else result.config.measures[0]


def _marked(pieces) -> str:
    return "".join(f"<mark>{_e(t)}</mark>" if hit else _e(t) for t, hit in pieces)


def _judgment(label: int | None) -> tuple[str, str]:
    if label is None:
        return "unj", "unjudged"
    if label <= 0:
        return "non", f"not relevant ({label})"
    return "rel", f"relevant ({label})"


def _move(doc: str, rank: int, other: dict[str, int], k: int, other_name: str) -> tuple[str, str]:
    """(css class, text) of a doc's move against the other run's full ranking."""
    before = other.get(doc)
    if before is None:
        return "up", "new"
    if before == rank:
        return "same", "="
    if before > rank:
        return "up", f"▲{before - rank}" + (f" (was {before})" if before > k else "")
    return "down", f"▼{rank - before}"


def render_explorer(result: ExperimentResult, depth: int, max_topics: int = 250) -> str:
    """The explorer's HTML (a fragment); opens the index to read the shown documents."""
    from harness.engine.documents import Documents, match_encoded, segments, snippet, terms_pattern

    measure = _measure(result)
    shown = _shown_runs(result, measure)
    runs = {r.name: r.run for r in result.runs}
    qrels = result.qrels  # as the runs were evaluated with them: not read again
    judged_topics = set(qrels.topics()) if qrels is not None else set()

    # differences: second shown run minus the first, on the measure
    diffs: dict[str, float] = {}
    values: dict[str, dict[str, float]] = {}
    if measure is not None:
        for name in shown:
            values[name] = result.evaluations[name].per_topic[measure]
        if len(shown) >= 2:
            a, b = values[shown[0]], values[shown[1]]
            diffs = {q: b[q] - a[q] for q in a if q in b}
    order = sorted(
        range(len(result.topics)),
        key=lambda i: (result.topics[i][0] not in diffs, -diffs.get(result.topics[i][0], 0.0), i),
    )
    n_topics = len(order)
    if n_topics > max_topics:  # the largest differences (either way), or the first topics
        if diffs:
            keep = set(
                sorted(
                    order,
                    key=lambda i: (
                        result.topics[i][0] not in diffs,
                        -abs(diffs.get(result.topics[i][0], 0.0)),
                        i,
                    ),
                )[:max_topics]
            )
            order = [i for i in order if i in keep]
        else:
            order = order[:max_topics]

    ranked: dict[str, dict[str, tuple[list[str], list[float]]]] = {}
    for name in shown:
        run = runs[name]
        ranked[name] = {}
        for i in order:
            qid = result.topics[i][0]
            if run.topic_index(qid) is not None:
                docs, scores = run.ranked(qid)
                ranked[name][qid] = (docs, scores.tolist())

    docs_store = Documents(result.index.path, result.index.options)
    try:
        texts: dict[str, str | None] = {}
        terms: dict[str, set[str]] = {}
        for i in order:
            qid, text = result.topics[i]
            terms[qid] = set(docs_store.analyze(text))
            for name in shown:
                for d in ranked[name].get(qid, ([], []))[0][:depth]:
                    if d not in texts:
                        texts[d] = docs_store.text(d)
        stored = [d for d, t in texts.items() if t is not None]
        tokens = dict(zip(stored, docs_store.encoded_tokens_many([texts[d] for d in stored])))
    finally:
        docs_store.close()

    out = []
    sort_note = (
        f"sorted by the difference in {measure} ({shown[1]} − {shown[0]}), largest gain first"
        if diffs
        else "in topic order"
    )
    out.append(
        f'<p class="policy">Each run\'s top {depth} per topic, {_e(sort_note)}. '
        + (
            f"Showing {len(order)} of {n_topics} topics: "
            + ("those with the largest differences, either way" if diffs else "the first in topic order")
            + " (<code>report.explorer_topics</code>). "
            if len(order) < n_topics
            else ""
        )
        + (
            f"Showing {len(shown)} of {len(runs)} runs: the first run or baseline and the best by mean {_e(measure)}. "
            if len(shown) < len(runs)
            else ""
        )
        + "Highlighted: the words the index's analyzer turns into one of the query's terms (stems "
        "included). "
        + (
            f"▲/▼: rank change in {_e(shown[1])} against {_e(shown[0])}'s whole run; new: not in it. "
            if len(shown) >= 2
            else ""
        )
        + "Keyboard: Tab moves between topics, Enter opens one.</p>"
    )
    # the summary table: every topic, linked
    head = ["topic", "query", "judged"] + ([f"{measure} {n}" for n in shown] if measure else [])
    if diffs:
        head.append(f"Δ {measure}")
    out.append('<div class="scroll"><table class="topics"><thead><tr>')
    out.append("".join(f"<th>{_e(h)}</th>" for h in head) + "</tr></thead><tbody>")
    for pos, i in enumerate(order):
        qid, text = result.topics[i]
        n_judged = len(qrels.judged(qid)) if qid in judged_topics else 0
        cells = [f'<td><a href="#t{pos}">{_e(qid)}</a></td>', f"<td>{_e(text)}</td>", f'<td class="n">{n_judged}</td>']
        if measure:
            cells += [f'<td class="n">{_fmt(values[n].get(qid))}</td>' for n in shown]
        if diffs:
            d = diffs.get(qid)
            cls = "up" if d is not None and d > 0 else ("down" if d is not None and d < 0 else "")
            cells.append(f'<td class="n {cls}">{"" if d is None else _e(f"{d:+.4f}")}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")

    for pos, i in enumerate(order):
        qid, text = result.topics[i]
        judged = qrels.judged(qid) if qid in judged_topics else {}
        n_rel = sum(1 for v in judged.values() if v > 0)
        d = diffs.get(qid)
        summary = f'{_e(qid)}: {_e(text)} <span class="muted">— {len(judged)} judged, {n_rel} relevant'
        if d is not None:
            summary += f"; Δ {_e(measure)} {_e(f'{d:+.4f}')}"
        summary += "</span>"
        # the anchor sits inside the details, so following a link to it opens the topic
        out.append(f'<details class="topic"><summary>{summary}</summary><span class="anchor" id="t{pos}"></span>')
        out.append(
            f'<p class="muted">Analyzed query terms: <code>{_e(" ".join(sorted(terms[qid])) or "(none)")}</code></p>'
        )
        out.append('<div class="cols">')
        pattern = terms_pattern(terms[qid])
        full_rank = {}
        if len(shown) >= 2:
            docs0 = ranked[shown[0]].get(qid, ([], []))[0]
            full_rank = {doc: r for r, doc in enumerate(docs0, start=1)}
        for col, name in enumerate(shown):
            docs, scores = ranked[name].get(qid, ([], []))
            v = values.get(name, {}).get(qid) if measure else None
            title = _e(name) + (f' <span class="muted">{_e(measure)} {_fmt(v)}</span>' if v is not None else "")
            out.append(f'<div class="col"><h4>{title}</h4>')
            if not docs:
                out.append('<p class="muted">No results.</p></div>')
                continue
            out.append('<ol class="hits">')
            for r, (doc, score) in enumerate(zip(docs[:depth], scores[:depth]), start=1):
                cls, jtext = _judgment(judged.get(doc))
                move = ""
                if col == 1:
                    mcls, mtext = _move(doc, r, full_rank, depth, shown[0])
                    move = f' <span class="move {mcls}">{_e(mtext)}</span>'
                body = texts.get(doc)
                if body is None:
                    snip = '<span class="muted">(not in the index)</span>'
                else:
                    spans = match_encoded(tokens[doc], pattern)
                    s, e = snippet(body, spans, SNIPPET_CHARS)
                    snip = (
                        ("… " if s > 0 else "") + _marked(segments(body, spans, s, e)) + (" …" if e < len(body) else "")
                    )
                out.append(
                    f'<li class="{cls}"><span class="rank">{r}</span> <code>{_e(doc)}</code> '
                    f'<span class="score">{_e(f"{score:.4f}")}</span> <span class="judg">{_e(jtext)}</span>{move}'
                    f'<div class="snip">{snip}</div></li>'
                )
            out.append("</ol></div>")
        out.append("</div>")
        nav = []
        if pos > 0:
            nav.append(f'<a href="#t{pos - 1}">← previous topic</a>')
        if pos + 1 < len(order):
            nav.append(f'<a href="#t{pos + 1}">next topic →</a>')
        nav.append('<a href="#explorer">all topics</a>')
        out.append(f'<p class="topicnav">{" ".join(nav)}</p></details>')
    return "\n".join(out)


def _fmt(v) -> str:
    return "" if v is None else _e(f"{v:.4f}")
