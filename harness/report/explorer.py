"""The topic explorer of report.html, rendered from the data the run verb gathered
(:mod:`harness.experiment.explore`, which documents which runs, topics and terms are shown): for each topic, the query, how many documents are judged,
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

__all__ = ["render_explorer"]


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _marked(pieces) -> str:
    return "".join(f"<mark>{_e(t)}</mark>" if hit else _e(t) for t, hit in pieces)


def _judgment(label: int | None) -> tuple[str, str]:
    if label is None:
        return "unj", "unjudged"
    if label <= 0:
        return "non", f"not relevant ({label})"
    return "rel", f"relevant ({label})"


def _fmt(v) -> str:
    return "" if v is None else _e(f"{v:.4f}")


def render_explorer(data) -> str:
    """The explorer's HTML (a fragment) from an ExplorerData."""
    measure, shown, depth = data.measure, list(data.shown), data.depth
    out = []
    sort_note = (
        f"sorted by the difference in {measure} ({shown[1]} − {shown[0]}), largest gain first"
        if data.by_difference
        else "in topic order"
    )
    out.append(
        f'<p class="policy">Each run\'s top {depth} per topic, {_e(sort_note)}. '
        + (
            f"Showing {len(data.topics)} of {data.topics_total} topics: "
            + ("those with the largest differences, either way" if data.by_difference else "the first in topic order")
            + " (<code>report.explorer_topics</code>). "
            if len(data.topics) < data.topics_total
            else ""
        )
        + (
            f"Showing {len(shown)} of {data.runs} runs: the first run or baseline and the best by mean {_e(measure)}. "
            if len(shown) < data.runs
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
    if data.by_difference:
        head.append(f"Δ {measure}")
    out.append('<div class="scroll"><table class="topics"><thead><tr>')
    out.append("".join(f"<th>{_e(h)}</th>" for h in head) + "</tr></thead><tbody>")
    for pos, t in enumerate(data.topics):
        cells = [
            f'<td><a href="#t{pos}">{_e(t.qid)}</a></td>',
            f"<td>{_e(t.text)}</td>",
            f'<td class="n">{t.judged}</td>',
        ]
        if measure:
            cells += [f'<td class="n">{_fmt(t.values.get(n))}</td>' for n in shown]
        if data.by_difference:
            d = t.diff
            cls = "up" if d is not None and d > 0 else ("down" if d is not None and d < 0 else "")
            cells.append(f'<td class="n {cls}">{"" if d is None else _e(f"{d:+.4f}")}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")

    for pos, t in enumerate(data.topics):
        summary = f'{_e(t.qid)}: {_e(t.text)} <span class="muted">— {t.judged} judged, {t.relevant} relevant'
        if t.diff is not None:
            summary += f"; Δ {_e(measure)} {_e(f'{t.diff:+.4f}')}"
        summary += "</span>"
        # the anchor sits inside the details, so following a link to it opens the topic
        out.append(f'<details class="topic"><summary>{summary}</summary><span class="anchor" id="t{pos}"></span>')
        out.append(f'<p class="muted">Analyzed query terms: <code>{_e(" ".join(t.terms) or "(none)")}</code></p>')
        out.append('<div class="cols">')
        for name in shown:
            hits = t.hits.get(name, ())
            v = t.values.get(name) if measure else None
            title = _e(name) + (f' <span class="muted">{_e(measure)} {_fmt(v)}</span>' if v is not None else "")
            out.append(f'<div class="col"><h4>{title}</h4>')
            if not hits:
                out.append('<p class="muted">No results.</p></div>')
                continue
            out.append('<ol class="hits">')
            for h in hits:
                cls, jtext = _judgment(h.label)
                move = f' <span class="move {h.move[0]}">{_e(h.move[1])}</span>' if h.move is not None else ""
                if h.snippet is None:
                    snip = '<span class="muted">(not in the index)</span>'
                else:
                    snip = ("… " if h.cut_before else "") + _marked(h.snippet) + (" …" if h.cut_after else "")
                out.append(
                    f'<li class="{cls}"><span class="rank">{h.rank}</span> <code>{_e(h.doc)}</code> '
                    f'<span class="score">{_e(f"{h.score:.4f}")}</span> <span class="judg">{_e(jtext)}</span>{move}'
                    f'<div class="snip">{snip}</div></li>'
                )
            out.append("</ol></div>")
        out.append("</div>")
        nav = []
        if pos > 0:
            nav.append(f'<a href="#t{pos - 1}">← previous topic</a>')
        if pos + 1 < len(data.topics):
            nav.append(f'<a href="#t{pos + 1}">next topic →</a>')
        nav.append('<a href="#explorer">all topics</a>')
        out.append(f'<p class="topicnav">{" ".join(nav)}</p></details>')
    return "\n".join(out)
