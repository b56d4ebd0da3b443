"""report.html: one self-contained page (inline CSS and SVG, the topic explorer's data as JSON and
its one script, :mod:`harness.report.explorer`; no external references: it works offline).

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

from markupsafe import Markup

from harness import lazy
from harness.metrics.evaluate import AUDIT_COLUMNS
from harness.policies import format_p
from harness.report import explorer
from harness.report.tables import anova_cells, fmt_d, power_cells, significance
from harness.report.view import LATENCY_COLUMNS, LATENCY_NOTE, ReportView, latency_cells, latency_search, removed

jinja2 = lazy.module("jinja2")

__all__ = ["render"]


@cache
def _environment():
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
        significance=significance,
        sweep_rows=lambda sw: [
            [r.measure, r.best, f"{r.best_mean:.4f}", f"{len(r.kept)} of {r.total}", ", ".join(r.kept)] for r in sw.rows
        ],
        group_rows=lambda v: [
            [g.measure, g.best, f"{g.best_mean:.4f}", f"{len(g.kept)} of {g.total}", ", ".join(g.kept)]
            for g in v.groups
        ],
        anova_rows=lambda v: [anova_cells(row) for row in v.anova],
        power_rows=lambda v: [power_cells(row) for row in v.power],
        fold_rows=lambda t: [
            [str(f.index + 1), str(len(f.test_topics)), f.chosen, f"{f.train_mean:.4f}", f"{f.test_mean:.4f}"]
            for f in t.folds
        ],
        policy_rows=lambda v: [[k, str(val)] for k, val in v.policy.items()]
        + ([["statistics", str(v.comparisons.policy)]] if v.comparisons is not None else []),
        coverage_rows=lambda v: [[name, *(str(x) for x in a.values())] for name, a in v.coverage.items()],
        coverage_titles=lambda keys: [AUDIT_COLUMNS.get(k, "") for k in keys],
        run_rows=lambda v: [
            [r.name, r.file, str(r.topics_returned), f"{r.seconds:.2f}", "yes" if r.reused else "no"] for r in v.runs
        ],
        latency_columns=LATENCY_COLUMNS,
        latency_note=LATENCY_NOTE,
        latency_rows=lambda v: [[r.name, latency_search(r), *latency_cells(r)] for r in v.latency],
        check_rows=lambda v: [
            [
                ch.status,
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
        move_legend=explorer.move_legend,
    )
    return env


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
        (
            "topics",
            manifest["topics"]["path"],
            f"{manifest['topics']['format']}, {manifest['topics']['count']} topics{removed(manifest)}",
        ),
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
        if view.groups:
            out.append(("groups", "Indistinguishable from the best"))
        if view.anova:
            out.append(("anova", "Two-way ANOVA"))
        if view.power:
            out.append(("power", "Power and topic set size"))
        out.append(("plots", "Plots"))
        if view.comparisons is not None and (view.comparisons.sweeps or view.comparisons.tuning):
            out.append(("sweeps", "Sweeps and tuning"))
        out += [("policies", "Policies"), ("coverage", "Coverage audit")]
    if view.explorer is not None:
        out.append(("explorer", "Topic explorer"))
    out += [("runs", "Runs"), ("latency", "Latency")]
    if view.checks:
        out.append(("expectations", "Expectations"))
    out.append(("provenance", "Provenance"))
    return out


def render(view: ReportView) -> str:
    env = _environment()
    page = env.get_template("report.html.j2")
    x = view.explorer
    script = Markup(env.loader.get_source(env, "explorer.js")[0])

    def draw(encoded):
        return page.render(
            v=view, x=x, plots=view.plots, sections=sections(view), explorer_encoded=encoded, explorer_script=script
        )

    if x is None:
        return draw(None)
    # the explorer gets what the rest of the page leaves of REPORT_BYTES (the rest is bounded:
    # harness.report.plots caps its charts), so the page stays under it at any size
    made = explorer.topics(x)  # each topic encoded once for both (harness.report.explorer._json)
    rest = len(draw(explorer.encode(x, budget=0, made=made)).encode())
    return draw(explorer.encode(x, budget=min(explorer.EXPLORER_BYTES, explorer.REPORT_BYTES - rest), made=made))
