"""report.html: one self-contained page (inline CSS and SVG; no scripts, no external references).

Laid out by the Jinja2 templates in ``templates/`` (``report.html.j2``, the topic explorer's
``explorer.html.j2``, the table macro of ``_macros.html.j2``) from a
:class:`~harness.report.view.ReportView`, with autoescape: every text that comes from data (run
names, topic ids and text, paths, config values) is escaped by Jinja2, and every attribute value
is quoted, so a topic id like ``<script>`` shows as text and never becomes markup. The charts
(:mod:`harness.report.svg`) arrive as ``markupsafe.Markup``, escaped where they were drawn.
"""

from __future__ import annotations

import json
from functools import cache

from harness.policies import format_p
from harness.report.tables import fmt_d, significance
from harness.report.view import ReportView

__all__ = ["render"]


@cache
def _environment():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("harness.report", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,  # a misspelt name in a template fails, never renders as ""
    )
    env.filters.update(fmt_p=format_p, fmt_d=fmt_d, tojson_text=lambda v: json.dumps(v, indent=2, default=str))
    env.globals.update(
        judgment=_judgment,
        significance=significance,
        snippet_html=_snippet_html,
        sweep_rows=lambda sw: [
            [r.measure, r.best, f"{r.best_mean:.4f}", f"{len(r.kept)} of {r.total}", ", ".join(r.kept)] for r in sw.rows
        ],
        fold_rows=lambda t: [
            [str(f.index + 1), str(len(f.test_topics)), f.chosen, f"{f.train_mean:.4f}", f"{f.test_mean:.4f}"]
            for f in t.folds
        ],
        policy_rows=lambda v: [[k, str(val)] for k, val in v.policy.items()]
        + ([["statistics", str(v.comparisons.policy)]] if v.comparisons is not None else []),
        coverage_rows=lambda v: [[name, *(str(x) for x in a.values())] for name, a in v.coverage.items()],
        run_rows=lambda v: [
            [r.name, r.file, str(r.topics_returned), f"{r.seconds:.2f}", "yes" if r.reused else "no"] for r in v.runs
        ],
        check_rows=lambda v: [
            [
                "OK" if ch.ok else "FAIL",
                ch.run,
                ch.measure,
                f"{ch.expected}",
                "missing" if ch.actual is None else f"{ch.actual:.6f}",
                "" if ch.actual is None else f"{ch.actual - ch.expected:+.6f}",
            ]
            for ch in v.checks
        ],
        manifest_run_rows=lambda m: [[r["name"], r["sha256"], "yes" if r["reused"] else "no"] for r in m["runs"]],
        provenance_items=_provenance_items,
    )
    return env


def _snippet_html(hit):
    """The explorer's snippet of a hit as markup: escaped pieces, the matched ones in <mark>.
    The pieces are escaped in one call, joined by NUL (which escaping keeps): one escape and a
    Jinja loop step per piece cost ~0.1 s of Cranfield x10's report (80,000 pieces)."""
    from markupsafe import Markup, escape

    if hit.snippet is None:
        return Markup('<span class="muted">(not in the index)</span>')
    texts = [text for text, _ in hit.snippet]
    escaped = str(escape("\0".join(texts))).split("\0")
    if len(escaped) != len(texts):  # a piece holds a NUL itself
        escaped = [str(escape(text)) for text in texts]
    parts = ["… " if hit.cut_before else ""]
    parts += [f"<mark>{e}</mark>" if marked else e for e, (_, marked) in zip(escaped, hit.snippet)]
    if hit.cut_after:
        parts.append(" …")
    return Markup("".join(parts))


def _judgment(label: int | None) -> tuple[str, str]:
    if label is None:
        return "unj", "unjudged"
    if label <= 0:
        return "non", f"not relevant ({label})"
    return "rel", f"relevant ({label})"


def _provenance_items(manifest: dict) -> list[tuple[str, str, str]]:
    idx = manifest["index"]
    stats = idx.get("stats") or {}
    items = [
        ("config", f"{manifest['config']['path']}", f"sha256 {manifest['config']['sha256']}"),
        (
            "index",
            idx["path"],
            f"fingerprint {idx['fingerprint']}; {'reused' if idx['reused'] else 'built'}; "
            f"{stats.get('documents', '?')} documents",
        ),
        ("topics", manifest["topics"]["path"], f"{manifest['topics']['format']}, {manifest['topics']['count']} topics"),
    ]
    if manifest["qrels"]:
        items.append(("qrels", manifest["qrels"]["path"], f"sha256 {manifest['qrels']['sha256']}"))
    return items


def sections(view: ReportView) -> list[tuple[str, str]]:
    """The page's sections, (id, title), in order; the navigation bar links each."""
    out = []
    if view.warnings:
        out.append(("warnings", "Warnings"))
    out.append(("means", "Mean scores"))
    if view.evaluated:
        if view.comparisons is not None:
            out.append(("comparisons", "Comparisons"))
        out.append(("plots", "Plots"))
        if view.comparisons is not None and (view.comparisons.sweeps or view.comparisons.tuning):
            out.append(("sweeps", "Sweeps and tuning"))
        out += [("policies", "Policies"), ("coverage", "Coverage audit")]
    if view.explorer is not None:
        out.append(("explorer", "Topic explorer"))
    out.append(("runs", "Runs"))
    if view.checks:
        out.append(("expectations", "Expectations"))
    out.append(("provenance", "Provenance"))
    return out


def render(view: ReportView) -> str:
    page = _environment().get_template("report.html.j2")
    return page.render(v=view, x=view.explorer, plots=view.plots, sections=sections(view))
