"""report.html: one self-contained page (inline CSS and SVG; no scripts, no external references).

Every text that comes from data (run names, topic ids and text, paths, config values) goes
through :func:`html.escape` with quotes escaped, and every attribute value is quoted, so a topic
id like ``<script>`` shows as text and never becomes markup.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING

from harness.report.plots import render_plots
from harness.report.tables import audit, eval_policy, fmt, fmt_d, fmt_p, significance_marks, summary_rows

if TYPE_CHECKING:  # a type only: rendering imports nothing that runs an experiment
    from harness.experiment.result import ExperimentResult

__all__ = ["render_html"]

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#222;margin:0;background:#fafafa}
main{max-width:1200px;margin:0 auto;padding:16px 24px 48px;background:#fff}
h1{font-size:24px;margin:8px 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:3px}
h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:6px 0 12px;font-variant-numeric:tabular-nums}
th,td{padding:3px 9px;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}
th{background:#f2f2f2;font-weight:600}td.n,th.n{text-align:right}td.n{white-space:nowrap}
.scroll{overflow-x:auto;max-width:100%}pre{white-space:pre-wrap;word-break:break-all}
tr.sig.better td{background:#eef7f1}tr.sig.worse td{background:#fcecea}td.best{font-weight:700}
.mark{color:#b03000;font-weight:700}.muted{color:#666}.policy{background:#f5f7fb;border-left:3px solid #0072B2;padding:6px 10px}
.plots{display:flex;flex-wrap:wrap;gap:12px}.chart{background:#fff;border:1px solid #e4e4e4}
code{font-size:12.5px;background:#f3f3f3;padding:0 3px;word-break:break-all}
nav a{margin-right:12px;color:#0072B2;text-decoration:none}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px}dt{font-weight:600}dd{margin:0}
details.topic{border:1px solid #e4e4e4;border-radius:4px;margin:6px 0;padding:2px 10px}
details.topic>summary{cursor:pointer;padding:4px 0;font-weight:600}details.topic[open]>summary{border-bottom:1px solid #eee}
summary:focus-visible,a:focus-visible{outline:3px solid #0072B2;outline-offset:2px}
.cols{display:flex;gap:14px;overflow-x:auto}.col{flex:1 1 0;min-width:300px}.col h4{margin:8px 0 4px;font-size:13.5px}
ol.hits{list-style:none;padding:0;margin:0}ol.hits li{border-left:4px solid #ccc;padding:3px 8px;margin:4px 0;font-size:13px}
ol.hits li.rel{border-left-color:#009E73;background:#f2faf6}ol.hits li.non{border-left-color:#999}
ol.hits li.unj{border-left-color:#E69F00;border-left-style:dashed}
.rank{display:inline-block;min-width:2em;font-weight:700}.score{color:#555}.judg{font-style:italic}
.move{font-weight:700;margin-left:6px}.move.up,td.up{color:#007a55}.move.down,td.down{color:#b03000}.move.same{color:#777}
.snip{color:#333;margin-top:2px}mark{background:#ffe08a;padding:0 1px}.topicnav a{margin-right:14px}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _table(
    head: list[str], rows: list[list[str]], numeric: set[int] = frozenset(), row_class: list[str] | None = None
) -> str:
    """An HTML table; ``head`` and cell texts are escaped here, except cells given as
    ``("html", markup)`` pairs, which the caller built from escaped parts."""

    def cell(tag: str, i: int, v) -> str:
        cls = ' class="n"' if i in numeric else ""
        if isinstance(v, tuple) and v[0] == "html":
            return f"<{tag}{cls}>{v[1]}</{tag}>"
        return f"<{tag}{cls}>{_e(v)}</{tag}>"

    out = [
        '<div class="scroll"><table>',
        "<thead><tr>" + "".join(cell("th", i, h) for i, h in enumerate(head)) + "</tr></thead>",
        "<tbody>",
    ]
    for k, row in enumerate(rows):
        cls = f' class="{_e(row_class[k])}"' if row_class and row_class[k] else ""
        out.append(f"<tr{cls}>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def _means(result: ExperimentResult) -> str:
    cfg = result.config
    marks = significance_marks(result)
    rows = summary_rows(result)
    best = {m: max(r[m] for r in rows) for m in cfg.measures}
    body = []
    for r in rows:
        name = r["run"] + (f" ({marks.letters[r['run']]})" if marks.letters else "")
        cells: list = [name]
        for m in cfg.measures:
            sym = "".join(marks.cells.get((r["run"], m), ()))
            text = _e(fmt(r[m])) + (f'<sup class="mark">{_e(sym)}</sup>' if sym else "")
            cells.append(("html", f"<strong>{text}</strong>" if r[m] == best[m] else text))
        body.append(cells)
    out = [_table(["run", *cfg.measures], body, numeric=set(range(1, len(cfg.measures) + 1)))]
    out.append('<p class="muted">Best mean of each measure in bold.</p>')
    if marks.legend:
        out.append("<p>" + "<br>".join(f'<span class="mark">{_e(s)}</span> {_e(t)}' for s, t in marks.legend) + "</p>")
    return "\n".join(out)


def _comparisons(result: ExperimentResult) -> str:
    c = result.comparisons
    level = f"{c.policy.ci_level * 100:g}% CI (uncorrected)"
    rows, classes = [], []
    for r in c.rows:
        rows.append(
            [
                r.measure,
                r.baseline,
                r.run,
                f"{r.mean_baseline:.4f}",
                f"{r.mean_run:.4f}",
                f"{r.diff:+.4f}",
                f"[{r.ci_low:+.4f}, {r.ci_high:+.4f}]",
                fmt_d(r.effect_size),
                fmt_p(r.p),
                fmt_p(r.p_corrected),
                ("html", '<span class="mark">†</span>') if r.reject else "",
                f"{r.wins}/{r.ties}/{r.losses}",
            ]
        )
        classes.append(("sig better" if r.diff > 0 else "sig worse") if r.reject else "")
    return "\n".join(
        [
            f'<p class="policy">{_e(c.policy)}. {len(c.topics)} topics, paired. '
            f'<span class="mark">†</span>: significant (corrected p &lt; {_e(f"{c.policy.alpha:g}")}). '
            "d: paired Cohen's d. W/T/L: topics where the run wins, ties, loses against the baseline. "
            "Significant rows are green where the run is better than the baseline, red where it is worse. "
            "The CI is the percentile bootstrap interval of each difference on its own, not corrected "
            "for the multiple comparisons the p-values are corrected for.</p>",
            _table(
                [
                    "measure",
                    "baseline",
                    "run",
                    "baseline mean",
                    "run mean",
                    "diff",
                    level,
                    "d",
                    "p",
                    "corrected p",
                    "",
                    "W/T/L",
                ],
                rows,
                numeric={3, 4, 5, 6, 7, 8, 9},
                row_class=classes,
            ),
        ]
    )


def _sweeps(result: ExperimentResult) -> str:
    c = result.comparisons
    out = []
    for sw in c.sweeps:
        out.append(f"<h3>{_e(sw.model)}: settings not significantly different from the best</h3>")
        rows = []
        for m, keep in sw.not_worse.items():
            best = max(sw.runs, key=lambda n: result.evaluations[n].means[m])
            rows.append(
                [m, best, f"{result.evaluations[best].means[m]:.4f}", f"{len(keep)} of {len(sw.runs)}", ", ".join(keep)]
            )
        out.append(
            _table(
                [
                    "measure",
                    "best",
                    "mean",
                    "kept",
                    "not significantly different (two-sided, each against the best, corrected together)",
                ],
                rows,
                numeric={2},
            )
        )
    for t in c.tuning:
        out.append(f"<h3>{_e(t.model)} tuned by {len(t.folds)}-fold cross-validation on {_e(t.measure)}</h3>")
        rows = [
            [str(f.index + 1), str(len(f.test_topics)), f.chosen, f"{f.train_mean:.4f}", f"{f.test_mean:.4f}"]
            for f in t.folds
        ]
        out.append(
            _table(
                ["fold", "test topics", "chosen on the other folds", "train mean", "held-out mean"],
                rows,
                numeric={0, 1, 3, 4},
            )
        )
        out.append(
            f"<p>Held-out {_e(t.measure)} over all topics: <strong>{t.heldout_mean:.4f}</strong>. "
            f'<span class="muted">The best fixed setting chosen on all topics, {_e(t.best_fixed)}, '
            f"scores {t.best_fixed_mean:.4f}, an optimistic figure: it is tuned on the test topics.</span> "
            f"The run <code>{_e(t.run)}</code> answers each fold's topics with that fold's choice: its values "
            "are out-of-fold, and it is compared like any other run.</p>"
        )
    return "\n".join(out)


def _provenance(manifest: dict) -> str:
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
    out = ["<dl>"]
    for k, path, detail in items:
        out.append(f'<dt>{_e(k)}</dt><dd><code>{_e(path)}</code> <span class="muted">{_e(detail)}</span></dd>')
    versions = ", ".join(f"{k} {v}" for k, v in manifest["versions"].items())
    out.append(f"<dt>versions</dt><dd>{_e(versions)}</dd>")
    timings = ", ".join(f"{k} {v:.2f} s" for k, v in manifest["timings_seconds"].items())
    out.append(f"<dt>timings</dt><dd>{_e(timings)}</dd></dl>")
    out.append(
        _table(
            ["run", "sha256", "reused"],
            [[r["name"], r["sha256"], "yes" if r["reused"] else "no"] for r in manifest["runs"]],
        )
    )
    out.append(
        "<details><summary>The config as parsed</summary><pre>"
        + _e(json.dumps(manifest["config"]["parsed"], indent=2, default=str))
        + "</pre></details>"
    )
    return "\n".join(out)


def render_html(result: ExperimentResult, manifest: dict) -> str:
    cfg = result.config
    stats = result.index.manifest.get("stats", {})
    sections: list[tuple[str, str, str]] = []
    if result.evaluations:
        if result.warnings:
            items = "".join(f"<li>{html.escape(m)}</li>" for m in result.warnings)
            sections.append(("warnings", "Warnings", f"<ul>{items}</ul>"))
        sections.append(("means", "Mean scores", _means(result)))
        if result.comparisons is not None:
            sections.append(("comparisons", "Comparisons", _comparisons(result)))
        sections.append(("plots", "Plots", render_plots(result)))
        if result.comparisons is not None and (result.comparisons.sweeps or result.comparisons.tuning):
            sections.append(("sweeps", "Sweeps and tuning", _sweeps(result)))
        pol = eval_policy(result)
        policies = [[k, str(v)] for k, v in pol.items()]
        if result.comparisons is not None:
            policies.append(["statistics", str(result.comparisons.policy)])
        sections.append(("policies", "Policies", _table(["policy", "value"], policies)))
        aud = audit(result)
        keys = list(next(iter(aud.values())))
        sections.append(
            (
                "coverage",
                "Coverage audit",
                _table(
                    ["run", *(k.replace("_", " ") for k in keys)],
                    [[name, *(str(a[k]) for k in keys)] for name, a in aud.items()],
                    numeric=set(range(1, len(keys) + 1)),
                ),
            )
        )
    else:
        sections.append(("means", "Mean scores", "<p>No qrels in the config: runs only, no metrics.</p>"))
    if result.explorer is not None:  # gathered by the run verb (harness.experiment.explore)
        from harness.report.explorer import render_explorer

        sections.append(("explorer", "Topic explorer", render_explorer(result.explorer)))
    sections.append(
        (
            "runs",
            "Runs",
            _table(
                ["run", "file", "topics returned", "seconds", "reused"],
                [
                    [
                        r.name,
                        f"runs/{r.name}.trec",
                        str(len(r.run.topics())),
                        f"{r.seconds:.2f}",
                        "yes" if r.reused else "no",
                    ]
                    for r in result.runs
                ],
                numeric={2, 3},
            ),
        )
    )
    if result.checks:
        sections.append(
            (
                "expectations",
                "Expectations",
                _table(
                    ["", "run", "measure", "expected", "actual", "delta"],
                    [
                        [
                            "OK" if ch.ok else "FAIL",
                            ch.run,
                            ch.measure,
                            f"{ch.expected}",
                            "missing" if ch.actual is None else f"{ch.actual:.6f}",
                            "" if ch.actual is None else f"{ch.actual - ch.expected:+.6f}",
                        ]
                        for ch in result.checks
                    ],
                    numeric={3, 4, 5},
                ),
            )
        )
    sections.append(("provenance", "Provenance", _provenance(manifest)))

    lead = (
        f"Index {'reused' if result.index.reused else 'built'}: {stats.get('documents', '?')} documents, "
        f"{stats.get('unique_terms', '?')} unique terms (stemmer {cfg.stemmer}, stopwords "
        f"{'removed' if cfg.stopwords else 'kept'}). {len(result.topics)} topics, depth {cfg.depth}, "
        f"{len(result.runs)} runs ({sum(r.reused for r in result.runs)} reused from the cache)."
    )
    page = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(cfg.name)} — harness report</title>",
        f"<style>{_CSS}</style></head><body><main>",
        f"<h1>{_e(cfg.name)}</h1>",
        f"<p>{_e(lead)}</p>",
        "<nav>" + "".join(f'<a href="#{sid}">{_e(title)}</a>' for sid, title, _ in sections) + "</nav>",
    ]
    for sid, title, body in sections:
        page.append(f'<section id="{sid}"><h2>{_e(title)}</h2>\n{body}\n</section>')
    page.append("</main></body></html>\n")
    return "\n".join(page)
