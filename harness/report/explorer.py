"""The topic explorer of report.html, encoded: what the page embeds of
:class:`~harness.experiment.explore.ExplorerData`, within a byte budget.

* **Texts once.** A document's snippet depends on the topic (its query's terms) and not on the
  run, so each topic lists its documents once, ``[doc id, judgment, snippet]``, and each shown
  run's hits point into that list: ``[document index, score text, move text]`` (the rank is the
  position). On Cranfield with three runs, 13,500 hits hold 5,915 distinct (topic, document)
  snippets: the page went from 6.4 MB (every hit written out in HTML) to about 1.6 MB.
* **Compact.** One JSON document (``<script type="application/json" id="explorer-data">``):
  a snippet is ``[flags, text, marked, text, marked, ...]`` (flags: 1 cut before, 2 cut after;
  ``null``: not in the index), scores and values as the text shown (4 decimals). The page's one
  script (``templates/explorer.js``) draws a topic's results when it is first opened, with
  text nodes only, so the page opens fast and works offline; without scripts the topic table
  and each topic's summary line are still there. ``<``, ``>`` and ``&`` are written as JSON
  escapes, so no text in the data can end the script element.
* **Bounded.** Topics are embedded in the order of the explorer's choice (largest difference
  either way first, else topic order) while the JSON and the topic's lines stay within
  the bytes the rest of the page leaves of :data:`REPORT_BYTES` (harness.report.html measures
  it); the page says how many were left out and how to see them. The rest of the page is bounded
  too (harness.report.plots caps its charts), so report.html stays under 3 MB at any size.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from markupsafe import Markup

if TYPE_CHECKING:  # types only: the data is gathered by harness.experiment.explore
    from harness.experiment.result import ExplorerData, TopicView

__all__ = ["REPORT_BYTES", "EXPLORER_BYTES", "EncodedExplorer", "Topics", "topics", "encode", "move_legend"]

# report.html at most, in UTF-8 bytes: the explorer takes what the rest of the page leaves, and at
# most EXPLORER_BYTES (its JSON and its topics' HTML).
REPORT_BYTES = 2_900_000
EXPLORER_BYTES = 2_600_000
# The HTML of one topic besides its texts (table row, summary, links), a bound used for the budget.
_TOPIC_HTML = 600


@dataclass(frozen=True)
class EncodedExplorer:
    topics: tuple[
        tuple[int, TopicView], ...
    ]  # (position in the data, its view) of the embedded topics, in the shown order
    data: Markup  # the JSON, safe inside a <script> element
    left_out: int  # topics the explorer chose but the budget left out


def _snippet(hit) -> list | None:
    if hit.snippet is None:
        return None
    out: list = [(1 if hit.cut_before else 0) | (2 if hit.cut_after else 0)]
    for text, marked in hit.snippet:
        if (len(out) % 2 == 0) != marked:  # pieces alternate: plain at odd positions, marked at even
            out.append("")
        out.append(text)
    return out


def _topic(t, shown) -> dict:
    docs: dict[str, int] = {}
    entries: list = []
    hits = []
    for name in shown:
        row = []
        for h in t.hits.get(name, ()):
            i = docs.get(h.doc)
            if i is None:
                i = docs[h.doc] = len(entries)
                entries.append([h.doc, h.label, _snippet(h)])
            row.append([i, f"{h.score:.4f}"] + ([h.move[1]] if h.move is not None else []))
        hits.append(row)
    values = [None if t.values.get(n) is None else f"{t.values[n]:.4f}" for n in shown]
    return {"terms": " ".join(t.terms), "values": values, "docs": entries, "hits": hits}


def _json(value) -> str:
    """JSON with ``<``, ``>`` and ``&`` escaped: three ``str.replace`` calls, not ``str.translate``
    with a table, which looks each character up in the table. For Cranfield x10's 250 topics of
    four runs, the page's two encodings took 0.65 s of CPU with translate, each topic encoded
    twice; 0.046 s with replace and each topic encoded once (:func:`topics`)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@dataclass(frozen=True)
class Topics:
    """Every topic of an ExplorerData encoded, with what each costs of the budget: made once by
    :func:`topics`, then cut to a budget by :func:`encode` (the page is measured with none of
    them first, harness.report.html)."""

    encoded: list[str]
    cost: list[int]


def topics(x: ExplorerData) -> Topics:
    """The JSON of each topic of ExplorerData ``x`` and its bytes in the page."""
    encoded = [_json(_topic(t, x.shown)) for t in x.topics]
    cost = [
        len(e.encode()) + 2 * len(t.text.encode()) + len(t.qid.encode()) * 4 + _TOPIC_HTML
        for e, t in zip(encoded, x.topics)
    ]
    return Topics(encoded, cost)


def encode(x: ExplorerData, budget: int = EXPLORER_BYTES, made: Topics | None = None) -> EncodedExplorer:
    """The embedded part of ExplorerData ``x``: its topics while they fit in ``budget`` bytes
    (``made``: :func:`topics` of ``x``, when already made)."""
    made = topics(x) if made is None else made
    encoded, cost = made.encoded, made.cost
    if x.by_difference:  # the explorer's priority: the largest differences either way
        priority = sorted(
            range(len(encoded)), key=lambda i: (x.topics[i].diff is None, -abs(x.topics[i].diff or 0.0), i)
        )
    else:
        priority = list(range(len(encoded)))
    kept, used = set(), 0
    for i in priority:
        if used + cost[i] > budget:
            break
        kept.add(i)
        used += cost[i]
    order = [i for i in range(len(encoded)) if i in kept]
    head = _json({"runs": list(x.shown), "measure": x.measure})[:-1]
    data = head + ',"topics":[' + ",".join(encoded[i] for i in order) + "]}"
    return EncodedExplorer(
        tuple((pos, x.topics[i]) for pos, i in enumerate(order)), Markup(data), len(x.topics) - len(order)
    )


def move_legend(embedded, shown) -> str:
    """The sentence that explains the rank-change marks of the embedded topics' hits (``embedded``:
    :attr:`EncodedExplorer.topics`), naming only the marks some hit carries, "" for none: as the
    means tables' legends, a line for a mark the page never shows explains nothing."""
    marks = {h.move[1] for _, t in embedded for hits in t.hits.values() for h in hits if h.move is not None}
    if not marks or len(shown) < 2:
        return ""
    where, first = (shown[1] if len(shown) == 2 else "each later run"), shown[0]
    arrows = "/".join(a for a in ("▲", "▼") if any(m.startswith(a) for m in marks))
    if arrows:
        parts = [f"{arrows}: rank change in {where} against {first}'s whole run"]
        parts += ["=: the same rank"] if "=" in marks else []
        parts += ["new: not in it"] if "new" in marks else []
    else:
        parts = [f"=: the same rank in {where} as in {first}'s whole run"] if "=" in marks else []
        parts += [f"new: not in {first}'s whole run"] if "new" in marks else []
    return "; ".join(parts) + "."
